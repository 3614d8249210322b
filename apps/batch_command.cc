// `treematch batch`: expands the inputs into patterns, maps each like `map`, writes a summary.
#include "apps/batch_command.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "apps/batch_journal.h"
#include "apps/progress_display.h"
#include "io/agreement.h"
#include "io/atomic_file.h"
#include "io/hdf5_container.h"
#include "io/hdf5_probe.h"
#include "io/input_error.h"
#include "io/matrix_hdf5_reader.h"
#include "io/matrix_reader.h"
#include "kernels/utility.h"
#include "src/batch/batch_scheduler.h"
#include "src/mpi/mpi_environment.h"

namespace treematch::apps {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using json = nlohmann::ordered_json;  // the summary keeps its column order

/// The journal of finished patterns in DIR (apps/batch_journal.h).
constexpr const char* kJournal = "progress.jsonl";

using kernels::seconds_since;

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// The message of `e` on one line.
std::string one_line(const std::string& text) {
  std::string line = text;
  std::replace(line.begin(), line.end(), '\n', ' ');
  std::replace(line.begin(), line.end(), '\r', ' ');
  return line;
}

// ---------------------------------------------------------------------------------------------
// Patterns: what the inputs expand to.

/// One matrix to map.
struct Pattern {
  std::string name;         ///< unique, safe for a file name (set once every input is expanded)
  std::string path;         ///< the file
  std::string object;       ///< HDF5 object inside `path`; empty = the file as `map -m` reads it
  std::uint64_t bytes = 0;  ///< size of the file (or of the object's storage): largest go first
  std::string error;        ///< found while expanding: the pattern fails without being read

  [[nodiscard]] std::string source() const { return object.empty() ? path : path + ":" + object; }
};

json to_json(const Pattern& p) {
  return json{{"name", p.name},
              {"path", p.path},
              {"object", p.object},
              {"bytes", p.bytes},
              {"error", p.error}};
}

Pattern pattern_from_json(const json& j) {
  return Pattern{j.at("name").get<std::string>(), j.at("path").get<std::string>(),
                 j.at("object").get<std::string>(), j.at("bytes").get<std::uint64_t>(),
                 j.at("error").get<std::string>()};
}

/// The file extensions a directory is scanned for (compared in lower case).
constexpr std::array<const char*, 7> kMatrixExtensions = {".mat",   ".csv", ".graph", ".metis",
                                                          ".aphid", ".h5",  ".hdf5"};

bool has_matrix_extension(const fs::path& path) {
  const std::string extension = lower(path.extension().string());
  return std::find(kMatrixExtensions.begin(), kMatrixExtensions.end(), extension) !=
         kMatrixExtensions.end();
}

bool is_hdf5_name(const std::string& path) {
  const std::string extension = lower(fs::path(path).extension().string());
  return extension == ".h5" || extension == ".hdf5";
}

/// "X.count.csv" beside "X.size.csv": the same MapLib pattern (its other metric), not another one.
bool is_count_of_a_size_pair(const fs::path& path) {
  const std::string name = path.filename().string();
  if (!ends_with(lower(name), ".count.csv")) return false;
  const std::string stem = name.substr(0, name.size() - 10);
  std::error_code ec;
  return fs::exists(path.parent_path() / (stem + ".size.csv"), ec) ||
         fs::exists(path.parent_path() / (stem + ".SIZE.CSV"), ec);
}

std::uint64_t file_bytes(const std::string& path) {
  std::error_code ec;
  const std::uintmax_t size = fs::file_size(path, ec);
  return ec ? 0 : static_cast<std::uint64_t>(size);
}

/// The first `shown` of `names`, comma separated, then "and N more".
std::string listed(const std::vector<std::string>& names, std::size_t shown) {
  std::string text;
  for (std::size_t i = 0; i < names.size() && i < shown; ++i) text += (i ? ", " : "") + names[i];
  if (names.size() > shown) text += fmt::format(" and {} more", names.size() - shown);
  return text;
}

// --- Expanding the command line ---------------------------------------------------------------

class Expander {
 public:
  /// Expands one command-line input (file, directory, @list, HDF5 file or file.h5:/object).
  void add_input(const std::string& input) {
    if (!input.empty() && input[0] == '@') {
      add_list(input);
    } else {
      add_entry(input, input, fs::path(input).filename().string());
    }
  }

