// End-to-end tests of `treematch map --report DIR`: the page's costs are eval's, failures leave
// none.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/apps/run_command.h"

namespace treematch::testing {
namespace {

namespace fs = std::filesystem;

/// The "hop-bytes X" and "weighted Y" lines of `treematch eval` (text form), as printed.
std::vector<std::string> eval_costs(const std::string& perm, const TempDir& dir) {
  const CommandResult eval = run_treematch(
      "eval -m " + quote(clover128()) + " -t " + quote(kClusterOf128) + " --mapping " + perm, dir);
  EXPECT_EQ(eval.exit_code, 0) << eval.err;
  std::istringstream lines(eval.out);
  std::string name;
  std::string hop_bytes;
  std::string weighted;
  lines >> name >> hop_bytes >> name >> weighted;
  return {hop_bytes, weighted};
}

std::vector<std::string> entries(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(CliReport, CostRowsCarryTheNumbersEvalPrints) {
  TempDir dir;
  fs::create_directory(dir.path() / "out");
  const std::string perm = dir.file("out/ours.perm");
  const std::string report = dir.file("out/report");
  const CommandResult run =
      run_treematch("map -m " + quote(clover128()) + " -t " + quote(kClusterOf128) + " -o " + perm +
                        " --report " + report,
                    dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("report " + report + "/index.html written"), std::string::npos) << run.err;
  // Only the page, nothing left over from the atomic write.
  EXPECT_EQ(entries(dir.path() / "out"), (std::vector<std::string>{"ours.perm", "report"}));
  EXPECT_EQ(entries(report), std::vector<std::string>{"index.html"});
  const std::string html = read_text(fs::path(report) / "index.html");

  // TreeMatch's row: the costs eval computes for the mapping written with -o.
  for (const std::string& cost : eval_costs(perm, dir)) {
    EXPECT_NE(html.find("title=\"" + cost + "\""), std::string::npos) << cost;
  }
  // The packed row is the identity: rank i on core i.
  std::ofstream identity(dir.file("identity.perm"));
  for (int rank = 0; rank < 128; ++rank) identity << rank << '\n';
  identity.close();
  for (const std::string& cost : eval_costs(dir.file("identity.perm"), dir)) {
    EXPECT_NE(html.find("title=\"" + cost + "\""), std::string::npos) << cost;
  }
  // Every baseline of --compare, the traffic per level and both heat maps.
  for (const char* name : {">packed<", ">round-robin<", ">random<", ">MPIPP.1<", ">MPIPP.5<",
                           "within one level 1", "across the root", "Rank order", "Mapped order"}) {
    EXPECT_NE(html.find(name), std::string::npos) << name;
  }
}

TEST(CliReport, FailingRunCreatesNoReportDirectory) {
  TempDir dir;
  const std::string report = dir.file("report");
  // Unreadable matrix.
  CommandResult run = run_treematch(
      "map -m " + dir.file("missing.mat") + " -t " + quote(kClusterOf128) + " --report " + report,
      dir);
  EXPECT_NE(run.exit_code, 0);
  EXPECT_FALSE(fs::exists(report));
  // 128 processes on 16 cores.
  run = run_treematch("map -m " + quote(clover128()) + " -t 'tleaf 2 4 10 4 1' --report " + report,
                      dir);
  EXPECT_NE(run.exit_code, 0);
  EXPECT_FALSE(fs::exists(report));
  // A report folder whose parent is missing is refused before any work.
  run = run_treematch("map -m " + quote(clover128()) + " -t " + quote(kClusterOf128) +
                          " --report " + dir.file("missing/report"),
                      dir);
  EXPECT_NE(run.exit_code, 0);
  EXPECT_NE(run.err.find("does not exist"), std::string::npos) << run.err;
  EXPECT_FALSE(fs::exists(dir.file("missing")));
  EXPECT_EQ(entries(dir.path()), (std::vector<std::string>{"stderr.txt", "stdout.txt"}));
}

}  // namespace
}  // namespace treematch::testing
