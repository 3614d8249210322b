#!/usr/bin/env bash
# Every in-job piece under srun, on a one-node Slurm cluster started here, with this build's MPI
# (its srun plugin: pmix for Open MPI, pmi2 for MPICH):
#   - `treematch map` distributed over 3 ranks writes the plain run's mapping;
#   - bad input under 2 ranks: one error line for the job, a non-zero exit, no output, no hang;
#   - srun without the plugin: the ranks would each start alone; refused in one line;
#   - the profiling library preloaded into comm_pattern writes a profile that maps;
#   - the phase API (profiling counters) reorders a running job, 0 wrong messages;
#   - MPI's reorder = 1 through the preloaded reorder library, 0 wrong neighbours.
#   srun_mpi.sh SOURCE_DIR PLUGIN TREEMATCH COMM_PATTERN PROFILE_LIBRARY PHASE_REORDER
#               REORDER_LIBRARY REORDER_ON_CREATE [PRELOAD_PREFIX]
set -euo pipefail
source_dir=$1 plugin=$2 treematch=$3 comm_pattern=$4 profile=$5 phase_reorder=$6
reorder_library=$7 reorder_on_create=$8 prefix=${9:-}
slurm=$source_dir/tests/launchers/slurm_one_node.sh
scratch=$(mktemp -d)
cluster=$scratch/slurm
cleanup() {
  "$slurm" stop "$cluster" > /dev/null 2>&1 || true
  rm -rf "$scratch"
}
trap cleanup EXIT
if ! "$slurm" start "$cluster" > "$scratch/start.log" 2>&1; then
  echo "skipped: no one-node Slurm cluster here: $(tail -1 "$scratch/start.log")"
  exit 0
fi
export SLURM_CONF=$cluster/slurm.conf
fail() {
  echo "srun_mpi: $*" >&2
  exit 1
}
# srun_job NAME SRUN_ARGS...: runs srun (60 s at most), its output in $scratch/NAME.{out,err}.
srun_job() {
  local name=$1
  shift
  timeout 60 srun --overcommit "$@" > "$scratch/$name.out" 2> "$scratch/$name.err"
}

matrix=$scratch/clover.h5
"$treematch" convert "$source_dir/../shared/data/pacos/examples/taskgraph/CloverLeaf128.APHiD" \
  "$matrix" 2> /dev/null
topology="tleaf 3 4 100 4 10 8 1"
"$treematch" map -m "$matrix" -t "$topology" -o "$scratch/plain.perm" 2> /dev/null
srun_job map --mpi="$plugin" -n 3 "$treematch" map -m "$matrix" -t "$topology" --verbose \
  -o "$scratch/srun.perm" || fail "map under srun: $(cat "$scratch/map.err")"
grep -q ', distributed over 3 ranks$' "$scratch/map.err" ||
  fail "map under srun did not run distributed: $(cat "$scratch/map.err")"
cmp -s "$scratch/plain.perm" "$scratch/srun.perm" ||
  fail "map under srun -n 3 differs from the plain run"
echo "map distributed over 3 ranks under srun --mpi=$plugin: the plain run's mapping"

# expect_failed_once NAME LINE WHAT: job NAME (srun_job) failed on its own (no timeout), its stderr
# holds LINE (a grep pattern) exactly once, and it left no NAME.perm.
expect_failed_once() {
  local name=$1 line=$2 what=$3 status=0
  srun_job "$name" "${@:4}" || status=$?
  [ "$status" -ne 0 ] && [ "$status" -ne 124 ] || fail "$what: exit $status"
  local count
  count=$(grep -c "$line" "$scratch/$name.err" || true)
  [ "$count" = 1 ] || fail "$what: $count lines '$line': $(cat "$scratch/$name.err")"
  [ ! -e "$scratch/$name.perm" ] || fail "$what left an output"
  echo "$what: one line, exit $status, no output"
}

printf '0 1\n1 x\n' > "$scratch/bad.mat"
expect_failed_once bad "treematch: error: $scratch/bad.mat: .*'x' is not a number" \
  "bad input under srun" --mpi="$plugin" -n 2 "$treematch" map -m "$scratch/bad.mat" \
  -t "pack:2 core:2 pu:1" -o "$scratch/bad.perm"
expect_failed_once alone 'srun started it as one of 2 ranks' "srun --mpi=none, refused" \
  --mpi=none -n 2 "$treematch" map -m "$matrix" -t "$topology" -o "$scratch/alone.perm"

srun_job profile --mpi="$plugin" -n 4 \
  --export="ALL,LD_PRELOAD=$prefix$profile,TREEMATCH_PROFILE_OUT=$scratch/pattern.h5" \
  "$comm_pattern" || fail "profiled comm_pattern under srun: $(cat "$scratch/profile.err")"
[ -e "$scratch/pattern.h5" ] || fail "the preloaded profiler wrote no profile under srun"
"$treematch" map -m "$scratch/pattern.h5:/p2p" -t "pack:2 core:2 pu:1" > "$scratch/profile.perm" \
  2> /dev/null || fail "the profile written under srun does not map"
[ "$(sort -n "$scratch/profile.perm" | tr '\n' ' ')" = "0 1 2 3 " ] ||
  fail "the profile written under srun maps to $(cat "$scratch/profile.perm")"
echo "profiling library under srun: a profile of 4 ranks that maps to a permutation"

srun_job phase --mpi="$plugin" -n 8 --export="ALL,LD_PRELOAD=$prefix$profile" \
  "$phase_reorder" "pack:2 core:4 pu:1" || fail "phase reorder under srun: $(cat "$scratch/phase.err")"
grep -qE 'reordered in [0-9.]+ s: [1-8] ranks moved, 0 wrong messages' "$scratch/phase.out" ||
  fail "phase reorder under srun: $(cat "$scratch/phase.out" "$scratch/phase.err")"
echo "phase API under srun: reordered, 0 wrong messages"

srun_job create --mpi="$plugin" -n 8 \
  --export="ALL,LD_PRELOAD=$prefix$reorder_library,TREEMATCH_REORDER_TOPOLOGY=pack:2 core:4 pu:1" \
  "$reorder_on_create" || fail "reorder = 1 under srun: $(cat "$scratch/create.err")"
grep -qE 'done in [0-9.]+ s, [0-9]+ ranks moved, 0 wrong neighbours' "$scratch/create.out" ||
  fail "reorder = 1 under srun: $(cat "$scratch/create.out" "$scratch/create.err")"
echo "reorder = 1 under srun: 0 wrong neighbours"
echo "every in-job piece works under srun --mpi=$plugin"
