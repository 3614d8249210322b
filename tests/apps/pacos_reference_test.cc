// TreeMatch's own examples (shared/data/pacos): our mapping costs no more than the reference
// tool's.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <ostream>
#include <regex>
#include <sstream>

#include "io/mapping_reader.h"
#include "io/matrix_reader.h"
#include "io/topology_reader.h"
#include "src/model/cost.h"
#include "tests/apps/run_command.h"

namespace treematch::testing {
namespace {

struct ReferenceCase {
  std::string name;
  std::string options;  ///< the reference tool's options
  std::string mapping;  ///< its output, comma separated
};

/// Its name in test listings (CTest's test names), not gtest's byte dump.
void PrintTo(const ReferenceCase& c, std::ostream* out) {
  *out << c.name;
}

std::vector<ReferenceCase> reference_cases() {
  std::vector<ReferenceCase> cases;
  std::ifstream in(data_dir() + "/pacos/examples/treematch_reference_outputs.tsv");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    ReferenceCase c;
    std::getline(fields, c.name, '\t');
    std::getline(fields, c.options, '\t');
    std::getline(fields, c.mapping, '\t');
    cases.push_back(c);
  }
  return cases;
}

/// Our command line for the reference tool's options, and the eval options that read its output.
struct Translated {
  std::string matrix;
  std::string map_arguments;
  std::string eval_arguments;
};

Translated translate(const std::string& options) {
  const std::string examples = data_dir() + "/pacos/examples/";
  Translated t;
  std::istringstream words(options);
  std::string word;
  std::string common;
  while (words >> word) {
    if (word == "-t" || word == "-x") {
      // The reference tool's leaves of an hwloc XML (-x) are its PUs.
      common += word == "-x" ? " --hwthreads" : "";
      words >> word;
      common += " --topology " + quote(examples + word);
    } else if (word == "-c") {
      words >> word;
      t.matrix = examples + word;
      common += " --matrix " + quote(t.matrix);
    } else if (word == "-b") {
      words >> word;
      common += " --cores " + quote(examples + word);
    } else if (word == "-n") {
      common += " --numbering physical";
    } else if (word.rfind("-o", 0) == 0) {
      common += " --oversubscribe " + word.substr(2);
    } else if (word == "-d") {
      t.map_arguments += " --no-split";
    }  // -g (the reference's greedy mode) has no counterpart: we always run TreeMatch
  }
  t.map_arguments = "map" + common + t.map_arguments;
  t.eval_arguments = "eval --json" + common;
  return t;
}

double hop_bytes_of(const std::string& eval_json) {
  const auto key = eval_json.find("\"hop_bytes\":");
  return key == std::string::npos ? -1.0 : std::stod(eval_json.substr(key + 12));
}

class PacosReference : public ::testing::TestWithParam<ReferenceCase> {};

TEST_P(PacosReference, OurCostIsAtMostTheReferenceCost) {
  const ReferenceCase& c = GetParam();
  const Translated t = translate(c.options);
  if (!std::filesystem::exists(t.matrix))
    GTEST_SKIP() << t.matrix << " is not in shared/data (only its reference)";
  TempDir dir;
  std::ofstream(dir.file("reference.perm"))
      << std::regex_replace(c.mapping, std::regex(","), "\n") << "\n";

  const CommandResult ours = run_treematch(t.map_arguments + " -o " + dir.file("ours.perm"), dir);
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  const CommandResult ours_cost =
      run_treematch(t.eval_arguments + " --mapping " + dir.file("ours.perm"), dir);
  const CommandResult reference_cost =
      run_treematch(t.eval_arguments + " --mapping " + dir.file("reference.perm"), dir);
  ASSERT_EQ(ours_cost.exit_code, 0) << ours_cost.err;
  ASSERT_EQ(reference_cost.exit_code, 0) << reference_cost.err;
  EXPECT_LE(hop_bytes_of(ours_cost.out), hop_bytes_of(reference_cost.out))
      << c.name << ": " << t.map_arguments;
  EXPECT_GT(hop_bytes_of(ours_cost.out), 0.0);
}

INSTANTIATE_TEST_SUITE_P(Examples, PacosReference, ::testing::ValuesIn(reference_cases()),
                         [](const ::testing::TestParamInfo<ReferenceCase>& param) {
                           return param.param.name;
                         });

}  // namespace
}  // namespace treematch::testing
