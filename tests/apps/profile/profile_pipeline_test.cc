// End to end: comm_pattern (known traffic, comm_pattern.h) at 4 ranks under libtreematch-profile.so
// (preloaded, and linked) and under Open MPI's monitoring; the matrices compared entry by entry,
// then mapped by `treematch map`.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "io/matrix_hdf5_reader.h"
#include "tests/apps/profile/comm_pattern.h"
#include "tests/apps/run_command.h"

namespace treematch::testing {
namespace {

namespace fs = std::filesystem;
using Dense = std::vector<std::vector<double>>;

constexpr int kRanks = 4;

/// Runs `mpiexec -n 4 ... <program> <arguments>` in `cwd` with `exports` ("--env NAME=VALUE ...",
/// in the words of TM_MPIEXEC, the launcher-neutral wrapper of cmake/TmTesting.cmake).
CommandResult run_mpi(const std::string& exports, const std::string& program,
                      const std::string& arguments, const TempDir& scratch,
                      const std::string& cwd) {
  const std::string out = scratch.file("mpi-stdout.txt");
  const std::string err = scratch.file("mpi-stderr.txt");
  const std::string command = "cd " + quote(cwd) + " && " + TM_MPIEXEC + " " + exports + " -n " +
                              std::to_string(kRanks) + " " + quote(program) + " " + arguments;
  return run_shell(command, out, err);
}

/// The matrix `object` of an HDF5 file as a dense kRanks x kRanks array (diagonal dropped).
Dense read_dense(const std::string& path, const std::string& object) {
  const kernels::Csr rows = io::read_hdf5_matrix_rows(path, object);
  EXPECT_EQ(rows.n, kRanks) << path << ":" << object;
  Dense dense(kRanks, std::vector<double>(kRanks, 0.0));
  for (kernels::Index i = 0; i < rows.n && i < kRanks; ++i) {
    for (auto e = rows.offsets[i]; e < rows.offsets[i + 1]; ++e)
      dense[i][rows.targets[e]] = rows.weights[e];
  }
  return dense;
}

/// One class of the expected traffic, in bytes or messages, diagonal dropped.
Dense expected_dense(pattern::ClassTraffic traffic, bool bytes) {
  Dense dense(kRanks, std::vector<double>(kRanks, 0.0));
  for (int i = 0; i < kRanks; ++i) {
    for (int j = 0; j < kRanks; ++j) {
      if (i == j) continue;
      const pattern::Cell& cell = traffic.at(i, j);
      dense[i][j] = static_cast<double>(bytes ? cell.bytes : cell.messages);
    }
  }
  return dense;
}

Dense sum(const Dense& a, const Dense& b) {
  Dense s = a;
  for (std::size_t i = 0; i < s.size(); ++i)
    for (std::size_t j = 0; j < s.size(); ++j) s[i][j] += b[i][j];
  return s;
}

/// Compares entry by entry, naming the first entries that differ.
void expect_same(const Dense& actual, const Dense& expected, const std::string& what) {
  for (int i = 0; i < kRanks; ++i) {
    for (int j = 0; j < kRanks; ++j) {
      EXPECT_EQ(actual[i][j], expected[i][j]) << what << " entry [" << i << "][" << j << "]";
    }
  }
}

/// Every object of a profile against comm_pattern's traffic.
void expect_profile_of_pattern(const std::string& path, const pattern::Traffic& traffic) {
  const auto check = [&](const std::string& group, const Dense& bytes, const Dense& messages) {
    expect_same(read_dense(path, group + "/size"), bytes, group + "/size");
    expect_same(read_dense(path, group + "/msg"), messages, group + "/msg");
  };
  const Dense p2p_bytes = expected_dense(traffic.p2p, true);
  const Dense coll_bytes = expected_dense(traffic.collective, true);
  const Dense os_bytes = expected_dense(traffic.onesided, true);
  const Dense p2p_msgs = expected_dense(traffic.p2p, false);
  const Dense coll_msgs = expected_dense(traffic.collective, false);
  const Dense os_msgs = expected_dense(traffic.onesided, false);
  check("/p2p", p2p_bytes, p2p_msgs);
  check("/collective", coll_bytes, coll_msgs);
  check("/onesided", os_bytes, os_msgs);
  check("", sum(sum(p2p_bytes, coll_bytes), os_bytes), sum(sum(p2p_msgs, coll_msgs), os_msgs));
}

std::vector<std::string> temporaries_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.find(".tmp") != std::string::npos) names.push_back(name);
  }
  return names;
}

/// LD_PRELOAD: the library (after the ASan runtime in sanitized builds, see CMakeLists.txt).
std::string preload_exports(const std::string& output) {
  return std::string("--env LD_PRELOAD=") + quote(TM_PROFILE_PRELOAD) +
         (output.empty() ? "" : " --env TREEMATCH_PROFILE_OUT=" + quote(output));
}

