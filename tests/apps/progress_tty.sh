#!/bin/bash
# progress_tty.sh TREEMATCH: the progress line of `treematch map` on a terminal (a pseudo-terminal
# made by script(1)): redrawn in place with the step and a percentage, at every step once
# TREEMATCH_PROGRESS_DELAY (seconds, 1 by default) has passed; nothing for a short run with the
# default delay, nothing when stderr is a file, nothing with --quiet on a terminal. The mapping
# file is the same in the three runs. --verbose prints each walk level's and each strategy's
# line as it ends, before the summary. generate and convert show the share of rows written, batch that of patterns.
set -euo pipefail
treematch=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
# 4096 ranks of a sparse geometric pattern on 16 x 256 cores: the default preset's walk groups
# by 256 first and takes a few seconds (at 4096 processes the walk over the whole tree is made
# beside the multilevel mapping only when asked).
"$treematch" generate geometric --ranks 4096 --points 65536 pattern.graph -q 2> /dev/null
map="$treematch map -m pattern.graph -t 'pack:16 core:256 pu:1' --set driver.multilevel_only_above=4096"

# Delay 0: every step is drawn, so the walk's levels show however fast the machine is.
script -qefc "TREEMATCH_PROGRESS_DELAY=0 $map -o tty.txt" /dev/null > tty.log
script -qefc "$map -o quiet.txt --quiet" /dev/null > quiet.log
eval "$map -o plain.txt" 2> plain.err > /dev/null

fail() { echo "FAIL: $1"; exit 1; }
grep -aq $'\r\033\\[K''treematch map: mapping: [a-z -]*.*%  [0-9]* s' tty.log ||
  fail "no progress line on the terminal: $(tr '\r' '\n' < tty.log | head -5)"
grep -aq 'level [0-9]* of [0-9]*' tty.log || fail "no level in the progress line"
grep -aq $'\r' plain.err && fail "carriage returns in stderr redirected to a file"
grep -aq 'treematch map: mapping' plain.err && fail "a progress line in a file"
grep -aq 'treematch map: mapping' quiet.log && fail "a progress line under --quiet"
cmp -s tty.txt plain.txt && cmp -s quiet.txt plain.txt || fail "mappings differ"
# The summary comes after a cleared line, as on a terminal where nothing was drawn.
grep -aq 'treematch: 4096 processes' tty.log || fail "no summary on the terminal"
# A run of a few milliseconds with the default delay draws nothing.
"$treematch" generate geometric --ranks 64 --points 4096 small.graph -q 2> /dev/null
script -qefc "$treematch map -m small.graph -t 'pack:8 core:8 pu:1' -o small.txt" /dev/null > short.log
grep -aq 'treematch map: ' short.log && fail "a progress line for a short run"
grep -aq 'treematch: 64 processes' short.log || fail "no summary for the short run"
# --verbose: each strategy's line when it ends, so before the summary's first line.
eval "$map -o verbose.txt --verbose" 2> verbose.err > /dev/null
first_strategy=$(grep -n '^  strategy bottom-up' verbose.err | cut -d: -f1)
summary_line=$(grep -n '^treematch: 4096 processes' verbose.err | cut -d: -f1)
[ -n "$first_strategy" ] && [ -n "$summary_line" ] && [ "$first_strategy" -lt "$summary_line" ] ||
  fail "strategy lines not printed as they end: $(grep -n 'strategy\|processes' verbose.err)"
[ "$(grep -c '^  strategy ' verbose.err)" -ge 2 ] || fail "fewer than two strategy lines"
# ... and each walk level's line when that level ends, before its strategy's line.
first_level=$(grep -n '^  bottom-up, level 1 of [0-9]* ended: level arity' verbose.err | head -1 | cut -d: -f1)
[ -n "$first_level" ] && [ "$first_level" -lt "$first_strategy" ] ||
  fail "walk levels not printed as they end: $(grep -n 'ended\|strategy' verbose.err | head -3)"
# generate and convert: the share of rows written (2048 rows: about a second here).
script -qefc "TREEMATCH_PROGRESS_DELAY=0 $treematch generate hierarchical -t 'pack:8 core:256 pu:1' h.h5" /dev/null > gen.log
grep -aq 'treematch generate: generating hierarchical into h.h5: writing, row [0-9]* of 2048 *[0-9]*%' gen.log ||
  fail "no row fraction for generate: $(tr '\r' '\n' < gen.log | tail -3)"
script -qefc "TREEMATCH_PROGRESS_DELAY=0 $treematch convert h.h5 h.mat" /dev/null > convert.log
grep -aq 'treematch convert: h.h5 -> h.mat: rows, row [0-9]* of 2048 *[0-9]*%' convert.log ||
  fail "no row fraction for convert: $(tr '\r' '\n' < convert.log | tail -3)"
# batch: the share of patterns done below the per-pattern lines; none in a file.
mkdir patterns
cp small.graph patterns/a.graph
cp small.graph patterns/b.graph
batch="$treematch batch patterns -t 'pack:8 core:8 pu:1'"
script -qefc "TREEMATCH_PROGRESS_DELAY=0 $batch --out tty-out" /dev/null > batch.log
grep -aq 'treematch batch: mapping patterns: [12] of 2 done *[0-9]*%' batch.log ||
  fail "no share of patterns for batch: $(tr '\r' '\n' < batch.log | tail -3)"
grep -aq '\[2/2\] [ab].graph: ok' batch.log || fail "no per-pattern line on the terminal"
eval "TREEMATCH_PROGRESS_DELAY=0 $batch --out file-out" 2> batch.err
grep -aq $'\r' batch.err && fail "carriage returns in batch's stderr redirected to a file"
grep -aq '\[2/2\] [ab].graph: ok' batch.err || fail "no per-pattern line in the file"
echo "progress line shown on a terminal only"
