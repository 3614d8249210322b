// hdf5_read_tried_in_child: within a scope, one child per file and read, a refused file refused
// again at once, a rewritten file probed again; without a scope, a child every time.
#include "io/hdf5_probe.h"

#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "io/input_error.h"
#include "tests/test_support.h"

namespace treematch::io {
namespace {

namespace fs = std::filesystem;

/// A read that leaves `marker` behind, to see whether (and so where) it ran: the child's file
/// stays, a variable it sets does not.
std::function<void()> leaving(const std::string& marker) {
  return [marker] { std::ofstream(marker) << "ran"; };
}

TEST(Hdf5ReadTriedInChild, AReadThatPassedIsNotTriedAgainUntilTheFileChanges) {
  testing::TempDir dir;
  const Hdf5ProbeScope probes;
  const std::string file = dir.write("run.h5", "first version");
  const std::string marker = dir.file("marker");

  hdf5_read_tried_in_child(file, {"links:/size", "metadata:/size"}, "/size", leaving(marker));
  EXPECT_TRUE(fs::exists(marker));  // the child ran it

  fs::remove(marker);
  hdf5_read_tried_in_child(file, {"metadata:/size"}, "/size", leaving(marker));
  EXPECT_FALSE(fs::exists(marker));  // covered by the first probe

  hdf5_read_tried_in_child(file, {"metadata:/msg"}, "/msg", leaving(marker));
  EXPECT_TRUE(fs::exists(marker));  // not covered

  fs::remove(marker);
  dir.write("run.h5", "second, longer version");
  hdf5_read_tried_in_child(file, {"metadata:/size"}, "/size", leaving(marker));
  EXPECT_TRUE(fs::exists(marker));  // the file changed
}

TEST(Hdf5ReadTriedInChild, AFileRefusedOnceIsRefusedAgainAtOnce) {
  testing::TempDir dir;
  const Hdf5ProbeScope probes;
  const std::string file = dir.write("damaged.h5", "damaged");
  const std::string marker = dir.file("marker");
  try {
    hdf5_read_tried_in_child(file, {"links:/size"}, "the links to /size",
                             [] { std::raise(SIGSEGV); });
    FAIL() << "a crashing read was not refused";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).find(file + ": HDF5 crashed"), 0u) << e.what();
    EXPECT_NE(std::string(e.what()).find("reading the links to /size: the file is damaged"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(hdf5_read_tried_in_child(file, {"metadata:/msg"}, "/msg", leaving(marker)),
               InputError);
  EXPECT_FALSE(fs::exists(marker));  // refused without a child
}

TEST(Hdf5ReadTriedInChild, WithoutAScopeEveryReadIsTriedAndTheRecordIsGoneWithTheScope) {
  testing::TempDir dir;
  const std::string file = dir.write("run.h5", "content");
  const std::string marker = dir.file("marker");
  {
    const Hdf5ProbeScope outer;
    const Hdf5ProbeScope inner;  // shares the outer record
    hdf5_read_tried_in_child(file, {"links:/size"}, "/size", leaving(marker));
  }
  ASSERT_TRUE(fs::exists(marker));
  fs::remove(marker);
  hdf5_read_tried_in_child(file, {"links:/size"}, "/size", leaving(marker));
  EXPECT_TRUE(fs::exists(marker));  // no scope: tried again
  fs::remove(marker);
  hdf5_read_tried_in_child(file, {"links:/size"}, "/size", leaving(marker));
  EXPECT_TRUE(fs::exists(marker));
}

TEST(Hdf5ReadTriedInChild, AFileThatIsNotThereIsLeftToTheReader) {
  testing::TempDir dir;
  const std::string marker = dir.file("marker");
  EXPECT_NO_THROW(
      hdf5_read_tried_in_child(dir.file("missing.h5"), {"links:/size"}, "/size", leaving(marker)));
  EXPECT_FALSE(fs::exists(marker));
}

}  // namespace
}  // namespace treematch::io
