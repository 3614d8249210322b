# shellcheck shell=bash
# fake_hosts.sh - sourced by this folder's fake-host tests: several hosts on this one machine, each
# a UTS namespace with its own host name, hardware (an hwloc XML: hwloc, Open MPI, Hydra and
# treematch read it through HWLOC_XMLFILE) and CPU bindings (fake_affinity.c, preloaded), which Open
# MPI's mpirun and MPICH's mpiexec.hydra reach through fake_host_agent.sh as they would through ssh.
# Host names need not resolve: the launchers hand them to the agent only. Every connection stays on
# the loopback (the launchers are told to use lo); the hosts share this machine's memory and CPUs.
# See README.md.
#
#   fake_hosts_start "$0" "$@"        first: re-runs the test in its own PID and mount namespaces
#                                      (the kernel ends every process it leaves when it exits),
#                                      reads the test's arguments (TREEMATCH FLAVOUR SHIM, then the
#                                      build's launcher, or MPIRUN HYDRA) into $treematch, $flavour
#                                      and the launchers, and enters the scratch directory
#                                      FAKE_SCRATCH
#   fake_host NAME SYNTHETIC [CPUSET [restrict | cgroup]]
#                                      a host: lstopo's synthetic description; a partial node with
#                                      CPUSET: the other PUs removed (restrict: lstopo --restrict)
#                                      or there but not allowed (cgroup: as in a job's cgroup)
#   fake_uneven_hosts                 the four hosts most tests use (alpha: 2 x 4 cores of 2
#                                      threads; bravo: 6 cores; charlie: cores 1, 2, 5 of 2 x 4
#                                      allowed, as a cgroup; delta: cores 1 and 3 of 4, 2 threads
#                                      each, the others removed): 19 cores, 29 PUs
#   fake_core_pus NAME TYPE:INDEX     OS indexes of the PUs of an object (core:2, pu:5; logical
#                                      index) of host NAME: "4,5"
#   fake_mpirun ARGS...               Open MPI's mpirun (FAKE_MPIRUN) across the fake hosts
#   fake_hydra ARGS...                MPICH's mpiexec.hydra (FAKE_HYDRA) across the fake hosts
#   fake_launch FLAVOUR HOSTS ARGS... the launcher of FLAVOUR (openmpi | mpich) with its host list
#                                      flag: HOSTS as "a:2,b:1"
#   fake_host_pids NAME               the processes now running on host NAME
#   fake_kill_host NAME               SIGKILL them
#   fake_rankfile_bindings RANKFILE   where a logical-numbered rankfile (cores) puts each rank, in
#                                      print_host_binding.sh's words: "rank R host H cpus C", C the
#                                      PUs of the slot's core as hwloc describes host H
#   fake_expect_bindings LABEL EXPECTED OUTPUT
#                                      every "rank R host H cpus C" line of EXPECTED, and no other,
#                                      is in OUTPUT (print_host_binding.sh's lines)
#   fake_fail MESSAGE                 one line on stderr, exit 1
# Each launch is limited to FAKE_HOSTS_TIMEOUT seconds (60); FAKE_KEEP=1 keeps the scratch
# directory.

FAKE_HOSTS_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=slurm_conf.sh
. "$FAKE_HOSTS_HERE/slurm_conf.sh"

fake_fail() {
  echo "fail: $*" >&2
  exit 1
}

