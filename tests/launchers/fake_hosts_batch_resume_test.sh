#!/bin/bash
# `treematch batch --topology allocation` over four fake hosts, one host's processes killed
# (SIGKILL) once some patterns are done, then `--resume` on the same hosts: every pattern ends up
# mapped, its rankfile identical to an uninterrupted batch's, and the patterns done before the kill
# are skipped, not redone. One pattern is a named pipe until the kill (its reader blocks), so the
# batch cannot finish before it.
#   fake_hosts_batch_resume_test.sh TREEMATCH FLAVOUR SHIM LAUNCHER
# FLAVOUR (openmpi | mpich) is treematch's MPI and LAUNCHER its mpirun or mpiexec.hydra.
set -euo pipefail
# shellcheck source=fake_hosts.sh
source "$(dirname "$0")/fake_hosts.sh"
fake_hosts_start "$0" "$@"

fake_uneven_hosts
hosts=alpha:1,bravo:1,charlie:1,delta:1
victim=charlie  # rank 2's host, not rank 0's (rank 0 writes the journal and the outputs)

# Sparse patterns of 1024 down to 544 processes (about half a second each here; 19 cores x 54
# processes per core hold the largest), and the one that stands for the pipe.
mkdir in
for ((i = 0; i < 8; ++i)); do
  "$treematch" generate geometric --ranks $((1024 - 64 * i)) --points 32768 --seed $((i + 1)) -q \
    "in/p$i.h5" 2>/dev/null
done
"$treematch" generate geometric --ranks 512 --points 32768 --seed 9 -q blocked.mat 2>/dev/null
patterns=9

# batch OUT [OPTIONS...]: the batch of the patterns on the fake hosts (named one by one: a directory
# would leave the pipe out), into OUT; its stderr in OUT.err.
batch() {
  local out=$1
  shift
  fake_launch "$flavour" $hosts -n 4 "$treematch" batch --topology allocation --oversubscribe 54 \
    --threads 1 --format rankfile --out "$out" "$@" in/p*.h5 in/blocked.mat 2>"$out.err"
}

cp blocked.mat in/blocked.mat
batch reference || fake_fail "the uninterrupted batch failed: $(tail -n 3 reference.err)"

# done: the patterns the journal of the interrupted batch records as mapped.
done_patterns() {
  if [ -f interrupted/progress.jsonl ]; then
    grep -c '"status":"ok"' interrupted/progress.jsonl || true
  else
    echo 0
  fi
}
rm in/blocked.mat
mkfifo in/blocked.mat
# Its failure is expected: not the ERR trap's business.
(
  trap - ERR
  batch interrupted
) &
launcher=$!
# Two patterns take about a second here; the limit is for a machine busy with other tests.
for ((tick = 0; tick < 1200; ++tick)); do
  [ "$(done_patterns)" -ge 2 ] && break
  sleep 0.1
done
[ "$(done_patterns)" -ge 2 ] || fake_fail "the batch recorded $(done_patterns) patterns in 120 s"
fake_kill_host $victim
if wait $launcher; then fake_fail "the batch succeeded with $victim killed"; fi
[ ! -e interrupted/summary.json ] || fake_fail "the killed batch wrote its summary"
done_at_kill=$(done_patterns)

rm in/blocked.mat
cp blocked.mat in/blocked.mat
batch interrupted --resume || fake_fail "the resumed batch failed: $(tail -n 3 interrupted.err)"
skipped=$(grep -c 'skipped (done)' interrupted.err || true)
[ "$skipped" = "$done_at_kill" ] ||
  fake_fail "--resume skipped $skipped patterns, the journal held $done_at_kill at the kill"
[ ! -e interrupted/progress.jsonl ] || fake_fail "the resumed batch left its journal"
ok=$(grep -c '"status": "ok"' interrupted/summary.json || true)
[ "$ok" = $patterns ] || fake_fail "the resumed batch's summary has $ok patterns ok, not $patterns"
(cd reference && ls ./*.rankfile) >reference.list
(cd interrupted && ls ./*.rankfile) >interrupted.list
cmp -s reference.list interrupted.list ||
  fake_fail "the resumed batch's rankfiles are not the uninterrupted batch's:" \
    "$(diff reference.list interrupted.list | tr '\n' ' ')"
while read -r file; do
  cmp -s "reference/$file" "interrupted/$file" ||
    fake_fail "$file differs from the uninterrupted batch's"
done <reference.list
echo "ok: $flavour batch over 4 fake hosts, $victim killed with $done_at_kill of $patterns" \
  "patterns done, resumed: $skipped skipped, every rankfile as without the kill"
