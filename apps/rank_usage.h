// What each rank of an MPI job used: peak memory, CPU time, and what it asked of MPI (the figures
// `treematch map` prints under mpirun, so that a distributed mapping's division of memory and
// work can be read from its own output).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace treematch::apps {

struct RankUsage {
  double peak_bytes = 0.0;   ///< peak resident memory (ru_maxrss)
  double cpu_seconds = 0.0;  ///< user + system time of all the process's threads
  double mpi_seconds = 0.0;  ///< wall time inside counted MPI calls (src/mpi/mpi_traffic.h)
  double bytes_sent = 0.0;   ///< what its data carried to other ranks (src/mpi/mpi_traffic.h)
};

/// This process's usage so far.
RankUsage this_rank_usage();

/// Every rank's usage, in rank order, on every rank (collective).
std::vector<RankUsage> gather_rank_usage(MPI_Comm comm);

/// One summary line over the ranks: peak memory (least, most), CPU time summed, bytes sent (in
/// all, most by one rank), and the largest share of `wall_seconds` a rank spent in MPI calls.
std::string rank_usage_line(const std::vector<RankUsage>& ranks, double wall_seconds);

/// One JSON object per rank, in rank order.
nlohmann::json rank_usage_json(const std::vector<RankUsage>& ranks);

}  // namespace treematch::apps