  std::vector<Pattern> take() { return std::move(patterns_); }
  /// Files found in the directories given and left out: not a matrix by their extension.
  std::vector<std::string> take_skipped() { return std::move(skipped_); }

 private:
  /// `path` (already resolved), named from `label` (for a file, its file name).
  void add_entry(const std::string& written, const std::string& path, const std::string& label) {
    const io::Hdf5ObjectName name = io::split_hdf5_object(path);
    if (!name.object.empty()) {
      add_hdf5(name.file, name.object, fs::path(name.file).filename().string(),
               /*whole_file=*/false);
      return;
    }
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
      add_directory(written, path);
    } else if (is_hdf5_name(path) && fs::is_regular_file(path, ec)) {
      add_hdf5(path, "/", label, /*whole_file=*/true);
    } else {
      // A missing or unreadable file fails when it is read, with `map`'s message.
      add(Pattern{label, path, "", file_bytes(path), ""});
    }
  }

  void add_list(const std::string& input) {
    const std::string list = input.substr(1);
    std::ifstream in(list);
    if (!in) {
      fail(input, list + ": cannot open list: " + std::strerror(errno));
      return;
    }
    const fs::path base = fs::path(list).parent_path();
    std::string line;
    std::size_t entries = 0;
    while (std::getline(in, line)) {
      const std::size_t first = line.find_first_not_of(" \t\r");
      if (first == std::string::npos || line[first] == '#') continue;
      const std::size_t last = line.find_last_not_of(" \t\r");
      const std::string entry = line.substr(first, last - first + 1);
      const fs::path path = fs::path(entry).is_absolute() ? fs::path(entry) : base / entry;
      add_entry(entry, path.string(), fs::path(entry).filename().string());
      ++entries;
    }
    if (in.bad()) fail(input, list + ": cannot read list: " + std::strerror(errno));
    if (entries == 0) fail(input, list + ": lists no path (one path per line, # comments)");
  }

  /// Every matrix file under `dir`, recursively, sorted by path; named by the path inside `dir`.
  void add_directory(const std::string& written, const std::string& dir) {
    std::vector<fs::path> files;
    std::error_code ec;
    fs::recursive_directory_iterator it(dir, ec);
    for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      std::error_code type_ec;
      if (!it->is_regular_file(type_ec)) continue;
      if (!has_matrix_extension(it->path())) {
        skipped_.push_back(fs::path(it->path()).lexically_relative(dir).generic_string());
        continue;
      }
      if (is_count_of_a_size_pair(it->path())) continue;
      files.push_back(it->path());
    }
    if (ec) {
      fail(written, dir + ": cannot list directory: " + ec.message());
      return;
    }
    if (files.empty()) {
      fail(written, dir + ": no matrix file (.mat .csv .graph .metis .APHiD .h5 .hdf5) in it");
      return;
    }
    std::sort(files.begin(), files.end(), [](const fs::path& a, const fs::path& b) {
      return a.generic_string() < b.generic_string();
    });
    for (const fs::path& file : files) {
      const std::string label = file.lexically_relative(dir).generic_string();
      if (is_hdf5_name(file.string())) {
        add_hdf5(file.string(), "/", label, /*whole_file=*/true);
      } else {
        add(Pattern{label, file.string(), "", file_bytes(file.string()), ""});
      }
    }
  }

  /// An HDF5 file: one pattern when it is a single matrix file for `map` (/matrix or /size at the
  /// root) or `object` is a group laid out like one (file.h5:/external holding size and msg),
  /// else one per matrix object at or under `object`.
  void add_hdf5(const std::string& path, const std::string& object, const std::string& label,
                bool whole_file) {
    const io::Hdf5ProbeScope probes;  // each file read in a child once
    if (whole_file) {
      try {
        io::probe_hdf5_objects(path, {"/size", "/msg", "/matrix"});
        if (io::hdf5_has_object(path, "/matrix") || io::hdf5_has_object(path, "/size")) {
          add(Pattern{label, path, "", file_bytes(path), ""});
          return;
        }
      } catch (const std::exception&) {
        // Not readable HDF5: `map`'s reader will say why.
        add(Pattern{label, path, "", file_bytes(path), ""});
        return;
      }
    }
    std::vector<io::Hdf5MatrixObject> found;
    try {
      if (object != "/" && !io::hdf5_has_object(path, object)) {
        fail(label, path + ": no object " + object + " in this HDF5 file");
        return;
      }
      if (object != "/" && (io::hdf5_has_group_member(path, object, "size") ||
                            io::hdf5_has_group_member(path, object, "matrix"))) {
        add(Pattern{label + ":" + object, path, object, file_bytes(path), ""});
        return;
      }
      found = io::list_hdf5_matrices(path, object);
    } catch (const std::exception& e) {
      fail(label, path + ":" + object + ": cannot list the matrices: " + e.what());
      return;
    }
    if (found.empty()) {
      fail(label, path + ":" + object + ": no matrix (square 2-D dataset or CSR group) there");
      return;
    }
    for (const io::Hdf5MatrixObject& matrix : found) {
      add(Pattern{label + ":" + matrix.object, path, matrix.object, matrix.bytes, ""});
    }
  }

  void add(Pattern pattern) { patterns_.push_back(std::move(pattern)); }
  void fail(const std::string& label, const std::string& error) {
    add(Pattern{label, label, "", 0, one_line(error)});
  }

  std::vector<Pattern> patterns_;
  std::vector<std::string> skipped_;
};

