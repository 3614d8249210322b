#!/bin/bash
# `treematch map --topology allocation` under the build's launcher over four uneven fake hosts (an
# SMT node, a 6-core node, a partial node as a cgroup makes it, a partial SMT node with the other
# PUs removed): the gathered machine is exactly the hosts' usable cores (a matrix of as many
# processes as cores gets every core of every host once), or their hardware threads with
# --hwthreads; the ranks per host change nothing (one rank per node describes it).
#   fake_hosts_gather_test.sh TREEMATCH FLAVOUR SHIM LAUNCHER
# FLAVOUR (openmpi | mpich) is treematch's MPI and LAUNCHER its mpirun or mpiexec.hydra.
set -euo pipefail
# shellcheck source=fake_hosts.sh
source "$(dirname "$0")/fake_hosts.sh"
fake_hosts_start "$0" "$@"

fake_uneven_hosts

# Every "host slot" pair an allocation of TYPE (core | pu) leaves should have, in host order.
leaves_of() {
  local type=$1 host count slot
  for host in alpha bravo charlie delta; do
    count=$(hwloc-calc --if xml --input "$FAKE_HOSTS_DIR/$host.xml" --number-of "$type" all)
    for ((slot = 0; slot < count; ++slot)); do echo "$host $slot"; done
  done
}

# gather NAME HOSTS RANKS MAP_OPTIONS...: the rankfile of `map --topology allocation` launched on
# HOSTS with RANKS ranks, in NAME.rankfile; its summary in NAME.err.
gather() {
  local name=$1 hosts=$2 ranks=$3
  shift 3
  fake_launch "$flavour" "$hosts" -n "$ranks" "$treematch" map --topology allocation --threads 1 \
    --format rankfile -o "$name.rankfile" "$@" 2>"$name.err" || {
    cat "$name.err" >&2
    fake_fail "$name: gathering over $hosts failed"
  }
}

# expect_every_leaf NAME TYPE: NAME.rankfile puts one rank on each leaf of leaves_of TYPE.
expect_every_leaf() {
  local name=$1 type=$2
  if ! diff <(leaves_of "$type" | sort) \
    <(sed -n 's/^rank [0-9]*=\([^ ]*\) slot=\([0-9]*\)$/\1 \2/p' "$name.rankfile" | sort) \
    >"$name.diff"; then
    cat "$name.diff" >&2
    fake_fail "$name: the ranks do not cover each $type of the fake hosts once" \
      "(< missing, > extra)"
  fi
}

cores=$(leaves_of core | wc -l)
threads=$(leaves_of pu | wc -l)
"$treematch" generate hierarchical -t "pack:1 core:$cores pu:1" -q cores.mat 2>/dev/null
"$treematch" generate hierarchical -t "pack:1 core:$threads pu:1" -q threads.mat 2>/dev/null

gather one-each alpha:1,bravo:1,charlie:1,delta:1 4 -m cores.mat
expect_every_leaf one-each core
grep -q "($cores allowed)" one-each.err ||
  fake_fail "one-each: the summary does not say $cores allowed cores: $(grep topology one-each.err)"
grep -q "^# .*: $cores ranks on 4 nodes$" one-each.rankfile ||
  fake_fail "one-each: the rankfile's header does not say $cores ranks on 4 nodes"

gather hwthreads alpha:1,bravo:1,charlie:1,delta:1 4 -m threads.mat --hwthreads
expect_every_leaf hwthreads pu

# Several ranks on some hosts: the same nodes, so the same mapping.
gather uneven alpha:3,bravo:1,charlie:2,delta:2 8 -m cores.mat
cmp -s <(grep -v '^#' one-each.rankfile) <(grep -v '^#' uneven.rankfile) ||
  fake_fail "uneven: 3, 1, 2 and 2 ranks per host gather another machine than one rank each"
echo "ok: $flavour gathers 4 uneven fake hosts as their $cores cores ($threads hardware threads)," \
  "whatever the ranks per host"
