#!/bin/bash
# `treematch map` of an HDF5 matrix distributed over four fake hosts (one rank each, every rank
# reading its own blocks of rows) writes the same mapping, byte for byte, as the plain run: with the
# default options and with the levels kept distributed (--gather-entries below the matrix's
# entries).
#   fake_hosts_distributed_map_test.sh TREEMATCH FLAVOUR SHIM LAUNCHER
# FLAVOUR (openmpi | mpich) is treematch's MPI and LAUNCHER its mpirun or mpiexec.hydra.
set -euo pipefail
# shellcheck source=fake_hosts.sh
source "$(dirname "$0")/fake_hosts.sh"
fake_hosts_start "$0" "$@"

fake_uneven_hosts

# 2048 rows: four blocks of 512, one per rank.
topology='tleaf 3 16 100 8 10 16 1'
"$treematch" generate geometric --ranks 2048 --points 65536 -q m.h5 2>/dev/null
for options in "" "--gather-entries 1000"; do
  # shellcheck disable=SC2086  # the options are words
  "$treematch" map -m m.h5 -t "$topology" --threads 1 -q $options -o plain.perm 2>plain.err ||
    fake_fail "the plain map '$options' failed: $(tail -n 1 plain.err)"
  # shellcheck disable=SC2086
  fake_launch "$flavour" alpha:1,bravo:1,charlie:1,delta:1 -n 4 "$treematch" map -m m.h5 \
    -t "$topology" --threads 1 -q $options -o hosts.perm 2>hosts.err ||
    fake_fail "the map '$options' over the fake hosts failed: $(tail -n 3 hosts.err)"
  grep -q ', distributed over 4 ranks$' hosts.err ||
    fake_fail "the map '$options' over the fake hosts did not run distributed:" \
      "$(head -n 1 hosts.err)"
  cmp -s plain.perm hosts.perm ||
    fake_fail "the map '$options' over the fake hosts differs from the plain run"
done
echo "ok: $flavour map of 2048 rows distributed over 4 fake hosts, identical to the plain run" \
  "(default options and --gather-entries 1000)"