/// `label` with every run of characters other than [A-Za-z0-9._+-] replaced by one '_', leading
/// '.', '_' and '-' dropped ("../a/b.mat" -> "a_b.mat", "m.h5:/g/x" -> "m.h5_g_x").
std::string safe_name(const std::string& label) {
  std::string name;
  bool replaced = false;
  for (const char c : label) {
    const bool keep = std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '_' ||
                      c == '+' || c == '-';
    if (keep) {
      name.push_back(c);
    } else if (!replaced) {
      name.push_back('_');
    }
    replaced = !keep;
  }
  const std::size_t first = name.find_first_not_of("._-");
  name = first == std::string::npos ? std::string() : name.substr(first);
  return name.empty() ? "pattern" : name;
}

/// Safe, unique names in input order: the second "a.mat" becomes "a.mat-2" (compared without case,
/// for case-insensitive file systems; "summary" is taken by the summary files).
void assign_names(std::vector<Pattern>& patterns) {
  std::set<std::string> taken{"summary"};
  for (Pattern& pattern : patterns) {
    const std::string base = safe_name(pattern.name);
    std::string name = base;
    for (int k = 2; taken.count(lower(name)) > 0; ++k) name = base + "-" + std::to_string(k);
    taken.insert(lower(name));
    pattern.name = name;
  }
}

// ---------------------------------------------------------------------------------------------
// Mapping one pattern.

const char* extension_of(io::OutputFormat format) {
  switch (format) {
    case io::OutputFormat::kPerm:
      return "perm";
    case io::OutputFormat::kRankfile:
      return "rankfile";
    case io::OutputFormat::kSlurm:
      return "slurm";
    case io::OutputFormat::kHydra:
      return "hydra";
    case io::OutputFormat::kJson:
      return "json";
  }
  return "out";
}

/// The summary columns holding costs: JSON/CSV prefix and the CostRow name.
constexpr std::array<std::pair<const char*, const char*>, 4> kCostColumns = {{
    {"treematch", "treematch"},
    {"packed", "packed"},
    {"round_robin", "round-robin"},
    {"random", "random"},
}};

/// Every summary column, in order.
std::vector<std::string> summary_columns() {
  std::vector<std::string> columns{"name", "path", "p", "nnz"};
  for (const auto& [prefix, row] : kCostColumns) {
    columns.push_back(std::string(prefix) + "_hop_bytes");
    columns.push_back(std::string(prefix) + "_weighted");
    columns.push_back(std::string(prefix) + "_predicted_seconds");
    columns.push_back(std::string(prefix) + "_congestion");
  }
  for (const char* column : {"seconds", "status", "error"}) columns.emplace_back(column);
  return columns;
}

