#!/usr/bin/env bash
# exported_symbols.sh LIBRARY SOURCE...: every C entry point the SOURCEs give LIBRARY is in its
# dynamic symbol table as a defined function (nm -D). From a .cc file: the MPI_ functions it
# defines (PMPI wrappers, MPI's reorder = 1); from a header: the treematch_ and tm_ functions it
# declares. A wrapper left hidden is not an error anywhere else: a preloaded library whose MPI_
# entry points are not exported records nothing, silently (MPICH's mpi.h marks none visible).
set -euo pipefail
library=$1
shift
defined=$(nm -D --defined-only "$library" | awk '$2 == "T" { print $3 }' | sort -u)
expected=""
for source in "$@"; do
  case $source in
    *.h) names=$(sed 's://.*$::; s:/\*.*\*/::g' "$source" |
                 grep -oE '\b(treematch|tm)_[a-z_]+ *\(' | tr -d ' (' || true) ;;
    *) names=$(grep -oE '(^|[ )])int (MPI_[A-Za-z_]+)\(' "$source" | grep -oE 'MPI_[A-Za-z_]+' || true) ;;
  esac
  expected+="$names"$'\n'
done
expected=$(printf '%s' "$expected" | grep . | sort -u)
count=$(printf '%s\n' "$expected" | wc -l)
if [ "$count" -lt 1 ]; then
  echo "no entry point found in $*" >&2
  exit 1
fi
missing=$(comm -23 <(printf '%s\n' "$expected") <(printf '%s\n' "$defined"))
if [ -n "$missing" ]; then
  echo "$(basename "$library") does not export $(echo "$missing" | wc -l) of its $count entry points:" \
       $missing >&2
  exit 1
fi
echo "$(basename "$library") exports all its $count entry points"
