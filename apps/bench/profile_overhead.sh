#!/usr/bin/env bash
# What libtreematch-profile.so costs: treematch-message-rate run alternately without and with the
# library preloaded (which run goes first alternates too), REPS times each; prints every run, the
# median rates and the overhead.
#
#   [RANKS=2] [BIND=core] apps/bench/profile_overhead.sh [BUILD_DIR [REPS [bench options...]]]
#   e.g. apps/bench/profile_overhead.sh build 11 --window 64 --size 8 --iterations 20000
#   RANKS=1 BIND=none ...: one rank sending to itself (no second process to wait for: the
#   steadiest figure on a machine shared with other work)
set -euo pipefail
build=${1:-build}
reps=${2:-9}
shift $(( $# < 2 ? $# : 2 ))
bench="$build/apps/bench/treematch-message-rate"
lib="$(cd "$(dirname "$build/apps/profile/libtreematch-profile.so")" && pwd)/libtreematch-profile.so"
for f in "$bench" "$lib"; do
  [ -e "$f" ] || { echo "profile_overhead.sh: $f is missing (build the project first)" >&2; exit 1; }
done
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
launch=(mpirun -n "${RANKS:-2}" --bind-to "${BIND:-core}" --allow-run-as-root --oversubscribe)

# Prints the median msgs/s of one run; with "on", under the library, which must write a profile.
run() {
  local mode=$1
  shift
  local out
  if [ "$mode" = on ]; then
    rm -f "$scratch/profile.h5"
    out=$("${launch[@]}" -x LD_PRELOAD="$lib" -x TREEMATCH_PROFILE_OUT="$scratch/profile.h5" \
      "$bench" "$@")
    [ -s "$scratch/profile.h5" ] || { echo "profile_overhead.sh: no profile written" >&2; exit 1; }
  else
    out=$("${launch[@]}" "$bench" "$@")
  fi
  echo "$out" | sed -n 's/.*median \([0-9]*\) msgs\/s.*/\1/p'
}

median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

: >"$scratch/off"
: >"$scratch/on"
for ((i = 1; i <= reps; i++)); do
  if ((i % 2 == 1)); then order=(off on); else order=(on off); fi
  for mode in "${order[@]}"; do
    rate=$(run "$mode" "$@")
    echo "$rate" >>"$scratch/$mode"
    printf 'run %2d  %-3s %12s msgs/s\n' "$i" "$mode" "$rate"
  done
done
off=$(median <"$scratch/off")
on=$(median <"$scratch/on")
# Each repetition's pair of runs, back to back, as a ratio: robust to a machine whose load drifts.
ratio=$(paste "$scratch/on" "$scratch/off" | awk '{print $1 / $2}' | median)
awk -v off="$off" -v on="$on" -v ratio="$ratio" -v reps="$reps" 'BEGIN {
  printf "median of %d runs: without %.0f msgs/s, with libtreematch-profile.so %.0f msgs/s\n", reps, off, on
  printf "overhead: %.2f%% of the message rate (%.1f ns per message); median of the paired ratios: %.2f%%\n", (off - on) / off * 100, (1e9 / on - 1e9 / off), (1 - ratio) * 100
}'