fake_hosts_start() {
  local script=$1
  shift
  if [ "$$" != 1 ]; then
    # Namespaces need root (CAP_SYS_ADMIN): without them the test cannot run, and says so.
    if ! unshare --uts --pid --fork --mount --mount-proc true 2>/dev/null; then
      echo "skipped: cannot create namespaces here (unshare needs root)"
      exit 0
    fi
    # --kill-child: a test killed from outside (ctest's timeout) takes its namespace with it.
    exec unshare --pid --fork --kill-child --mount --propagation private \
      --mount-proc bash "$script" "$@"
  fi
  # A job this test runs inside of (Slurm, an outer mpirun) must not become the fake hosts' job.
  unset "${!SLURM_@}" "${!PMI_@}" "${!PMIX_@}" OMPI_COMM_WORLD_RANK OMPI_COMM_WORLD_SIZE
  FAKE_SCRATCH=$(mktemp -d)
  export FAKE_HOSTS_DIR=$FAKE_SCRATCH/hosts FAKE_AFFINITY_DIR=$FAKE_SCRATCH/bindings
  # The test's arguments: TREEMATCH FLAVOUR SHIM, then the build's launcher alone (Open MPI's
  # mpirun or mpiexec.hydra, by FLAVOUR), or MPIRUN HYDRA.
  treematch=$1 flavour=$2
  export FAKE_AFFINITY_SHIM=$3
  if [ $# -ge 5 ]; then
    export FAKE_MPIRUN=$4 FAKE_HYDRA=$5
  elif [ "$flavour" = openmpi ]; then
    export FAKE_MPIRUN=$4
  else
    export FAKE_HYDRA=$4
  fi
  mkdir "$FAKE_HOSTS_DIR" "$FAKE_AFFINITY_DIR"
  trap fake_hosts_stop EXIT
  # Any other command that fails ends the test (set -e) with this line.
  set -E
  trap 'echo "fail: $0 line $LINENO: $BASH_COMMAND (exit $?)" >&2' ERR
  cd "$FAKE_SCRATCH"
}

fake_hosts_stop() {
  local file name
  for file in "$FAKE_HOSTS_DIR"/*.xml; do
    [ -e "$file" ] || continue
    name=$(basename "$file" .xml)
    fake_kill_host "$name"
  done
  if [ -n "${FAKE_KEEP:-}" ]; then
    echo "kept $FAKE_SCRATCH" >&2
  else
    rm -rf "$FAKE_SCRATCH"
  fi
}

fake_uneven_hosts() {
  fake_host alpha 'pack:2 core:4 pu:2'
  fake_host bravo 'pack:1 core:6 pu:1'
  fake_host charlie 'pack:2 core:4 pu:1' 0x26 cgroup
  fake_host delta 'pack:1 core:4 pu:2' 0xcc
}

fake_host() {
  local name=$1 synthetic=$2 cpuset=${3:-} kind=${4:-restrict}
  local xml=$FAKE_HOSTS_DIR/$name.xml allowed
  # lstopo notes on stderr that it inserts a NUMA level into synthetic topologies.
  case $kind in
    restrict)
      lstopo-no-graphics -i "$synthetic" ${cpuset:+--restrict "$cpuset"} "$xml" 2>/dev/null ||
        fake_fail "lstopo could not make host $name from '$synthetic' $cpuset" ;;
    cgroup)
      # The whole machine with only CPUSET allowed: what hwloc finds in a job's cgroup.
      lstopo-no-graphics -i "$synthetic" --of xml "$xml.whole" 2>/dev/null ||
        fake_fail "lstopo could not make host $name from '$synthetic'"
      allowed=$(hwloc-calc --if xml --input "$xml.whole" "$cpuset")
      sed "s/allowed_cpuset=\"[^\"]*\"/allowed_cpuset=\"$allowed\"/" "$xml.whole" >"$xml" ;;
    *) fake_fail "fake_host $name: '$kind' is neither restrict nor cgroup" ;;
  esac
  hwloc-calc --if xml --input "$xml" --physical-output --intersect pu all \
    >"$FAKE_HOSTS_DIR/$name.cpus"
}

fake_core_pus() {
  hwloc-calc --if xml --input "$FAKE_HOSTS_DIR/$1.xml" --physical-output --intersect pu "$2"
}

# Open MPI: the agent for rsh, every daemon started from mpirun (no tree spawn through the agent's
# own children), out-of-band and TCP traffic on lo, shared memory within a host.
fake_mpirun() {
  timeout -k 5 "${FAKE_HOSTS_TIMEOUT:-60}" "${FAKE_MPIRUN:?}" --allow-run-as-root --oversubscribe \
    --mca plm rsh --mca plm_rsh_agent "$FAKE_HOSTS_HERE/fake_host_agent.sh" \
    --mca plm_rsh_no_tree_spawn 1 --mca oob_tcp_if_include lo \
    --mca pml ob1 --mca btl self,vader,tcp --mca btl_tcp_if_include lo \
    --mca orte_base_help_aggregate 0 "$@"
}

# Hydra: the agent as ssh, its proxies call back to lo's address; UCX (MPICH's netmod) may use
# no network device but lo (between hosts it finds shared memory: they are one machine).
fake_hydra() {
  UCX_NET_DEVICES=lo timeout -k 5 "${FAKE_HOSTS_TIMEOUT:-60}" "${FAKE_HYDRA:?}" -launcher ssh \
    -launcher-exec "$FAKE_HOSTS_HERE/fake_host_agent.sh" -iface lo "$@"
}

fake_launch() {
  local flavour=$1 hosts=$2
  shift 2
  case $flavour in
    openmpi) fake_mpirun --host "$hosts" "$@" ;;
    mpich) fake_hydra -hosts "$hosts" "$@" ;;
    *) fake_fail "unknown MPI flavour $flavour" ;;
  esac
}

fake_host_pids() {
  local name=$1 process environment
  # Inside the test's PID namespace /proc lists the test's processes only; a host's are in a UTS
  # namespace of their own and carry the agent's FAKE_HOST=NAME (bash builtins alone: this runs
  # between a job's events).
  for process in /proc/[0-9]*; do
    [[ $process/ns/uts -ef /proc/1/ns/uts ]] && continue
    mapfile -t -d '' environment 2>/dev/null <"$process/environ" || continue
    [[ " ${environment[*]} " == *" FAKE_HOST=$name "* ]] && echo "${process#/proc/}"
  done
  return 0
}

fake_kill_host() {
  local pids
  pids=$(fake_host_pids "$1")
  # shellcheck disable=SC2086  # one word per pid
  [ -z "$pids" ] || kill -KILL $pids 2>/dev/null || true
}

fake_rankfile_bindings() {
  local rank host slot
  while read -r rank host slot; do
    echo "rank $rank host $host cpus $(fake_core_pus "$host" "core:$slot")"
  done < <(sed -n 's/^rank \([0-9]*\)=\([^ ]*\) slot=\([0-9]*\)$/\1 \2 \3/p' "$1")
}

fake_expect_bindings() {
  local label=$1 expected=$2 output=$3
  if ! diff <(sort "$expected") <(grep '^rank ' "$output" | sort) >"$FAKE_SCRATCH/diff"; then
    echo "$label: ranks not where the mapping put them (< expected, > printed):" >&2
    cat "$FAKE_SCRATCH/diff" >&2
    fake_fail "$label: $(grep -c '^>' "$FAKE_SCRATCH/diff") ranks misplaced or unbound"
  fi
}

# A Slurm cluster of fake hosts (fake_hosts_slurm_test.sh): one slurmctld (this namespace, on
# 127.0.0.1) and one slurmd per host, started through fake_host_agent.sh (the host's name, hardware
# and shim: `slurmd -C` reads the host's XML, task/affinity binds through the shim), each on its own
# Port=. Tasks inherit srun's environment, not slurmd's: a TaskProlog gives them their host's (what
# the agent exports). Config, state, logs: FAKE_SCRATCH/slurm; auth none, no munge, no cgroups.
#   fake_slurm_start HOST...          write slurm.conf (nodes from `slurmd -C` on each host), start
#                                      the daemons, wait (FAKE_SLURM_TIMEOUT, 30 s) until every node
#                                      is idle; the EXIT trap then stops them before fake_hosts_stop
#   fake_srun ARGS...                 srun on that cluster, limited to FAKE_HOSTS_TIMEOUT seconds
#   fake_slurm_stop                   cancel the jobs, kill the daemons and their steps, wait
fake_slurm_port_free() {
  local hex
  hex=$(printf ':%04X ' "$1")
  ! awk -v h="$hex" 'index($2 " ", h) && $4 == "0A" {f=1} END {exit !f}' \
    /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

fake_slurm_start() {
  local dir=$FAKE_SCRATCH/slurm host port nodeline deadline states n=$# slurmd_pids=() i
  mkdir -p "$dir/state" "$dir/spool" "$dir/tmp"
  export SLURM_CONF=$dir/slurm.conf
  FAKE_SLURM_HOSTS="$*"
  # n + 1 free ports from 6900 on: slurmctld's, then one per slurmd.
  port=6900
  while :; do
    local ok=1
    for ((i = 0; i <= n; ++i)); do fake_slurm_port_free $((port + i)) || { ok=0; break; }; done
    [ $ok = 1 ] && break
    port=$((port + n + 1))
    [ $port -lt 7400 ] || fake_fail "no $((n + 1)) free ports in 6900..7400 for Slurm"
  done
  FAKE_SLURM_PORT=$port
  # Each task gets its host's environment, as the agent exports it (the host is the UTS name).
  cat >"$dir/task_prolog.sh" <<PROLOG
#!/bin/sh
host=\$(hostname)
echo "export FAKE_HOST=\$host"
echo "export HWLOC_XMLFILE=$FAKE_HOSTS_DIR/\$host.xml"
echo "export HWLOC_THISSYSTEM=1"
echo "export FAKE_AFFINITY_DIR=$FAKE_AFFINITY_DIR"
echo "export FAKE_AFFINITY_CPUS=\$(cat "$FAKE_HOSTS_DIR/\$host.cpus")"
echo "export LD_PRELOAD=$FAKE_AFFINITY_SHIM"
PROLOG
  chmod +x "$dir/task_prolog.sh"
  cat >"$SLURM_CONF" <<CONF
ClusterName=fakehosts
SlurmctldHost=$(hostname)(127.0.0.1)
SlurmctldPort=$port
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.%n.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.%n.log
TaskProlog=$dir/task_prolog.sh
$(slurm_conf_common "$dir")
CONF
  for host in "$@"; do
    # What slurmd finds on the host (its XML), less the memory (this machine's, and it varies).
    nodeline=$("$FAKE_HOSTS_HERE/fake_host_agent.sh" "$host" slurmd -C 2>"$dir/$host.C.err" |
      head -n 1)
    [[ $nodeline == "NodeName=$host "* ]] ||
      fake_fail "slurmd -C on fake host $host: '$nodeline' $(head -n 1 "$dir/$host.C.err")"
    port=$((port + 1))
    echo "${nodeline% RealMemory=*} NodeAddr=127.0.0.1 Port=$port State=UNKNOWN" >>"$SLURM_CONF"
  done
  echo "PartitionName=fake Nodes=ALL Default=YES MaxTime=INFINITE State=UP" >>"$SLURM_CONF"
  trap 'fake_slurm_stop; fake_hosts_stop' EXIT
  setsid slurmctld -D -i -f "$SLURM_CONF" >"$dir/slurmctld.out" 2>&1 </dev/null &
  FAKE_SLURMCTLD_PID=$!
  disown
  for host in "$@"; do
    # A node-local TmpFS: the PMIx plugin's directory there is named after the step only, and
    # three slurmstepds of a step would make it (and remove it) in one place.
    mkdir -p "$dir/tmp.$host"
    # shellcheck disable=SC2016  # expanded by the inner shell
    setsid unshare --mount --propagation private sh -c \
      'mount --bind "$1" "$2" && shift 2 && exec "$@"' fake_tmp "$dir/tmp.$host" "$dir/tmp" \
      "$FAKE_HOSTS_HERE/fake_host_agent.sh" "$host" slurmd -D -f "$SLURM_CONF" \
      >"$dir/slurmd.$host.out" 2>&1 </dev/null &
    slurmd_pids+=($!)
    disown
  done
  deadline=$((SECONDS + ${FAKE_SLURM_TIMEOUT:-30}))
  while :; do
    fake_slurm_alive "$FAKE_SLURMCTLD_PID" ||
      fake_fail "slurmctld exited: $(tail -n 1 "$dir/slurmctld.log" 2>/dev/null || true)"
    for ((i = 0; i < n; ++i)); do
      host=${*:i + 1:1}
      fake_slurm_alive "${slurmd_pids[i]}" || fake_fail "slurmd of $host exited:" \
        "$(tail -n 1 "$dir/slurmd.$host.log" "$dir/slurmd.$host.out" 2>/dev/null || true)"
    done
    states=""
    fake_slurm_port_free "$FAKE_SLURM_PORT" ||
      states=$(timeout 5 sinfo -h -N -o '%N %T' 2>/dev/null | sort | tr '\n' ' ') || true
    [ "$states" = "$(printf '%s idle ' "$@")" ] && break
    [[ $states == *drain* || $states == *inval* ]] &&
      fake_fail "Slurm nodes not usable: $states$(timeout 5 scontrol show node 2>/dev/null |
        sed -n 's/^ *Reason=/ reason: /p' | head -n 1)"
    [ $SECONDS -lt $deadline ] ||
      fake_fail "Slurm nodes not idle after ${FAKE_SLURM_TIMEOUT:-30} s: '$states'"
    sleep 0.2
  done
}

fake_srun() {
  timeout -k 5 "${FAKE_HOSTS_TIMEOUT:-60}" srun "$@"
}

fake_slurm_alive() {
  local state
  state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) || return 1
  [[ -n $state && $state != Z* && $state != X* ]]
}

fake_slurm_stop() {
  local host pids i
  [ -n "${FAKE_SLURMCTLD_PID:-}" ] || return 0
  if fake_slurm_alive "$FAKE_SLURMCTLD_PID"; then
    timeout 5 scancel --quiet --user=root >/dev/null 2>&1 || true
  fi
  # slurmd, its slurmstepds and their tasks carry their host's FAKE_HOST.
  for host in ${FAKE_SLURM_HOSTS:-}; do fake_kill_host "$host"; done
  kill -TERM "$FAKE_SLURMCTLD_PID" 2>/dev/null || true
  for ((i = 0; i < 50; ++i)); do
    pids=$(for host in ${FAKE_SLURM_HOSTS:-}; do fake_host_pids "$host"; done)
    [ -n "$pids" ] || fake_slurm_alive "$FAKE_SLURMCTLD_PID" || break
    sleep 0.1
  done
  kill -KILL "$FAKE_SLURMCTLD_PID" 2>/dev/null || true
  FAKE_SLURMCTLD_PID=
  return 0
}
