#!/bin/bash
# readme_quotes_files.sh README FILE...: each FILE must appear whole, as one fenced code block, in
# README (the examples the README shows are the ones CMake builds and CTest runs). Names each
# file that is missing or differs.
set -u
readme=$1
shift
blocks=$(mktemp -d)
trap 'rm -rf "$blocks"' EXIT
# Every fenced block of the README into its own file, fences dropped.
awk -v dir="$blocks" '
  /^ *```/ { if (inside) { close(out); inside = 0 } else { inside = 1; out = sprintf("%s/%04d", dir, ++n); printf "" > out } next }
  inside { print > out }
' "$readme"
status=0
for file in "$@"; do
  found=no
  for block in "$blocks"/*; do
    if cmp -s "$block" "$file"; then
      found=yes
      break
    fi
  done
  if [ "$found" = no ]; then
    echo "$readme does not quote $file whole (a fenced block equal to the file)"
    status=1
  fi
done
[ "$status" = 0 ] && echo "$readme quotes $# files whole"
exit "$status"
