// Writes the profile of a run into one HDF5 file (see profile_writer.h).
#include "apps/profile/profile_writer.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/matrix_hdf5_parallel.h"

namespace treematch::profile {
namespace {

constexpr std::array kAllClasses = {TrafficClass::kPointToPoint, TrafficClass::kCollective,
                                    TrafficClass::kOneSided};

/// A class group of the file and what it holds.
struct ClassGroup {
  const char* name;
  TrafficClass traffic;
  const char* description;
};

constexpr std::array kClassGroups = {
    ClassGroup{"/p2p", TrafficClass::kPointToPoint,
               "point-to-point sends (blocking, non-blocking, persistent at MPI_Start), by the "
               "sender, in MPI_COMM_WORLD ranks"},
    ClassGroup{"/collective", TrafficClass::kCollective,
               "logical per-peer volume of collectives (naive algorithm, see the treematch "
               "README), not the messages the MPI library exchanged"},
    ClassGroup{"/onesided", TrafficClass::kOneSided,
               "one-sided: Put/Accumulate origin -> target, Get target -> origin, "
               "Get_accumulate/Fetch_and_op/Compare_and_swap both ways"},
};

void check(int rc, const char* call) {
  if (rc != MPI_SUCCESS) throw std::runtime_error(std::string(call) + " failed");
}

/// One matrix of the file and this rank's row of it.
struct RowOfMatrix {
  std::string object;
  kernels::Csr row;
};

/// The group of the MPI_Pcontrol phase `level`.
std::string phase_group(int level) {
  return "/phase/pcontrol_" + std::to_string(level);
}

/// The MPI_Pcontrol levels any rank saw, increasing, at most PcontrolPhases::kMaxPhases
/// (collective): one Allreduce per level, so nothing grows with the number of ranks. Rank 0 says
/// in one line when levels were left out (here or on any rank).
std::vector<int> levels_of_all_ranks(MPI_Comm comm, int rank, const PcontrolPhases& phases) {
  const std::vector<int> mine = phases.levels();
  std::vector<int> levels;
  int last = 0;
  while (levels.size() <= PcontrolPhases::kMaxPhases) {
    const auto above = std::upper_bound(mine.begin(), mine.end(), last);
    // LLONG_MAX, not INT_MAX, says "none left": INT_MAX is a level like any other.
    long long next = above == mine.end() ? LLONG_MAX : *above;
    check(PMPI_Allreduce(MPI_IN_PLACE, &next, 1, MPI_LONG_LONG, MPI_MIN, comm), "MPI_Allreduce");
    if (next == LLONG_MAX) break;
    levels.push_back(static_cast<int>(next));
    last = static_cast<int>(next);
  }
  long long dropped = static_cast<long long>(phases.dropped_levels());
  check(PMPI_Allreduce(MPI_IN_PLACE, &dropped, 1, MPI_LONG_LONG, MPI_MAX, comm), "MPI_Allreduce");
  if (levels.size() > PcontrolPhases::kMaxPhases || dropped > 0) {
    levels.resize(std::min(levels.size(), PcontrolPhases::kMaxPhases));
    if (rank == 0) {
      std::fprintf(stderr,
                   "treematch-profile: more than %zu MPI_Pcontrol levels; some are not written "
                   "as phases (their traffic is in the totals)\n",
                   PcontrolPhases::kMaxPhases);
    }
  }
  return levels;
}

/// This rank's row of every matrix of the file, in the order they are written: the totals, each
/// class, then each MPI_Pcontrol phase when the program used a level other than 1 (`levels`).
std::vector<RowOfMatrix> rows_of_matrices(const TrafficRecorder& recorder,
                                          const PcontrolPhases& phases,
                                          const std::vector<int>& levels) {
  std::vector<RowOfMatrix> rows;
  const auto add = [&](const std::string& group, std::span<const TrafficClass> classes) {
    rows.push_back({group + "/size", recorder.matrix_row(classes, VolumeMetric::kBytes)});
    rows.push_back({group + "/msg", recorder.matrix_row(classes, VolumeMetric::kMessages)});
  };
  add("", kAllClasses);
  for (const ClassGroup& group : kClassGroups) {
    const std::array classes = {group.traffic};
    add(group.name, classes);
  }
  for (const int level : levels) {
    rows.push_back({phase_group(level) + "/size", phases.matrix_row(level, VolumeMetric::kBytes)});
    rows.push_back(
        {phase_group(level) + "/msg", phases.matrix_row(level, VolumeMetric::kMessages)});
  }
  return rows;
}

/// The levels written as phases: all of them, or none when only level 1 (the whole counted run)
/// was ever on.
std::vector<int> written_levels(std::vector<int> levels) {
  if (levels.empty() || levels.back() < 2) levels.clear();
  return levels;
}

}  // namespace

void write_profile(MPI_Comm comm, const std::string& path, const TrafficRecorder& recorder,
                   const PcontrolPhases& phases) {
  int rank = 0;
  int size = 0;
  check(PMPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  check(PMPI_Comm_size(comm, &size), "MPI_Comm_size");
  // One temporary name for all ranks, unique per run: rank 0's process id.
  long long pid = static_cast<long long>(getpid());
  check(PMPI_Bcast(&pid, 1, MPI_LONG_LONG, 0, comm), "MPI_Bcast");
  const std::string temporary = path + ".tmp." + std::to_string(pid);
  const kernels::Index n = size;
  const std::vector<int> levels = written_levels(levels_of_all_ranks(comm, rank, phases));
  // The rows first, agreed on: a rank that cannot build them (out of memory) must not leave the
  // others waiting in a collective HDF5 call.
  std::vector<RowOfMatrix> rows;
  std::string problem;
  try {
    rows = rows_of_matrices(recorder, phases, levels);
  } catch (const std::exception& e) {
    problem = e.what();
  }
  int ok = problem.empty() ? 1 : 0;
  int all_ok = 0;
  check(PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
  if (all_ok == 0) {
    if (!problem.empty()) throw std::runtime_error("building the rows: " + problem);
    throw io::Hdf5PeerError("another rank could not build its rows");
  }
  try {
    io::Hdf5ParallelCsrFile file(comm, temporary);
    for (const RowOfMatrix& matrix : rows) file.write(matrix.object, n, matrix.row);
    for (const ClassGroup& group : kClassGroups) {
      file.write_attribute(group.name, "description", group.description);
    }
    for (const int level : levels) {
      file.write_attribute(phase_group(level), "source", "treematch-profile");
      file.write_attribute(phase_group(level), "ranks", static_cast<std::int64_t>(n));
      file.write_attribute(phase_group(level), "pcontrol_level", static_cast<std::int64_t>(level));
    }
    file.write_attribute("/", "source", "treematch-profile");
    file.write_attribute("/", "ranks", static_cast<std::int64_t>(n));
    file.close();
  } catch (...) {
    if (rank == 0) std::remove(temporary.c_str());
    throw;
  }
  // Every rank closed the file (close() agrees): rank 0 alone gives it its name.
  if (rank == 0 && std::rename(temporary.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    std::remove(temporary.c_str());
    throw std::runtime_error("cannot rename " + temporary + " to " + path + ": " + reason);
  }
}

}  // namespace treematch::profile