/// One preloaded run of the whole pattern, shared by the tests that read its profile.
class ProfilePipeline : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    scratch_ = std::make_unique<TempDir>();
    profile_ = scratch_->file("pattern.h5");
    run_ = std::make_unique<CommandResult>(run_mpi(preload_exports(profile_), TM_COMM_PATTERN,
                                                   "--pcontrol-phase", *scratch_,
                                                   scratch_->path().string()));
  }
  static void TearDownTestSuite() {
    run_.reset();
    scratch_.reset();
  }

  void SetUp() override {
    ASSERT_EQ(run_->exit_code, 0) << run_->err;
    ASSERT_TRUE(fs::exists(profile_)) << run_->err;
  }

  static std::unique_ptr<TempDir> scratch_;
  static std::string profile_;
  static std::unique_ptr<CommandResult> run_;
};

std::unique_ptr<TempDir> ProfilePipeline::scratch_;
std::string ProfilePipeline::profile_;
std::unique_ptr<CommandResult> ProfilePipeline::run_;

TEST_F(ProfilePipeline, PreloadedLibraryRecordsEveryClassAsTheProgramSentIt) {
  // The phase between MPI_Pcontrol(0) and MPI_Pcontrol(1) is not in the expected traffic.
  expect_profile_of_pattern(profile_, pattern::expected_traffic(kRanks, /*onesided=*/true));
  EXPECT_NE(run_->out.find("comm_pattern: 4 ranks done"), std::string::npos);
  EXPECT_EQ(run_->err.find("treematch-profile"), std::string::npos) << run_->err;
  EXPECT_TRUE(temporaries_in(scratch_->path()).empty());
}

TEST_F(ProfilePipeline, MonitoringPointToPointEqualsTheProfile) {
  // The same point-to-point traffic, in the form Open MPI's monitoring sees it all (comm_pattern
  // --for-monitoring), recorded by the monitoring and imported by `treematch convert`.
  if (std::string_view(TM_MPI_FLAVOUR) != "openmpi") {
    GTEST_SKIP() << "Open MPI's monitoring component; this build is for " << TM_MPI_FLAVOUR;
  }
  const TempDir monitored;
  const std::string exports =
      "--mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3 "
      "--mca pml_monitoring_filename " +
      quote(monitored.file("prof"));
  // Without the one-sided part: where Open MPI runs RMA over point-to-point messages (osc pt2pt,
  // no shared-memory or RDMA window), the monitoring would count it in E as well.
  const CommandResult run = run_mpi(exports, TM_COMM_PATTERN, "--for-monitoring --no-onesided",
                                    monitored, monitored.path().string());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  ASSERT_TRUE(fs::exists(monitored.file("prof.0.prof"))) << run.err;
  const std::string imported = monitored.file("monitoring.h5");
  const CommandResult convert = run_treematch(
      "convert --from ompi-monitoring " + quote(monitored.path().string()) + " " + quote(imported),
      monitored);
  ASSERT_EQ(convert.exit_code, 0) << convert.err;
  // External traffic (E lines: tags >= 0) is the application's point-to-point traffic.
  expect_same(read_dense(imported, "/external/size"), read_dense(profile_, "/p2p/size"),
              "monitoring E bytes vs profile /p2p/size");
  expect_same(read_dense(imported, "/external/msg"), read_dense(profile_, "/p2p/msg"),
              "monitoring E messages vs profile /p2p/msg");
}

/// `treematch map ARGS` prints a permutation of the kRanks cores of "pack:2 core:2 pu:1".
void expect_maps_to_permutation(const std::string& matrix, const std::string& extra) {
  const TempDir scratch;
  const CommandResult map = run_treematch(
      "map --matrix " + quote(matrix) + " --topology 'pack:2 core:2 pu:1' " + extra, scratch);
  ASSERT_EQ(map.exit_code, 0) << map.err;
  std::istringstream lines(map.out);
  std::vector<int> cores;
  for (int core = 0; lines >> core;) cores.push_back(core);
  ASSERT_EQ(cores.size(), static_cast<std::size_t>(kRanks)) << map.out;
  EXPECT_EQ(std::set<int>(cores.begin(), cores.end()), (std::set<int>{0, 1, 2, 3})) << map.out;
}

TEST_F(ProfilePipeline, TheProfileMapsToAPermutation) {
  expect_maps_to_permutation(profile_, "");              // /size + /msg: every class
  expect_maps_to_permutation(profile_, "--metric msg");  // message counts
  expect_maps_to_permutation(profile_ + ":/p2p", "");    // one class, by the selector
}

TEST(ProfileLibrary, LinkedBeforeLibmpiItWritesTheDefaultFileInTheWorkingDirectory) {
  const TempDir scratch;
  const CommandResult run =
      run_mpi("", TM_COMM_PATTERN_LINKED, "", scratch, scratch.path().string());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::string profile = scratch.file("treematch-profile.h5");
  ASSERT_TRUE(fs::exists(profile)) << run.err;
  expect_profile_of_pattern(profile, pattern::expected_traffic(kRanks, /*onesided=*/true));
}

