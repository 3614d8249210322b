#!/bin/bash
# The fake hosts' remote shell, given to Open MPI as plm_rsh_agent and to Hydra as -launcher-exec:
#   fake_host_agent.sh [-x]... HOST COMMAND...
# runs COMMAND as ssh would (its words joined, read by a shell), on this machine, in a new UTS
# namespace named HOST, with HOST's hardware (hwloc reads FAKE_HOSTS_DIR/HOST.xml) and bindings
# (the fake_affinity shim, on the PUs of FAKE_HOSTS_DIR/HOST.cpus).
set -euo pipefail
# Options the launchers give ssh (Hydra: -x), none with a value.
while [[ $1 == -* ]]; do shift; done
host=$1
shift
dir=${FAKE_HOSTS_DIR:?set by fake_hosts.sh}
if [ ! -f "$dir/$host.xml" ]; then
  echo "fake_host_agent: no fake host named $host in $dir" >&2
  exit 255  # what ssh returns when it cannot reach the host
fi
# FAKE_HOST tells the host's processes apart (fake_hosts.sh).
export FAKE_HOST=$host HWLOC_XMLFILE=$dir/$host.xml HWLOC_THISSYSTEM=1
FAKE_AFFINITY_CPUS=$(<"$dir/$host.cpus")
export FAKE_AFFINITY_CPUS
export LD_PRELOAD=${FAKE_AFFINITY_SHIM:?set by fake_hosts.sh}${LD_PRELOAD:+:$LD_PRELOAD}
# shellcheck disable=SC2016  # expanded by the inner shell
exec unshare --uts bash -c 'hostname "$1" && eval "$2"' fake_host "$host" "$*"
