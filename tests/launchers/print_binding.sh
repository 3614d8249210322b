#!/bin/sh
# Prints the rank of this process (as its launcher numbers it) and the CPUs it may run on.
rank=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-${SLURM_PROCID:-unknown}}}
echo "rank $rank cpus $(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)"
# Stay a moment: Debian's mpiexec.hydra (MPICH 4.0) dies of SIGPIPE, silently, now and then when
# all its processes exit before it has finished talking to its proxy (4 in 100 runs on a loaded
# 2-core machine; none in 100 with this pause).
sleep 0.3
