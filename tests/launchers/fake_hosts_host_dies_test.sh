#!/bin/bash
# A host that dies while `treematch map --topology allocation` gathers the job's nodes: the other
# hosts' ranks wait in MPI for charlie's, whose processes are killed (SIGKILL) meanwhile. The job
# ends on its own, long before charlie's rank would have come, with a non-zero exit and no output;
# the test prints what the launcher said.
#   fake_hosts_host_dies_test.sh TREEMATCH FLAVOUR SHIM LAUNCHER
# FLAVOUR (openmpi | mpich) is treematch's MPI and LAUNCHER its mpirun or mpiexec.hydra.
set -euo pipefail
# shellcheck source=fake_hosts.sh
source "$(dirname "$0")/fake_hosts.sh"
fake_hosts_start "$0" "$@"

fake_uneven_hosts
"$treematch" generate hierarchical -t 'pack:4 core:5 pu:1' --ranks 19 -q m.mat 2>/dev/null
# charlie's rank starts late (the others are in MPI by then, waiting for it), so the kill falls
# while the job is being gathered.
cat >late_on_charlie.sh <<'EOF'
#!/bin/bash
if [ "$FAKE_HOST" = charlie ]; then sleep 120; fi
exec "$@"
EOF
chmod +x late_on_charlie.sh
start=$SECONDS
fake_launch "$flavour" alpha:1,bravo:1,charlie:1,delta:1 -n 4 ./late_on_charlie.sh "$treematch" \
  map -m m.mat --topology allocation --threads 1 -q -o job.perm >job.out 2>job.err &
job=$!
sleep 3
[ -n "$(fake_host_pids charlie)" ] || fake_fail "no process on charlie to kill"
fake_kill_host charlie
status=0
wait "$job" || status=$?
took=$((SECONDS - start))
[ "$status" -ne 0 ] || fake_fail "the job whose host died exited 0"
[ "$status" -ne 124 ] || fake_fail "the job whose host died hung until the launch timeout"
[ "$took" -lt 60 ] || fake_fail "the job whose host died took $took s to end"
[ ! -e job.perm ] || fake_fail "the job whose host died wrote its output"
said=$(grep -cv '^ *$' job.err || true)
echo "ok: $flavour job whose host died while gathering ended in $took s, exit $status, no output;" \
  "the launcher said $said lines, the first: $(grep -v '^ *$' job.err | head -n 1)"
