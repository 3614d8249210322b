#!/bin/sh
# Prints the rank of this process (as its launcher numbers it) and the CPUs it may run on.
rank=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-${SLURM_PROCID:-unknown}}}
echo "rank $rank cpus $(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)"
