#!/usr/bin/env bash
# The quality regression guard: the three presets on the corpus' quick subset must cost no more
# than apps/bench/corpus_baseline.txt allows (fast +0.5%, default and strong +0.01%), and map the
# same at --threads 1 as at --threads 2. Usage: corpus_guard.sh BENCH BASELINE DATA_DIR
set -euo pipefail
bench=$1
baseline=$2
data=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
common=(--cases corpus-quick --preset fast,default,strong --presets-only --data "$data")
echo "== presets at --threads 2 against $baseline"
"$bench" "${common[@]}" --threads 2 --baseline "$baseline" --write-baseline "$work/threads2.txt" \
  2> "$work/log2" | grep -E "^REGRESSION|^regression guard" || { tail -20 "$work/log2"; exit 1; }
echo "== presets at --threads 1, mappings against those at --threads 2"
"$bench" "${common[@]}" --threads 1 --baseline "$work/threads2.txt" --same-mappings \
  2> "$work/log1" | grep -E "^REGRESSION|^regression guard" || { tail -20 "$work/log1"; exit 1; }
