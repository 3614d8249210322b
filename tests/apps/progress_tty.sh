#!/bin/bash
# progress_tty.sh TREEMATCH: the progress line of `treematch map` on a terminal (a pseudo-terminal
# made by script(1)): shown, redrawn in place with the step and a percentage, when the run takes
# more than a second; absent when stderr is a file, and with --quiet on a terminal. The mapping
# file is the same in the three runs.
set -euo pipefail
treematch=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
# 4096 ranks of a sparse geometric pattern on 16 x 256 cores: the default preset's walk groups
# by 256 first and takes a few seconds.
"$treematch" generate geometric --ranks 4096 --points 65536 pattern.graph -q 2> /dev/null
map="$treematch map -m pattern.graph -t 'pack:16 core:256 pu:1'"

script -qefc "$map -o tty.txt" /dev/null > tty.log
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
echo "progress line shown on a terminal only"
