#!/bin/bash
# Open MPI 4.1's mpirun keeps one topology per signature (the counts of packages, cores, PUs...),
# not per set of PUs: nodes with as many usable cores, but other ones, share the topology of the
# first to report (mpirun's own node first), so a rankfile's slots on the others are resolved on
# the wrong cores. Shown on fake hosts of one kind (2 x 4 cores), partial as a job's cgroup makes
# them: charlie (cores 1, 2, 5 allowed) and echo (cores 0, 1, 7):
# 0. treematch warns in the rankfile's header and on stderr, giving the launch of 3;
# 1. the rankfile's ranks on one of them (which one varies from run to run) are bound to the other's
#    cores or left unbound, with mpirun's `hwloc_set_cpubind returned "Error" for bitmap`;
# 1b. run from a node shaped like charlie (mpirun reads HWLOC_XMLFILE too), mpirun binds echo's
#    ranks to charlie's cores every time, though its node runs no rank;
# 2. the rankfile with physical slots (--mca rmaps_rank_file_physical 1) does not bind them as
#    mapped either (here the job fails, silently);
# 3. `treematch bind` under mpirun (--bind-to none, ranks placed by the Slurm output as a sequential
#    host file), with the JSON mapping or the rankfile, and Hydra's machine file bind every rank
#    as mapped.
#   fake_hosts_ompi_topology_test.sh TREEMATCH FLAVOUR SHIM MPIRUN HYDRA
# FLAVOUR (openmpi | mpich) is treematch's MPI: its launcher (MPIRUN or HYDRA) gathers the mapping;
# the outputs are launched by both (the launched program is no MPI program).
set -euo pipefail
# shellcheck source=fake_hosts.sh
source "$(dirname "$0")/fake_hosts.sh"
fake_hosts_start "$0" "$@"
print=$FAKE_HOSTS_HERE/print_host_binding.sh

