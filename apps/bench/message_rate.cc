// treematch-message-rate: point-to-point message rate (windows of non-blocking sends, as the OSU
// multiple-bandwidth/message-rate test), to measure what libtreematch-profile.so costs per call.
//
//   mpirun -n 2 treematch-message-rate [--window 64] [--size 8] [--iterations 20000]
//                                      [--trials 5] [--dup] [--pcontrol]
//
// Even rank r sends to r + 1: per iteration `window` MPI_Isend of `size` bytes, MPI_Waitall, then
// a 0-byte acknowledgement back. A single rank (-n 1) sends to itself instead: `window` MPI_Irecv
// then `window` MPI_Isend and one MPI_Waitall per iteration, no second process to wait for (the
// steadiest figure on a busy machine). Rank 0 prints the median over the trials of the messages per
// second of the pair (0, 1), after one untimed warm-up trial. With --pcontrol, trials alternate
// MPI_Pcontrol(0) and MPI_Pcontrol(1) in the same run (under libtreematch-profile.so: counting
// off and on, so the cost of counting alone, free of run-to-run noise).
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <vector>

namespace {

struct Options {
  int window = 64;
  int size = 8;
  int iterations = 20000;
  int trials = 5;
  bool dup = false;
  bool pcontrol = false;
};

/// Ends the job on a failed MPI call (the default error handler would already have).
void check(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return;
  std::fprintf(stderr, "treematch-message-rate: %s failed (%d)\n", call, rc);
  MPI_Abort(MPI_COMM_WORLD, 2);
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

/// One trial alone: seconds for `iterations` windows sent to itself.
double self_trial(const Options& options, MPI_Comm comm, std::vector<char>& buffer,
                  std::vector<MPI_Request>& requests) {
  const double start = MPI_Wtime();
  const auto window = static_cast<std::size_t>(options.window);
  for (int it = 0; it < options.iterations; ++it) {
    for (std::size_t k = 0; k < window; ++k) {
      check(MPI_Irecv(buffer.data() + (window + k) * static_cast<std::size_t>(options.size),
                      options.size, MPI_CHAR, 0, 1, comm, &requests[window + k]),
            "MPI_Irecv");
    }
    for (std::size_t k = 0; k < window; ++k) {
      check(MPI_Isend(buffer.data() + k * static_cast<std::size_t>(options.size), options.size,
                      MPI_CHAR, 0, 1, comm, &requests[k]),
            "MPI_Isend");
    }
    check(MPI_Waitall(2 * options.window, requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  }
  return MPI_Wtime() - start;
}

/// One trial: seconds for `iterations` windows between this rank and its partner.
double trial(const Options& options, MPI_Comm comm, int rank, std::vector<char>& buffer,
             std::vector<MPI_Request>& requests) {
  int size = 1;
  check(MPI_Comm_size(comm, &size), "MPI_Comm_size");
  if (size == 1) return self_trial(options, comm, buffer, requests);
  const bool sender = rank % 2 == 0;
  const int partner = sender ? rank + 1 : rank - 1;
  check(MPI_Barrier(comm), "MPI_Barrier");
  const double start = MPI_Wtime();
  for (int it = 0; it < options.iterations; ++it) {
    for (int k = 0; k < options.window; ++k) {
      char* slot =
          buffer.data() + static_cast<std::size_t>(k) * static_cast<std::size_t>(options.size);
      if (sender) {
        check(MPI_Isend(slot, options.size, MPI_CHAR, partner, 1, comm, &requests[k]), "MPI_Isend");
      } else {
        check(MPI_Irecv(slot, options.size, MPI_CHAR, partner, 1, comm, &requests[k]), "MPI_Irecv");
      }
    }
    check(MPI_Waitall(options.window, requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
    if (sender) {
      check(MPI_Recv(nullptr, 0, MPI_CHAR, partner, 2, comm, MPI_STATUS_IGNORE), "MPI_Recv");
    } else {
      check(MPI_Send(nullptr, 0, MPI_CHAR, partner, 2, comm), "MPI_Send");
    }
  }
  return MPI_Wtime() - start;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  CLI::App app("point-to-point message rate: windows of non-blocking sends between rank pairs");
  app.add_option("--window", options.window, "sends in flight per iteration")
      ->check(CLI::Range(1, 1 << 16))
      ->capture_default_str();
  app.add_option("--size", options.size, "bytes per message")
      ->check(CLI::Range(0, 1 << 24))
      ->capture_default_str();
  app.add_option("--iterations", options.iterations, "windows per trial")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_option("--trials", options.trials, "timed trials (the median is printed)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app.add_flag("--dup", options.dup, "send on a duplicate of MPI_COMM_WORLD, not on it");
  app.add_flag("--pcontrol", options.pcontrol,
               "alternate trials under MPI_Pcontrol(0) and MPI_Pcontrol(1) (--trials of each)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  check(MPI_Init(&argc, &argv), "MPI_Init");
  int rank = 0;
  int size = 1;
  check(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
  check(MPI_Comm_size(MPI_COMM_WORLD, &size), "MPI_Comm_size");
  if (size > 1 && size % 2 != 0) {
    if (rank == 0) {
      std::fprintf(stderr, "treematch-message-rate: needs 1 rank or an even number of ranks\n");
    }
    MPI_Finalize();
    return 2;
  }
  MPI_Comm comm = MPI_COMM_WORLD;
  if (options.dup) check(MPI_Comm_dup(MPI_COMM_WORLD, &comm), "MPI_Comm_dup");
  // Send slots, then (alone) receive slots.
  std::vector<char> buffer(2 * static_cast<std::size_t>(options.window) *
                               static_cast<std::size_t>(std::max(options.size, 1)),
                           'x');
  std::vector<MPI_Request> requests(2 * static_cast<std::size_t>(options.window));

  trial(options, comm, rank, buffer, requests);  // warm-up
  const auto rate = [&] {
    const double seconds = trial(options, comm, rank, buffer, requests);
    return static_cast<double>(options.window) * options.iterations / seconds;
  };
  std::vector<double> rates;
  std::vector<double> rates_off;  // --pcontrol: the trials under MPI_Pcontrol(0)
  for (int t = 0; t < options.trials; ++t) {
    if (options.pcontrol) {
      // Alternate which goes first, so that a drift of the machine favours neither.
      for (const int level : t % 2 == 0 ? std::vector<int>{0, 1} : std::vector<int>{1, 0}) {
        check(MPI_Pcontrol(level), "MPI_Pcontrol");
        (level == 0 ? rates_off : rates).push_back(rate());
      }
    } else {
      rates.push_back(rate());
    }
  }
  check(MPI_Pcontrol(1), "MPI_Pcontrol");
  if (rank == 0) {
    const auto [low, high] = std::minmax_element(rates.begin(), rates.end());
    std::printf(
        "treematch-message-rate: %d ranks, window %d x %d B, %d iterations, %d trials%s: "
        "median %.0f msgs/s (min %.0f, max %.0f)\n",
        size, options.window, options.size, options.iterations, options.trials,
        options.dup ? ", duplicate communicator" : "", median(rates), *low, *high);
    if (options.pcontrol) {
      const double on = median(rates);
      const double off = median(rates_off);
      std::printf(
          "treematch-message-rate: MPI_Pcontrol(0) median %.0f msgs/s, MPI_Pcontrol(1) median "
          "%.0f msgs/s: counting costs %.2f%%\n",
          off, on, (off - on) / off * 100.0);
    }
  }
  if (options.dup) check(MPI_Comm_free(&comm), "MPI_Comm_free");
  check(MPI_Finalize(), "MPI_Finalize");
  return 0;
}