TEST(ProfileLibrary, UnderThreadMultipleTheAtomicCountersGiveTheSameProfile) {
  const TempDir scratch;
  const std::string profile = scratch.file("multiple.h5");
  const CommandResult run = run_mpi(preload_exports(profile), TM_COMM_PATTERN, "--thread-multiple",
                                    scratch, scratch.path().string());
  if (run.err.find("MPI_THREAD_MULTIPLE not granted") != std::string::npos) {
    GTEST_SKIP() << "this MPI does not grant MPI_THREAD_MULTIPLE: " << run.err;
  }
  ASSERT_EQ(run.exit_code, 0) << run.err;
  expect_profile_of_pattern(profile, pattern::expected_traffic(kRanks, /*onesided=*/true));
}

TEST(ProfileLibrary, StartOffCountsNothingWithoutPcontrol) {
  const TempDir scratch;
  const std::string profile = scratch.file("off.h5");
  const CommandResult run =
      run_mpi(preload_exports(profile) + " --env TREEMATCH_PROFILE_START=off", TM_COMM_PATTERN,
              "--no-onesided", scratch, scratch.path().string());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  for (const char* object : {"/size", "/msg", "/p2p/size", "/collective/msg", "/onesided/size"}) {
    const kernels::Csr rows = io::read_hdf5_matrix_rows(profile, object);
    EXPECT_EQ(rows.n, kRanks) << object;
    EXPECT_TRUE(rows.targets.empty()) << object;
  }
}

TEST(ProfileLibrary, PcontrolLevelsGiveOneMatrixPerPhase) {
  // Level 1 from MPI_Init to the iterations (nothing sent) and again for a moment after the
  // uncounted phase, level 2 the iterations, level 3 the rest. Without the one-sided part: the
  // replies of MPI_Get reach their sender's row only at MPI_Finalize, in the totals alone.
  const TempDir scratch;
  const std::string profile = scratch.file("phases.h5");
  const CommandResult run =
      run_mpi(preload_exports(profile), TM_COMM_PATTERN,
              "--no-onesided --pcontrol-phase --pcontrol-levels", scratch, scratch.path().string());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto all_classes = [](const pattern::Traffic& t, bool bytes) {
    return sum(sum(expected_dense(t.p2p, bytes), expected_dense(t.collective, bytes)),
               expected_dense(t.onesided, bytes));
  };
  const pattern::Traffic iterations =
      pattern::expected_traffic(kRanks, /*onesided=*/false, pattern::Part::kIterationsOnly);
  const pattern::Traffic once =
      pattern::expected_traffic(kRanks, /*onesided=*/false, pattern::Part::kOnceOnly);
  const Dense nothing(kRanks, std::vector<double>(kRanks, 0.0));
  for (const bool bytes : {true, false}) {
    const std::string metric = bytes ? "/size" : "/msg";
    expect_same(read_dense(profile, "/phase/pcontrol_1" + metric), nothing, "level 1" + metric);
    expect_same(read_dense(profile, "/phase/pcontrol_2" + metric), all_classes(iterations, bytes),
                "level 2" + metric);
    expect_same(read_dense(profile, "/phase/pcontrol_3" + metric), all_classes(once, bytes),
                "level 3" + metric);
  }
  // The totals are unchanged by the phases, and a phase maps like any matrix.
  expect_profile_of_pattern(profile, pattern::expected_traffic(kRanks, /*onesided=*/false));
  expect_maps_to_permutation(profile + ":/phase/pcontrol_2", "");
}

TEST(ProfileLibrary, WithoutPcontrolLevelsNoPhaseIsWritten) {
  const TempDir scratch;
  const std::string profile = scratch.file("plain.h5");
  const CommandResult run =
      run_mpi(preload_exports(profile), TM_COMM_PATTERN, "--no-onesided --pcontrol-phase", scratch,
              scratch.path().string());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_FALSE(io::hdf5_has_object(profile, "/phase"));
}

TEST(ProfileLibrary, AnUnwritableOutputCostsOneLineNotTheRun) {
  const TempDir scratch;
  const std::string profile = scratch.file("missing/pattern.h5");
  const CommandResult run = run_mpi(preload_exports(profile), TM_COMM_PATTERN, "--no-onesided",
                                    scratch, scratch.path().string());
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("comm_pattern: 4 ranks done"), std::string::npos);
  std::size_t reports = 0;
  for (auto at = run.err.find("treematch-profile:"); at != std::string::npos;
       at = run.err.find("treematch-profile:", at + 1)) {
    ++reports;
  }
  EXPECT_EQ(reports, 1u) << "one line for the failure, not one per rank: " << run.err;
  EXPECT_NE(run.err.find("treematch-profile: no profile written to " + profile), std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("H5Fcreate"), std::string::npos) << run.err;
  EXPECT_FALSE(fs::exists(profile));
}

}  // namespace
}  // namespace treematch::testing