/// Maps one pattern onto the run's placement; never throws for a bad pattern, calls no MPI. The
/// summary record, plus "output": the text of the mapping file when ok.
json map_pattern(const BatchOptions& options, const Placement& placement,
                 const io::OutputOptions& output, const Pattern& pattern) {
  const auto start = Clock::now();
  json row;
  for (const std::string& column : summary_columns()) row[column] = nullptr;
  row["name"] = pattern.name;
  row["path"] = pattern.source();
  row["status"] = "failed";
  try {
    if (!pattern.error.empty()) throw std::runtime_error(pattern.error);
    MapOptions map = options.map;
    map.input.matrix = pattern.source();  // a file, or file.h5:/object: read as `map -m` reads it
    map.input.comm = MPI_COMM_NULL;       // this rank alone
    const Inputs inputs = load_inputs(map.input, placement);
    row["p"] = inputs.graph.size();
    row["nnz"] = inputs.graph.nnz();
    const Context ctx = map_context(map, inputs);
    const MapOutcome outcome = compute_mapping(map, inputs, ctx, Baselines::kCheap);
    for (const auto& [prefix, name] : kCostColumns) {
      const auto found = std::find_if(outcome.rows.begin(), outcome.rows.end(),
                                      [name = name](const CostRow& r) { return r.name == name; });
      if (found == outcome.rows.end()) continue;
      row[std::string(prefix) + "_hop_bytes"] = found->cost.hop_bytes;
      row[std::string(prefix) + "_weighted"] = found->cost.weighted;
      if (found->links) {
        row[std::string(prefix) + "_predicted_seconds"] = found->links->predicted_seconds;
        row[std::string(prefix) + "_congestion"] = found->links->congestion_norm;
      }
    }
    row["output"] =
        io::render_mapping(outcome.result.mapping, inputs.topology, output, outcome.report);
    row["status"] = "ok";
  } catch (const std::bad_alloc&) {
    row["error"] = "out of memory";
  } catch (const std::exception& e) {
    row["error"] = one_line(e.what());
  }
  row["seconds"] = seconds_since(start);
  return row;
}

// ---------------------------------------------------------------------------------------------
// Summary and resume.

/// What makes two runs' results interchangeable: everything but the inputs and --threads, and
/// for --topology allocation the nodes it found (another allocation names other hosts).
json settings_of(const BatchOptions& options, const Placement& placement) {
  const MapOptions& m = options.map;
  return json{{"topology", m.input.topology},
              {"network", m.input.network},
              {"link_costs", m.input.link_costs},
              {"objective", m.objective},
              {"link_model", m.input.links.model},
              {"link_bandwidth", m.input.links.bandwidth},
              {"link_latency", m.input.links.latency},
              {"metric", m.input.metric},
              {"numbering", m.input.numbering},
              {"cores", m.input.cores},
              {"oversubscribe", m.input.oversubscribe},
              {"hwthreads", m.input.hardware_threads},
              {"node_size", m.input.node_size},
              {"format", m.format},
              {"hosts", m.hosts},
              {"allocation_hosts", placement.hosts},
              {"seed", m.seed}};
}

std::string csv_field(const json& value) {
  if (value.is_null()) return "";
  if (value.is_number_float()) return fmt::format("{}", value.get<double>());
  if (!value.is_string()) return value.dump();
  const std::string text = value.get<std::string>();
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"') quoted.push_back('"');
    quoted.push_back(c);
  }
  return quoted + "\"";
}

std::string summary_csv(const std::vector<json>& rows) {
  const std::vector<std::string> columns = summary_columns();
  std::string text;
  for (std::size_t c = 0; c < columns.size(); ++c) {
    if (c > 0) text += ',';
    text += columns[c];
  }
  text += '\n';
  for (const json& row : rows) {
    for (std::size_t c = 0; c < columns.size(); ++c) {
      if (c > 0) text += ',';
      text += csv_field(row.value(columns[c], json()));
    }
    text += '\n';
  }
  return text;
}

