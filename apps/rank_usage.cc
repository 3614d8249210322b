// Per-rank usage: getrusage for memory and CPU, the MPI traffic counters for the rest.
#include "apps/rank_usage.h"

#include <sys/resource.h>

#include <algorithm>
#include <span>

#include <fmt/format.h>

#include "io/available_memory.h"
#include "src/mpi/mpi_collectives.h"
#include "src/mpi/mpi_traffic.h"

namespace treematch::apps {

RankUsage this_rank_usage() {
  rusage self{};
  getrusage(RUSAGE_SELF, &self);
  const auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6;
  };
  const distributed::MpiTraffic traffic = distributed::mpi_traffic();
  return RankUsage{static_cast<double>(self.ru_maxrss) * 1024.0,  // Linux counts KiB
                   seconds(self.ru_utime) + seconds(self.ru_stime), traffic.seconds,
                   static_cast<double>(traffic.bytes_sent)};
}

std::vector<RankUsage> gather_rank_usage(MPI_Comm comm) {
  const RankUsage mine = this_rank_usage();
  return distributed::all_gather<RankUsage>(comm, std::span<const RankUsage>(&mine, 1));
}

std::string rank_usage_line(const std::vector<RankUsage>& ranks, double wall_seconds) {
  if (ranks.empty()) return {};
  const auto by = [](auto member) {
    return [member](const RankUsage& a, const RankUsage& b) { return a.*member < b.*member; };
  };
  const auto [least, most] =
      std::minmax_element(ranks.begin(), ranks.end(), by(&RankUsage::peak_bytes));
  double cpu = 0.0;
  double sent = 0.0;
  for (const RankUsage& rank : ranks) {
    cpu += rank.cpu_seconds;
    sent += rank.bytes_sent;
  }
  const double most_sent =
      std::max_element(ranks.begin(), ranks.end(), by(&RankUsage::bytes_sent))->bytes_sent;
  const double most_mpi =
      std::max_element(ranks.begin(), ranks.end(), by(&RankUsage::mpi_seconds))->mpi_seconds;
  const auto bytes = [](double b) { return io::format_bytes(static_cast<std::int64_t>(b)); };
  return fmt::format(
      "  {} ranks: peak memory {} to {} a rank, CPU {:.3f} s in all, sent {} in all (at most {} "
      "by one rank), in MPI calls at most {:.0f}% of the {:.3f} s\n",
      ranks.size(), bytes(least->peak_bytes), bytes(most->peak_bytes), cpu, bytes(sent),
      bytes(most_sent), wall_seconds > 0 ? 100.0 * most_mpi / wall_seconds : 0.0, wall_seconds);
}

nlohmann::json rank_usage_json(const std::vector<RankUsage>& ranks) {
  nlohmann::json list = nlohmann::json::array();
  for (const RankUsage& rank : ranks) {
    list.push_back({{"peak_bytes", static_cast<std::uint64_t>(rank.peak_bytes)},
                    {"cpu_seconds", rank.cpu_seconds},
                    {"mpi_seconds", rank.mpi_seconds},
                    {"bytes_sent", static_cast<std::uint64_t>(rank.bytes_sent)}});
  }
  return list;
}

}  // namespace treematch::apps
