#!/bin/sh
# Prints "rank R host H cpus C": this process's rank (as its launcher numbers it), host name and the
# CPUs sched_getaffinity gives it (on a fake host, the shim's binding), every CPU listed: "0,1,4".
rank=${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-unknown}}
cpus=$(taskset -cp $$ | sed 's/.*: //' | awk -F, '{
  for (i = 1; i <= NF; ++i) {
    n = split($i, range, "-"); last = n == 2 ? range[2] : range[1]
    for (cpu = range[1]; cpu <= last; ++cpu) out = out (out == "" ? "" : ",") cpu
  }
  print out }')
echo "rank $rank host $(hostname) cpus $cpus"
# Stay a moment, as print_binding.sh does: Debian's mpiexec.hydra may die of SIGPIPE when every
# process exits before it has finished talking to its proxies.
sleep 0.3
