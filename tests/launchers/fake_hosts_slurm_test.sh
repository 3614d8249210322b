#!/bin/bash
# A Slurm cluster of three uneven fake hosts (one slurmctld, one slurmd per host in the host's UTS
# namespace, on its own port, `slurmd -C` reporting the host's XML), a mapping gathered over them
# with srun (--mpi=pmix under Open MPI, pmi2 under MPICH), and its `--format slurm` output launched
# as its header says: every rank runs on the host the mapping chose, bound to the PUs it chose
# (hwloc-calc on the host's XML, from the rankfile of the same mapping). Each node's `--cpu-bind`
# comment, given to an srun on that node alone, binds its ranks there as listed (Slurm's
# task/affinity through the shim). The cluster is torn down whatever happens.
#   fake_hosts_slurm_test.sh TREEMATCH FLAVOUR SHIM LAUNCHER
# (LAUNCHER is not used: srun launches everything.)
set -euo pipefail
# shellcheck source=fake_hosts.sh
source "$(dirname "$0")/fake_hosts.sh"
fake_hosts_start "$0" "$@"
for tool in slurmctld slurmd srun sinfo scancel; do
  command -v $tool >/dev/null ||
    { echo "skipped: needs $tool (Debian: slurmctld slurmd slurm-client)"; exit 0; }
done
print=$FAKE_HOSTS_HERE/print_host_binding.sh
# print_host_binding.sh's rank, under srun without PMI.
# shellcheck disable=SC2016  # expanded by the task's shell
printer=(sh -c 'PMI_RANK=$SLURM_PROCID exec "$0"' "$print")

# 8 cores of 2 threads; 6 cores; 2 x 4 cores with cores 1, 2, 5 and 6 left (Slurm wants as many
# cores in each socket: 1, 2 and 5 is "Core count (3) not multiple of socket count (2)").
fake_host node1 'pack:2 core:4 pu:2'
fake_host node2 'pack:1 core:6 pu:1'
fake_host node3 'pack:2 core:4 pu:1' 0x66
fake_slurm_start node1 node2 node3
for line in 'node1 CPUs=16 .*SocketsPerBoard=2 CoresPerSocket=4 ThreadsPerCore=2' \
  'node2 CPUs=6 .*SocketsPerBoard=1 CoresPerSocket=6 ThreadsPerCore=1' \
  'node3 CPUs=4 .*SocketsPerBoard=2 CoresPerSocket=2 ThreadsPerCore=1'; do
  grep -q "^NodeName=$line" "$SLURM_CONF" || fake_fail "slurmd -C did not report the fake" \
    "hardware ($line): $(grep ^NodeName "$SLURM_CONF" | tr '\n' ' ')"
done

ranks=18
"$treematch" generate hierarchical -t 'pack:3 core:6 pu:1' --ranks $ranks -q m.mat 2>/dev/null
case $flavour in
  openmpi) mpi=pmix
    export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_pml=ob1 \
      OMPI_MCA_oob_tcp_if_include=lo ;;
  *) mpi=pmi2
    export UCX_NET_DEVICES=lo ;;
esac
for format in slurm json rankfile; do
  fake_srun --mpi=$mpi -N3 -n3 --cpu-bind=none "$treematch" map -m m.mat --topology allocation \
    --threads 1 -q --format $format -o job.$format >gather.err 2>&1 || {
    cat gather.err >&2
    fake_fail "gathering the $format output with srun --mpi=$mpi over the fake Slurm nodes"
  }
done
for format in slurm json rankfile; do
  [ -s job.$format ] || fake_fail "srun --mpi=$mpi gathered no job.$format: $(tail -n 2 gather.err)"
done

# The truth: each rankfile line's host and core, resolved by hwloc on that host.
fake_rankfile_bindings job.rankfile >expected
[ "$(wc -l <expected)" = $ranks ] ||
  fake_fail "job.rankfile has $(wc -l <expected) ranks, not $ranks"
[ "$(cut -d' ' -f4 expected | sort -u | tr '\n' ' ')" = "node1 node2 node3 " ] ||
  fake_fail "the mapping leaves a node out: $(cut -d' ' -f4 expected | sort -u | tr '\n' ' ')"
[ "$(grep -v '^#' job.slurm)" = "$(cut -d' ' -f4 expected)" ] ||
  fake_fail "job.slurm's hosts are not job.rankfile's"

# The launch job.slurm's header gives (the nodes bind differently: srun --cpu-bind=none under
# treematch bind; alike: one srun --cpu-bind list), this test's printer as ./app.
launch=$(sed -n 's/^# \(SLURM_HOSTFILE=.* srun .*\)$/\1/p' job.slurm)
[[ $launch == "SLURM_HOSTFILE=job.slurm srun -n $ranks --distribution=arbitrary "*" ./app" ]] ||
  fake_fail "job.slurm's header gives no srun launch of its $ranks ranks: '$launch'"
read -ra words <<<"${launch% ./app}"
launched=()
for word in "${words[@]:2}"; do
  case $word in
    treematch) launched+=("$treematch") ;;
    MAPPING.json) launched+=(job.json) ;;
    *) launched+=("$word") ;;
  esac
done
SLURM_HOSTFILE=job.slurm fake_srun "${launched[@]}" "${printer[@]}" >launch.out 2>&1 ||
  fake_fail "the header's launch ($launch) failed: $(tail -n 3 launch.out)"
fake_expect_bindings "$launch" expected launch.out

# Each node's comment: an srun of that node's ranks alone, holding the whole node, binds its k-th
# local rank as the mapping's k-th rank on that node. Not on node3: Slurm 22.05 refuses its list
# (map_cpu:1,5,2,6 for a whole-node step: "CPU binding outside of job step allocation, allocated
# CPUs are: 0xE"): it does not number a node whose PUs are 1, 2, 5, 6 by OS index. treematch bind,
# above, binds it right.
nodes=0 checked=""
while read -r host bind; do
  nodes=$((nodes + 1))
  [ "$host" != node3 ] || continue
  awk -v h="$host" '$4 == h {print "rank " n++ " host " h " cpus " $6}' expected \
    >"expected.$host"
  fake_srun -w "$host" -N1 -n "$(wc -l <"expected.$host")" --exclusive "$bind" "${printer[@]}" \
    </dev/null >"node.$host.out" 2>&1 ||
    fake_fail "srun -w $host $bind failed: $(tail -n 3 "node.$host.out")"
  fake_expect_bindings "srun -w $host $bind" "expected.$host" "node.$host.out"
  checked+=" $host"
done < <(sed -n 's/^# \([^ ]*\): \(--cpu-bind=.*\)$/\1 \2/p' job.slurm)
[ $nodes = 3 ] || fake_fail "job.slurm gives the --cpu-bind of $nodes nodes, not 3"
# Torn down: no daemon, step or task of the cluster left (the EXIT trap does the same on failure).
fake_slurm_stop
left=$(for process in /proc/[0-9]*; do
  case $(cat "$process/comm" 2>/dev/null) in
    slurmctld | slurmd | slurmstepd) echo "${process#/proc/}" ;;
  esac
done; for host in node1 node2 node3; do fake_host_pids $host; done)
[ -z "$left" ] || fake_fail "the cluster left processes behind: ${left//$'\n'/ }"
echo "ok: $ranks ranks gathered by srun --mpi=$mpi ($flavour) over 3 fake Slurm nodes, bound as" \
  "mapped by the header's srun launch, and by the --cpu-bind comment under srun on$checked"
