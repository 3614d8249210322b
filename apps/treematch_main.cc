// The treematch command line: options bound in one place, then one command runs; only here do we
// exit.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <tbb/global_control.h>

#include "apps/batch_command.h"
#include "apps/bind_command.h"
#include "apps/convert_command.h"
#include "apps/eval_command.h"
#include "apps/generate_command.h"
#include "apps/map_command.h"
#include "io/agreement.h"
#include "io/hdf5_container.h"
#include "io/input_error.h"
#include "io/interrupt_cleanup.h"
#include "src/mpi/mpi_environment.h"

namespace {

/// One line on stderr and the exit code; under MPI with several ranks, an error this rank alone
/// knows ends every rank (MPI_Abort), each failing rank printing its line.
int fail(const treematch::distributed::MpiEnvironment* mpi, const std::string& message, int code) {
  if (mpi != nullptr && mpi->size() > 1) mpi->abort("treematch: error: " + message, code);
  std::cerr << "treematch: error: " << message << '\n';
  return code;
}

/// An error every rank agreed on (io/agreement.h): rank 0 prints it, once for the whole job, and
/// every rank returns the same code, so that MPI ends normally (MPI_Finalize) without a hang.
int fail_agreed(const treematch::distributed::MpiEnvironment* mpi,
                const treematch::io::AgreedError& error) {
  if (mpi == nullptr || mpi->rank() == 0) {
    std::cerr << ("treematch: error: " + std::string(error.what()) + '\n') << std::flush;
  }
  switch (error.kind()) {
    case treematch::io::FailureKind::kInput:
      return 2;
    case treematch::io::FailureKind::kOutOfMemory:
      return 3;
    case treematch::io::FailureKind::kOther:
      return 1;
  }
  return 1;
}

/// `treematch bind` runs under a launcher but must not initialise MPI: the program it becomes
/// does. It returns only with an error.
int bind(const treematch::apps::BindOptions& options) {
  try {
    return treematch::apps::run_bind(options);
  } catch (const treematch::io::InputError& e) {
    return fail(nullptr, e.what(), 2);
  } catch (const std::exception& e) {
    return fail(nullptr, e.what(), 1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  using namespace treematch::apps;
  // HDF5 starts before MPI, so that it ties no shutdown of its own to MPI_Finalize either: after
  // a damaged file the error line stays the only line (see skip_hdf5_shutdown_at_exit).
  treematch::io::skip_hdf5_shutdown_at_exit();
  treematch::io::start_hdf5();
  // MPI starts only for the commands that use it, once the command line is known.
  const bool binding = argc > 1 && std::string(argv[1]) == "bind";
  std::optional<treematch::distributed::MpiEnvironment> environment;
  if (!binding) environment.emplace(argc, argv);
  const treematch::distributed::MpiEnvironment* mpi = environment ? &*environment : nullptr;
  // After MPI's start, whose library may install handlers of its own: Ctrl-C or a scheduler's
  // SIGTERM removes the outputs being written under their temporary names.
  treematch::io::remove_temporaries_on_interrupt();
  CLI::App app{"treematch: place MPI processes on cores so that heavy communicators are close"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "treematch " TM_VERSION);
  MapOptions map_options;
  EvalOptions eval_options;
  ConvertOptions convert_options;
  GenerateOptions generate_options;
  BatchOptions batch_options;
  BindOptions bind_options;
  CLI::App* map = add_map_command(app, map_options);
  CLI::App* eval = add_eval_command(app, eval_options);
  CLI::App* convert = add_convert_command(app, convert_options);
  CLI::App* generate = add_generate_command(app, generate_options);
  CLI::App* batch = add_batch_command(app, batch_options);
  CLI::App* bind_app = add_bind_command(app, bind_options);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help: CLI11 prints the usage
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // One line, like every other error (CLI11's own exit adds a second, generic line).
    const std::vector<CLI::App*> parsed = app.get_subcommands();
    const std::string command = parsed.empty() ? "treematch" : "treematch " + parsed[0]->get_name();
    return fail(mpi, std::string(e.what()) + " (see " + command + " --help)", 2);
  }
  if (bind_app->parsed()) return bind(bind_options);

  map_options.writer = mpi->rank() == 0;
  map_options.input.comm = mpi->active() ? MPI_COMM_WORLD : MPI_COMM_NULL;
  const int threads = map->parsed()     ? map_options.input.threads
                      : batch->parsed() ? batch_options.map.input.threads
                                        : eval_options.input.threads;
  std::optional<tbb::global_control> limit;
  if (threads > 0)
    limit.emplace(tbb::global_control::max_allowed_parallelism, static_cast<std::size_t>(threads));
  try {
    if (map->parsed()) return run_map(map_options);
    if (eval->parsed()) return run_eval(eval_options);
    if (convert->parsed()) return run_convert(convert_options);
    if (generate->parsed()) return run_generate(generate_options);
    if (batch->parsed())
      return run_batch(batch_options, mpi->active() ? MPI_COMM_WORLD : MPI_COMM_NULL);
  } catch (const treematch::io::AgreedError& e) {
    return fail_agreed(mpi, e);
  } catch (const treematch::io::InputError& e) {
    return fail(mpi, e.what(), 2);
  } catch (const std::bad_alloc&) {
    return fail(mpi, "out of memory", 3);
  } catch (const std::exception& e) {
    return fail(mpi, e.what(), 1);
  }
  return 1;
}
