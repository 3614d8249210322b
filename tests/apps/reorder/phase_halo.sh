#!/usr/bin/env bash
# The phase API end to end: a relabelled 2-D halo measured inside the job (profiling library's
# counters), written to HDF5 and reordered; the reordered placement costs what `treematch map`
# gives offline on the written phase and the same topology, and less than rank order.
#   phase_halo.sh TREEMATCH TM_MPIEXEC PROGRAM PROFILE_LIBRARY RANKS TOPOLOGY [PRELOAD_PREFIX]
set -euo pipefail
treematch=$1 mpiexec=$2 program=$3 profile=$4 ranks=$5 topology=$6 prefix=${7:-}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
"$mpiexec" -n "$ranks" \
  --env LD_PRELOAD="$prefix$profile" --env TREEMATCH_PROFILE_OUT="$scratch/whole.h5" \
  "$program" "$scratch/pattern.h5" "$topology" "$scratch/injob.perm" "$scratch/identity.perm" |
  grep -qx "checks: ok"
"$treematch" map -m "$scratch/pattern.h5:/phase/halo" -t "$topology" --format perm \
  -o "$scratch/offline.perm" 2>/dev/null
weighted() {
  "$treematch" eval -m "$scratch/pattern.h5:/phase/halo" -t "$topology" --mapping "$1" |
    awk '$1 == "weighted" { print $2 }'
}
injob=$(weighted "$scratch/injob.perm")
offline=$(weighted "$scratch/offline.perm")
identity=$(weighted "$scratch/identity.perm")
echo "weighted cost: in the job $injob, offline map $offline, rank order $identity"
if [ "$injob" != "$offline" ]; then
  echo "the in-job reorder costs $injob, the offline map $offline" >&2
  exit 1
fi
if ! awk -v a="$injob" -v b="$identity" 'BEGIN { exit !(a < b) }'; then
  echo "the reorder ($injob) is not below rank order ($identity)" >&2
  exit 1
fi
echo ok