/// Throws InputError unless the settings `old` (of a summary or journal at `file`) match `now`.
void check_same_settings(const json& old, const json& now, const std::string& file) {
  for (const auto& [key, value] : now.items()) {
    // A summary written before a setting existed ran with its default (an empty string or list,
    // or false).
    const bool unset_before =
        !old.contains(key) && (value.empty() || value == "" || value == false);
    if (!unset_before && old.value(key, json()) != value) {
      throw io::InputError("--resume",
                           fmt::format("{} was written with {} {}, not {}; use another --out or "
                                       "drop --resume",
                                       file, key, old.value(key, json()).dump(), value.dump()));
    }
  }
}

/// The rows that --resume may keep: those of DIR/summary.json (a finished batch) and of
/// DIR/progress.jsonl (the journal of an interrupted one); throws InputError when a file exists
/// but cannot be used.
std::vector<json> resumable_rows(const BatchOptions& options, const Placement& placement,
                                 const fs::path& out) {
  const json now = settings_of(options, placement);
  std::vector<json> rows;
  const fs::path summary = out / "summary.json";
  std::error_code ec;
  if (fs::exists(summary, ec)) {
    std::ifstream in(summary);
    json old;
    try {
      in >> old;
    } catch (const json::exception& e) {
      throw io::InputError(summary.string(), std::string("cannot parse (") + e.what() +
                                                 "); remove it or drop --resume");
    }
    if (!old.is_object() || !old.contains("settings") || !old.contains("patterns")) {
      throw io::InputError(summary.string(),
                           "not a treematch batch summary; remove it or drop --resume");
    }
    check_same_settings(old["settings"], now, summary.string());
    rows = old["patterns"].get<std::vector<json>>();
  }
  json settings;
  const fs::path journal = out / kJournal;
  std::vector<json> recorded = BatchJournal::read(journal.string(), settings);
  if (!recorded.empty()) {
    check_same_settings(settings, now, journal.string());
    rows.insert(rows.end(), recorded.begin(), recorded.end());
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------
// The run.

/// What rank 0 decided before the work starts.
struct Plan {
  std::vector<Pattern> patterns;     ///< every pattern, input order
  std::vector<json> rows;            ///< per pattern: the kept summary row (--resume), or null
  std::vector<std::string> skipped;  ///< files of the directories given that are no matrix
};

Plan make_plan(const BatchOptions& options, const Placement& placement) {
  map_output_options(options.map);  // validates --format, --numbering
  io::parse_metric(options.map.input.metric);
  if (options.inputs.empty()) throw io::InputError("batch", "no input to map");
  std::error_code ec;
  fs::create_directories(options.out, ec);
  if (ec || !fs::is_directory(options.out)) {
    throw io::InputError("--out", options.out + ": cannot create the output directory" +
                                      (ec ? ": " + ec.message() : ""));
  }

  Expander expander;
  for (const std::string& input : options.inputs) expander.add_input(input);
  Plan plan;
  plan.patterns = expander.take();
  plan.skipped = expander.take_skipped();
  std::sort(plan.skipped.begin(), plan.skipped.end());
  assign_names(plan.patterns);
  plan.rows.assign(plan.patterns.size(), json());
  if (!options.resume) return plan;

  const std::string extension = extension_of(io::parse_output_format(options.map.format));
  const std::vector<json> old = resumable_rows(options, placement, fs::path(options.out));
  for (std::size_t i = 0; i < plan.patterns.size(); ++i) {
    const Pattern& p = plan.patterns[i];
    const auto found = std::find_if(old.begin(), old.end(), [&](const json& row) {
      return row.value("name", "") == p.name && row.value("path", "") == p.source() &&
             row.value("status", "") == "ok";
    });
    if (found == old.end()) continue;
    if (!fs::is_regular_file(fs::path(options.out) / (p.name + "." + extension), ec)) continue;
    plan.rows[i] = *found;
  }
  return plan;
}

/// Runs make_plan on rank 0 and gives every rank the patterns to map (indexes into the plan), or
/// the same exception.
Plan share_plan(const BatchOptions& options, const Placement& placement, MPI_Comm comm,
                std::vector<std::size_t>& todo) {
  const bool root = distributed::rank_of(comm) == 0;
  Plan plan;
  std::string message;
  std::exception_ptr failure;
  if (root) {
    json shared;
    try {
      plan = make_plan(options, placement);
      shared["patterns"] = json::array();
      for (std::size_t i = 0; i < plan.patterns.size(); ++i) {
        if (!plan.rows[i].is_null()) continue;
        shared["patterns"].push_back(to_json(plan.patterns[i]));
        shared["index"].push_back(i);
      }
    } catch (const io::InputError& e) {
      failure = std::current_exception();
      shared = json{{"input_error", e.what()}};
    } catch (const std::exception& e) {
      failure = std::current_exception();
      shared = json{{"error", e.what()}};
    }
    message = shared.dump();
  }
  distributed::broadcast_string(comm, message);
  if (failure) std::rethrow_exception(failure);
  const json shared = json::parse(message);
  if (shared.contains("input_error")) {
    // Rebuild the same one-line message: InputError(source, problem) is "source: problem".
    const std::string what = shared["input_error"].get<std::string>();
    const std::size_t colon = what.find(": ");
    if (colon == std::string::npos) throw io::InputError("batch", what);
    throw io::InputError(what.substr(0, colon), what.substr(colon + 2));
  }
  if (shared.contains("error")) throw std::runtime_error(shared["error"].get<std::string>());
  std::vector<Pattern> to_map;
  for (const json& p : shared["patterns"]) to_map.push_back(pattern_from_json(p));
  todo.clear();
  if (shared.contains("index")) todo = shared["index"].get<std::vector<std::size_t>>();
  if (!root) {
    // Workers only need the patterns they may be handed, at the same task indexes.
    plan.patterns = std::move(to_map);
    todo.resize(plan.patterns.size());
    for (std::size_t t = 0; t < todo.size(); ++t) todo[t] = t;
  }
  return plan;
}

}  // namespace

CLI::App* add_batch_command(CLI::App& app, BatchOptions& options) {
  CLI::App* batch = app.add_subcommand(
      "batch", "map many matrices onto one topology (spread over the ranks under mpirun)");
  add_input_options(*batch, options.map.input);
  batch->remove_option(batch->get_option("--matrix"));
  batch->get_option("--topology")
      ->required()
      ->description(
          "hwloc XML, tleaf file or string, hwloc synthetic string, or 'allocation' (the nodes of "
          "this job, gathered once under mpirun; without mpirun, this machine)");
  batch
      ->add_option("inputs", options.inputs,
                   "matrix files, directories (recursively), @list files (one path per line, "
                   "relative to the list), HDF5 files or file.h5:/group (every matrix in it)")
      ->required();
  batch->add_option("--out,-o", options.out, "output directory: <name>.<format>, summary.csv/json")
      ->required();
  batch->add_option("--format,-f", options.map.format, "perm | rankfile | slurm | hydra | json")
      ->capture_default_str();
  batch->add_option("--hosts", options.map.hosts, "host names of the machines: a,b,c or a file");
  batch->add_option("--seed", options.map.seed, "seed of the random baseline")
      ->capture_default_str();
  batch
      ->add_option("--objective", options.map.objective,
                   "sum | congestion: what each mapping is judged by (see treematch map)")
      ->capture_default_str();
  batch->add_flag("--resume", options.resume,
                  "skip the patterns that DIR/summary.json (or, after an interruption, the journal "
                  "DIR/progress.jsonl) lists as ok and whose output exists");
  batch->add_flag("-q,--quiet{false}", options.progress, "no progress line per finished pattern");
  add_max_memory_option(*batch, options.map);
  return batch;
}

int run_batch(const BatchOptions& given, MPI_Comm comm) {
  const bool root = distributed::rank_of(comm) == 0;
  // Every rank at once, before any pattern is handed out: 'allocation' is gathered collectively,
  // and the tasks (on the root, a helper thread) must not call MPI. A bad topology fails every
  // rank with the same error, printed once. The ranks on one machine share its memory, each
  // mapping one pattern at a time: a pattern that needs more than a rank's share fails alone.
  BatchOptions options = given;
  Placement placement;
  io::run_agreed(comm, [&] { placement = load_placement(options.map.input, comm); });
  io::run_agreed(comm, [&] { options.map.input.memory = map_memory_budget(options.map, comm); });
  std::vector<std::size_t> todo;
  Plan plan = share_plan(options, placement, comm, todo);
  if (comm != MPI_COMM_NULL) {
    // HDF5 registers itself with MPI when it starts: do it here, on the main thread, before a
    // task (on the root's helper thread) may open a file.
    io::start_hdf5();
  }
  io::OutputOptions output = map_output_options(options.map);
  if (output.hosts.empty()) output.hosts = placement.hosts;  // 'allocation' names its nodes
  output.open_mpi_alike = placement.open_mpi_alike;
  const std::string extension = extension_of(output.format);

  const std::size_t total = plan.patterns.size();
  std::size_t finished = 0;
  // On a terminal, a line with the share of patterns done stays below the per-pattern lines.
  ProgressDisplay display("treematch batch", root && progress_wanted(!options.progress));
  display.phase("mapping patterns");
  const auto progress = [&](const std::string& name, const std::string& what) {
    ++finished;
    if (options.progress)
      display.print(fmt::format("[{}/{}] {}: {}\n", finished, total, name, what));
    display.step(fmt::format("{} of {} done", finished, total),
                 static_cast<double>(finished) / static_cast<double>(total));
  };
  if (root) {
    if (options.progress && !plan.skipped.empty()) {
      display.print(fmt::format(
          "treematch batch: {} file{} skipped, not a matrix by extension (.mat .csv .graph .metis "
          ".APHiD .h5 .hdf5): {}\n",
          plan.skipped.size(), plan.skipped.size() == 1 ? "" : "s", listed(plan.skipped, 10)));
    }
    for (std::size_t i = 0; i < total; ++i) {
      if (!plan.rows[i].is_null()) progress(plan.patterns[i].name, "skipped (done)");
    }
  }

  // Rank 0 records every finished pattern as it completes: an interrupted batch resumes there.
  std::optional<BatchJournal> journal;
  if (root) {
    journal.emplace((fs::path(options.out) / kJournal).string(), settings_of(options, placement),
                    options.resume);
  }
  std::vector<std::uint64_t> sizes;
  for (const std::size_t i : todo) sizes.push_back(plan.patterns[i].bytes);
  const auto task = [&](std::size_t t) {
    return map_pattern(options, placement, output, plan.patterns[todo[t]]).dump();
  };
  const auto on_result = [&](std::size_t t, std::string text) {
    const std::size_t i = todo[t];
    json row = json::parse(text);
    const fs::path file = fs::path(options.out) / (plan.patterns[i].name + "." + extension);
    if (row["status"] == "ok") {
      try {
        io::write_file_atomically(file.string(), row["output"].get<std::string>());
      } catch (const std::exception& e) {
        row["status"] = "failed";
        row["error"] = one_line(e.what());
      }
    }
    row.erase("output");
    if (row["status"] == "ok") {
      progress(plan.patterns[i].name, fmt::format("ok {:.2f} s", row["seconds"].get<double>()));
    } else {
      std::error_code ignored;
      fs::remove(file, ignored);  // no stale mapping beside a failed record
      progress(plan.patterns[i].name, "FAILED: " + row["error"].get<std::string>());
    }
    journal->record(row);
    plan.rows[i] = std::move(row);
  };
  distributed::run_tasks(comm, sizes, task, on_result);

  int code = 0;
  if (root) {
    json summary{{"settings", settings_of(options, placement)},
                 {"patterns", plan.rows},
                 {"skipped_files", plan.skipped}};
    io::write_file_atomically((fs::path(options.out) / "summary.json").string(),
                              summary.dump(2) + "\n");
    io::write_file_atomically((fs::path(options.out) / "summary.csv").string(),
                              summary_csv(plan.rows));
    journal->finish();  // the summary holds every row now
    const std::size_t failed = static_cast<std::size_t>(
        std::count_if(plan.rows.begin(), plan.rows.end(),
                      [](const json& row) { return row.value("status", "") != "ok"; }));
    display.stop();
    if (options.progress) {
      std::cerr << fmt::format("treematch batch: {} patterns, {} ok, {} failed; summary in {}\n",
                               total, total - failed, failed,
                               (fs::path(options.out) / "summary.csv").string());
    }
    code = failed > 0 ? 1 : 0;
  }
  return distributed::broadcast_int(comm, code);
}

}  // namespace treematch::apps
