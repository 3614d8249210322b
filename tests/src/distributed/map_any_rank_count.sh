#!/usr/bin/env bash
# `treematch map` on an HDF5 matrix writes the same mapping alone and under mpiexec with 1, 2 and 3
# ranks, with the default options (refinement and top-down candidates on: the matrix is small) and
# with --gather-entries below the matrix's entries (levels distributed; those stages off alike),
# and with the fast preset (its multilevel mapping; with --gather-entries, its fallback walk) and
# the strong preset; and --verbose under 3 ranks prints the options once and says the run was
# distributed; and the summary and the JSON give each rank's peak memory and bytes sent.
#   map_any_rank_count.sh TREEMATCH TM_MPIEXEC MATRIX [RANKS [distributed]]   (TM_MPIEXEC:
#   cmake/TmTesting.cmake; RANKS: the rank counts, "1 2 3" unless given; "distributed": only the
#   option sets whose levels run distributed, for the suites that run the tests a second time)
set -euo pipefail
treematch=$1 mpiexec=$2 matrix=$3 rank_counts=${4:-1 2 3} which=${5:-all}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# A failing command shows its stderr (kept aside otherwise: the summaries are not the test's).
run() {
  if ! "$@" 2>"$scratch/stderr"; then
    echo "failed: $*" >&2
    cat "$scratch/stderr" >&2
    exit 1
  fi
}
run "$treematch" convert "$matrix" "$scratch/m.h5"
topology="tleaf 3 16 100 4 10 16 1"
option_sets=("" "--gather-entries 1000" "--preset fast" "--preset fast --gather-entries 1000"
  "--preset strong")
if [ "$which" = distributed ]; then
  # The gathered runs take the plain run's code once the matrix is whole on every rank.
  option_sets=("--gather-entries 1000" "--preset fast --gather-entries 1000")
fi
for options in "${option_sets[@]}"; do
  # shellcheck disable=SC2086  # the options are words
  run "$treematch" map -m "$scratch/m.h5" -t "$topology" $options -o "$scratch/plain"
  for ranks in $rank_counts; do
    # shellcheck disable=SC2086
    run "$mpiexec" -n "$ranks" \
      "$treematch" map -m "$scratch/m.h5" -t "$topology" $options -o "$scratch/r$ranks"
    if ! cmp -s "$scratch/plain" "$scratch/r$ranks"; then
      echo "map '$options' under $ranks ranks differs from the plain run" >&2
      exit 1
    fi
  done
  echo "map '$options': plain and $rank_counts ranks identical"
done
run "$treematch" generate stencil "$scratch/thirds.h5" --grid 64x64x16 \
  --weights 1,0.5,0.3333333333333333 --seed 2 --quiet
thirds=(map -m "$scratch/thirds.h5" -t "group:512 group:16 pack:2 core:4 pu:1" --preset fast
  --gather-entries 100000)
run "$treematch" "${thirds[@]}" -o "$scratch/plain"
for ranks in $rank_counts; do
  run "$mpiexec" -n "$ranks" "$treematch" "${thirds[@]}" -o "$scratch/r$ranks"
  if ! cmp -s "$scratch/plain" "$scratch/r$ranks"; then
    echo "map of the stencil weighted in thirds under $ranks ranks differs from the plain run" >&2
    exit 1
  fi
done
echo "stencil weighted in thirds: plain and $rank_counts ranks identical"
# Under mpiexec the job prints the options once and says it ran distributed.
run "$mpiexec" -n 3 \
  "$treematch" map -m "$scratch/m.h5" -t "$topology" --verbose -o "$scratch/verbose"
printed=$(grep -c '^preset = ' "$scratch/stderr" || true)
if [ "$printed" != 1 ] || ! grep -q ', distributed over 3 ranks$' "$scratch/stderr"; then
  echo "--verbose under 3 ranks: options printed $printed times, or no 'distributed over 3 ranks'" >&2
  cat "$scratch/stderr" >&2
  exit 1
fi
echo "--verbose under 3 ranks: options once, distributed over 3 ranks"
# Each rank's peak memory, CPU time and bytes sent: one summary line, one JSON object a rank.
run "$mpiexec" -n 3 "$treematch" map -m "$scratch/m.h5" -t "$topology" --gather-entries 1000 \
  -f json -o "$scratch/usage.json"
sizes='[0-9.]+ [KMG]?i?B'
line="^  3 ranks: peak memory $sizes to $sizes a rank, CPU [0-9.]+ s in all, sent $sizes in all"
peaks=$(grep -cE '"peak_bytes": [1-9][0-9]*' "$scratch/usage.json" || true)
sent=$(grep -cE '"bytes_sent": [1-9][0-9]*' "$scratch/usage.json" || true)
if ! grep -qE "$line" "$scratch/stderr" || [ "$peaks" != 3 ] || [ "$sent" != 3 ]; then
  echo "usage under 3 ranks: no summary line, or $peaks peaks and $sent byte counts of 3" >&2
  cat "$scratch/stderr" "$scratch/usage.json" >&2
  exit 1
fi
echo "usage under 3 ranks: one summary line, each rank's peak memory and bytes sent in the JSON"
