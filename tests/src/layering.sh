#!/usr/bin/env bash
# layering.sh SOURCE_DIR: src/'s phase folders include only from their own level or below, so that
# each phase can be read (and tested) without those above it:
#   tree < model < walk, partition, report, patterns < refine < top_down < strategies < driver
# and the MPI folders above them all (mpi < distributed < batch, any of the others below).
set -euo pipefail
cd "$1"
level() {
  case $1 in
    tree) echo 0 ;; model) echo 1 ;; walk | partition | report | patterns) echo 2 ;;
    refine) echo 3 ;; top_down) echo 4 ;; strategies) echo 5 ;; driver) echo 6 ;;
    mpi) echo 7 ;; distributed) echo 8 ;; batch) echo 9 ;; *) echo "" ;;
  esac
}
checked=0
for folder in src/*/; do
  folder=$(basename "$folder")
  mine=$(level "$folder")
  [ -n "$mine" ] || { echo "src/$folder: a folder the layering does not know"; exit 1; }
  while IFS=: read -r file included; do
    theirs=$(level "$included")
    if [ -z "$theirs" ] || [ "$theirs" -gt "$mine" ]; then
      echo "$file includes src/$included/, a folder above src/$folder/"
      exit 1
    fi
    checked=$((checked + 1))
  done < <(grep -o '#include "src/[a-z_]*/' "src/$folder"/*.h "src/$folder"/*.cc 2>/dev/null |
           sed 's|#include "src/||; s|/$||')
done
echo "src/ layering: $checked includes, none from a lower folder up"