fake_host charlie 'pack:2 core:4 pu:1' 0x26 cgroup
fake_host echo 'pack:2 core:4 pu:1' 0x83 cgroup
ranks=6
"$treematch" generate hierarchical -t 'pack:2 core:3 pu:1' -q m.mat 2>/dev/null
for output in "rankfile" "rankfile --numbering physical" "json" "hydra" "slurm"; do
  name=job.${output// --numbering /.}
  # shellcheck disable=SC2086  # the output's options are words
  fake_launch "$flavour" charlie:1,echo:1 -n 2 "$treematch" map -m m.mat --topology allocation \
    --threads 1 -q --format $output -o "$name" 2>"$name.err" || {
    cat "$name.err" >&2
    fake_fail "gathering $name over the fake hosts"
  }
done
fake_rankfile_bindings job.rankfile >expected

# 0. treematch says so, in the rankfile's header and on stderr, with the launch of step 3.
for said in job.rankfile job.rankfile.err; do
  grep -qi "warning: Open MPI 4.1 takes the nodes charlie, echo for one topology" "$said" ||
    fake_fail "no warning of the twin nodes in $said: $(cat "$said")"
  grep -q -- "--mca rmaps seq --hostfile HOSTS --bind-to none -n $ranks treematch bind" "$said" ||
    fake_fail "the warning in $said does not give the launch that binds as mapped"
done
grep -q WARNING job.hydra job.slurm && fake_fail "a warning in the Hydra or Slurm output"

# 1. The rankfile: one host's ranks right, the other's on its twin's cores or unbound.
fake_mpirun -n $ranks --rankfile job.rankfile "$print" >rankfile.out 2>rankfile.err ||
  fake_fail "mpirun --rankfile failed: $(tail -n 3 rankfile.err)"
[ "$(grep -c '^rank ' rankfile.out)" = $ranks ] ||
  fake_fail "mpirun --rankfile: $(grep -c '^rank ' rankfile.out) of $ranks ranks ran"
grep '^rank ' rankfile.out | sort | comm -13 <(sort expected) - >misplaced || true
[ -s misplaced ] ||
  fake_fail "mpirun --rankfile bound every rank as mapped: Open MPI told charlie and echo apart"
confused=$(cut -d' ' -f4 misplaced | sort -u)
[ "$(echo "$confused" | wc -l)" = 1 ] ||
  fake_fail "ranks misplaced on both hosts, not on one: $(tr '\n' ';' <misplaced)"
grep -q 'hwloc_set_cpubind returned "Error" for bitmap' rankfile.err ||
  fake_fail "mpirun printed no failed binding: $(tr '\n' ' ' <rankfile.err | cut -c1-200)"
wrong=""
while read -r _ rank _ host _ cpus; do
  [ "$cpus" = "$(<"$FAKE_HOSTS_DIR/$host.cpus")" ] && cpus=unbound || cpus="on $cpus"
  wrong+="${wrong:+, }rank $rank $cpus (mapped: $(grep "^rank $rank " expected | cut -d' ' -f6))"
done <misplaced

# 1b. mpirun's own node counts too: run from a node shaped like charlie (a login node, say), mpirun
# gives echo its own topology, every time. Slots 0, 1, 2 are echo's PUs 0, 1, 7 but charlie's 1, 2,
# 5: echo's PU 1 exists, 2 and 5 do not (those ranks stay unbound on 0,1,7).
printf 'rank %s=echo slot=%s\n' 0 0 1 1 2 2 >echo.rankfile
HWLOC_XMLFILE=$FAKE_HOSTS_DIR/charlie.xml HWLOC_THISSYSTEM=1 \
  fake_mpirun -n 3 --rankfile echo.rankfile "$print" >login.out 2>login.err ||
  fake_fail "mpirun --rankfile from a node like charlie failed: $(tail -n 3 login.err)"
printf 'rank %s host echo cpus %s\n' 0 1 1 0,1,7 2 0,1,7 >login.expected
fake_expect_bindings "mpirun --rankfile from a node like charlie (charlie's cores)" login.expected \
  login.out
failed=$(grep -o 'for bitmap "[0-9]*"' login.err | sort | tr '\n' ' ')
[ "$failed" = 'for bitmap "2" for bitmap "5" ' ] ||
  fake_fail "mpirun from a node like charlie did not fail to bind to charlie's PUs 2 and 5"

# 2. Physical slots: the twin's topology lacks some of them.
if fake_mpirun -n $ranks --mca rmaps_rank_file_physical 1 --rankfile job.rankfile.physical \
  "$print" >physical.out 2>physical.err; then
  if grep '^rank ' physical.out | sort | cmp -s <(sort expected) -; then
    fake_fail "mpirun --rankfile with physical slots bound every rank as mapped"
  fi
  physical="run, not as mapped"
else
  physical="fail the job (exit $?, $(wc -l <physical.err) lines of stderr)"
fi

# 3. What binds right: treematch bind (the launcher binds nothing; Open MPI's sequential mapper
# places rank i on the i-th host of the Slurm host file), and Hydra's per-host binding.
fake_mpirun -n $ranks --mca rmaps seq --hostfile job.slurm --bind-to none \
  "$treematch" bind job.json -- "$print" >bind-json.out 2>&1 ||
  fake_fail "treematch bind job.json under mpirun failed: $(tail -n 3 bind-json.out)"
fake_expect_bindings "treematch bind job.json under mpirun" expected bind-json.out
fake_mpirun -n $ranks --mca rmaps seq --hostfile job.slurm --bind-to none \
  "$treematch" bind job.rankfile -- "$print" >bind-rankfile.out 2>&1 ||
  fake_fail "treematch bind job.rankfile under mpirun failed: $(tail -n 3 bind-rankfile.out)"
fake_expect_bindings "treematch bind job.rankfile under mpirun" expected bind-rankfile.out
fake_hydra -f job.hydra -n $ranks "$print" >hydra.out 2>&1 ||
  fake_fail "mpiexec.hydra -f job.hydra failed: $(tail -n 3 hydra.out)"
fake_expect_bindings "mpiexec.hydra -f job.hydra" expected hydra.out
echo "ok: Open MPI 4.1 confuses twin partial nodes: mpirun --rankfile put $confused's ranks on" \
  "the other's cores ($wrong), and echo's on charlie's when mpirun runs on a node like charlie;" \
  "physical slots $physical; treematch bind under mpirun and mpiexec.hydra -f bind every rank" \
  "as mapped"
