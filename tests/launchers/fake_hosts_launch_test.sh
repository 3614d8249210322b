#!/bin/bash
# The launcher outputs of a mapping gathered over four uneven fake hosts, launched across them:
# every rank runs on the host the mapping chose, bound to the PUs of its core there as hwloc
# describes the host (hwloc-calc on the host's XML, from the rankfile's host and logical slot).
# Forms: Open MPI's mpirun --rankfile, mpiexec.hydra -f with the Hydra machine file, and `treematch
# bind` under each (mpirun placing rank i on the i-th host of a sequential host file, Hydra on a
# plain machine file).
#   fake_hosts_launch_test.sh TREEMATCH FLAVOUR SHIM MPIRUN HYDRA
# FLAVOUR (openmpi | mpich) is treematch's MPI: its launcher (MPIRUN or HYDRA) gathers the mapping;
# the outputs are launched by both, whatever the build (the launched program is no MPI program).
set -euo pipefail
# shellcheck source=fake_hosts.sh
source "$(dirname "$0")/fake_hosts.sh"
fake_hosts_start "$0" "$@"
print=$FAKE_HOSTS_HERE/print_host_binding.sh

# 8 cores of 2 threads; 6 cores; a partial node as a job's cgroup makes it (cores 1, 2 and 5 of
# 2 x 4 allowed, the others there); a partial SMT node made by removing PUs (cores 1 and 3 of 4, 2
# threads each). No two alike in Open MPI's eyes (see fake_hosts_ompi_topology_test.sh): 19 cores
# in all, one rank each.
fake_uneven_hosts
hosts=alpha:1,bravo:1,charlie:1,delta:1
ranks=19
"$treematch" generate hierarchical -t 'pack:4 core:5 pu:1' --ranks $ranks -q m.mat 2>/dev/null
for format in rankfile hydra json; do
  fake_launch "$flavour" $hosts -n 4 "$treematch" map -m m.mat --topology allocation --threads 1 \
    -q --format $format -o job.$format 2>gather.err || {
    cat gather.err >&2
    fake_fail "gathering the $format output over the fake hosts"
  }
done

# The truth: each rankfile line's host and core, resolved by hwloc on that host.
fake_rankfile_bindings job.rankfile >expected
[ "$(wc -l <expected)" = $ranks ] ||
  fake_fail "job.rankfile has $(wc -l <expected) ranks, not $ranks"
[ "$(cut -d' ' -f4 expected | sort -u | tr '\n' ' ')" = "alpha bravo charlie delta " ] ||
  fake_fail "the mapping leaves a fake host out: $(cut -d' ' -f4 expected | sort -u | tr '\n' ' ')"
# The host of each rank, in rank order: Open MPI's sequential mapper reads one per line, Hydra
# takes runs of consecutive ranks ("host:count").
cut -d' ' -f4 expected >seq.hosts
uniq -c seq.hosts | awk '{print $2 ":" $1}' >plain.hydra

fake_mpirun -n $ranks --rankfile job.rankfile "$print" >rankfile.out 2>&1 ||
  fake_fail "mpirun --rankfile failed: $(tail -n 3 rankfile.out)"
fake_expect_bindings "mpirun --rankfile" expected rankfile.out
fake_hydra -f job.hydra -n $ranks "$print" >hydra.out 2>&1 ||
  fake_fail "mpiexec.hydra -f job.hydra failed: $(tail -n 3 hydra.out)"
fake_expect_bindings "mpiexec.hydra -f job.hydra" expected hydra.out
fake_mpirun -n $ranks --mca rmaps seq --hostfile seq.hosts --bind-to none \
  "$treematch" bind job.json -- "$print" >bind-mpirun.out 2>&1 ||
  fake_fail "treematch bind under mpirun failed: $(tail -n 3 bind-mpirun.out)"
fake_expect_bindings "treematch bind under mpirun" expected bind-mpirun.out
fake_hydra -f plain.hydra -n $ranks "$treematch" bind job.json -- "$print" >bind-hydra.out 2>&1 ||
  fake_fail "treematch bind under mpiexec.hydra failed: $(tail -n 3 bind-hydra.out)"
fake_expect_bindings "treematch bind under mpiexec.hydra" expected bind-hydra.out
echo "ok: $ranks ranks gathered by $flavour over 4 fake hosts, bound as mapped by mpirun" \
  "--rankfile, mpiexec.hydra -f, and treematch bind under each"
