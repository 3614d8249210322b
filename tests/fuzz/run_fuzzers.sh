#!/usr/bin/env bash
# Runs each libFuzzer target of a fuzz build (cmake --preset fuzz && cmake --build build-fuzz) for
# SECONDS, two at a time, on its seed corpus (tests/fuzz/corpus/<target>, read only) and a work
# corpus under the build folder, then prints per target: executions, coverage (edges), features,
# corpus size and findings (crash-, leak-, oom-, timeout- files).
#   tests/fuzz/run_fuzzers.sh [SECONDS=60] [BUILD=build-fuzz] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
build=${2:-build-fuzz}
shift $(( $# > 2 ? 2 : $# ))
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(mat_fuzzer csv_fuzzer metis_fuzzer hdf5_dense_fuzzer hdf5_csr_fuzzer monitoring_fuzzer
           tleaf_fuzzer synthetic_fuzzer hwloc_xml_fuzzer hwloc_xml_minimal_parser)
fi
root=$PWD
out="$build/tests/fuzz/runs"
mkdir -p "$out"
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:suppressions=$root/tests/fuzz/asan.supp
export LSAN_OPTIONS=print_suppressions=0:suppressions=$root/tests/fuzz/lsan.supp
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# Inputs on which HDF5 or hwloc loops are refused after 3 s, not 20 (io/contained_call.h).
export TREEMATCH_PROBE_SECONDS=3
run() {
  local target=$1 binary=$1
  # As tests/fuzz/CMakeLists.txt: HDF5 mallocs (never touches) buffers sized by damaged headers;
  # hwloc_xml_minimal_parser is hwloc_xml_fuzzer with hwloc's own XML parser instead of libxml2's.
  local malloc_limit=2048 parser=1
  case $target in hdf5_*) malloc_limit=8192 ;; esac
  if [ "$target" = hwloc_xml_minimal_parser ]; then binary=hwloc_xml_fuzzer parser=0; fi
  mkdir -p "$out/$target/found"
  (cd "$out/$target" &&
   HWLOC_LIBXML_IMPORT=$parser "$root/$build/tests/fuzz/$binary" -max_total_time="$seconds" \
     -rss_limit_mb=2048 -malloc_limit_mb="$malloc_limit" -timeout=30 \
     -print_final_stats=1 found "$root/tests/fuzz/corpus/$binary" > log.txt 2>&1 || true)
}
running=0
for target in "${targets[@]}"; do
  run "$target" &
  running=$((running + 1))
  if [ $running -ge 2 ]; then wait -n; running=$((running - 1)); fi
done
wait
printf '%-20s %12s %8s %8s %8s  %s\n' target executions cov ft corpus findings
for target in "${targets[@]}"; do
  log="$out/$target/log.txt"
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  line=$(grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$log" | tail -1 || true)
  cov=$(echo "$line" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
  ft=$(echo "$line" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
  corp=$(echo "$line" | sed -n 's/.* corp: \([0-9]*\).*/\1/p')
  findings=$(ls "$out/$target" | grep -E '^(crash|leak|oom|timeout|slow-unit)-' | tr '\n' ' ' || true)
  printf '%-20s %12s %8s %8s %8s  %s\n' "$target" "${execs:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" \
    "${findings:-none}"
done
