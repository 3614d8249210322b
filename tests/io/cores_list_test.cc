// Tests of the --cores parser: inline ranges, pacos *.bind files and the errors.
#include "io/cores_list.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "io/input_error.h"
#include "tests/io/input_error_expectation.h"

namespace treematch::io {
namespace {

using testing::input_error_of;

using kernels::Index;

std::string bind_dir() {
  const char* source = std::getenv("TM_SOURCE_DIR");
  return std::string(source != nullptr ? source : ".") +
         "/../shared/data/pacos/examples/binding_constraints/";
}

TEST(CoresListTest, InlineIdsAndRanges) {
  EXPECT_EQ(parse_cores_list("0-3,8,10-11", 64), (std::vector<Index>{0, 1, 2, 3, 8, 10, 11}));
  // Spaces anywhere between items, unsorted and repeated ids.
  EXPECT_EQ(parse_cores_list(" 10 - 11 , 8,0-3 ,3 ", 64),
            (std::vector<Index>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(parse_cores_list("5", 64), (std::vector<Index>{5}));
  EXPECT_EQ(parse_cores_list("7 3 5", 8), (std::vector<Index>{3, 5, 7}));
  EXPECT_EQ(parse_cores_list("4-4", 8), (std::vector<Index>{4}));
  EXPECT_EQ(parse_cores_list("0-63", 64).size(), 64U);
}

TEST(CoresListTest, PacosBindFiles) {
  // One line of whitespace-separated leaf ids, no count in front.
  EXPECT_EQ(parse_cores_list(bind_dir() + "8.bind", 16),
            (std::vector<Index>{0, 6, 7, 9, 11, 13, 14, 15}));

  const std::vector<Index> sixteen = parse_cores_list(bind_dir() + "16.bind", 36);
  ASSERT_EQ(sixteen.size(), 16U);
  EXPECT_EQ(sixteen.front(), 2);
  EXPECT_EQ(sixteen.back(), 35);

  const std::vector<Index> many = parse_cores_list(bind_dir() + "512.bind", 1024);
  ASSERT_EQ(many.size(), 512U);
  EXPECT_EQ(many.front(), 0);
  EXPECT_EQ(many.back(), 768);
  EXPECT_TRUE(std::adjacent_find(many.begin(), many.end()) == many.end());
}

TEST(CoresListTest, IdOutsideTheTopologyIsNamed) {
  EXPECT_EQ(input_error_of([] { (void)parse_cores_list("0-3,70", 64); }),
            "--cores: names leaf 70 but the topology has 64 leaves");
  EXPECT_EQ(input_error_of([] { (void)parse_cores_list("60-2000000000", 64); }),
            "--cores: names leaf 2000000000 but the topology has 64 leaves");
  EXPECT_EQ(input_error_of([] { (void)parse_cores_list("99999999999999999999", 64); }),
            "--cores: names leaf 99999999999999999999 but the topology has 64 leaves");
  // 512.bind targets a 1024-leaf machine; its first id is 512.
  const std::string file = bind_dir() + "512.bind";
  EXPECT_EQ(input_error_of([&] { (void)parse_cores_list(file, 512); }),
            file + ": names leaf 512 but the topology has 512 leaves");
}

TEST(CoresListTest, MalformedListsAreRejected) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"", "no leaf id given"},
      {"   ", "no leaf id given"},
      {"a", "expected a leaf id at position 0"},
      {"1,,2", "expected a leaf id at position 2"},
      {"1-", "expected a leaf id at position 2"},
      {"-1", "expected a leaf id at position 0"},
      {"1,2,", "the list ends with ','"},
      {"1;2", "unexpected ';' at position 1"},
      {"1.5", "unexpected '.' at position 1"},
      {"1-2-3", "unexpected '-' at position 3"},
      {"5-3", "reversed range 5-3; write 3-5"},
  };
  for (const auto& [spec, expected] : cases) {
    const std::string message = input_error_of([&] { (void)parse_cores_list(spec, 64); });
    EXPECT_EQ(message.rfind("--cores: ", 0), 0U) << "'" << spec << "' -> " << message;
    EXPECT_NE(message.find(expected), std::string::npos) << "'" << spec << "' -> " << message;
  }
}

TEST(CoresListTest, FilesAndMissingFiles) {
  std::string dir = (std::filesystem::temp_directory_path() / "tm_cores_test_XXXXXX").string();
  ASSERT_NE(mkdtemp(dir.data()), nullptr);
  const std::string good = dir + "/cores.bind";
  const std::string bad = dir + "/bad.bind";
  std::ofstream(good) << "3 1\n2,7-9\n";
  std::ofstream(bad) << "1 2 x\n";

  EXPECT_EQ(parse_cores_list(good, 16), (std::vector<Index>{1, 2, 3, 7, 8, 9}));
  const std::string message = input_error_of([&] { (void)parse_cores_list(bad, 16); });
  EXPECT_EQ(message.rfind(bad + ": ", 0), 0U) << message;
  EXPECT_NE(message.find("unexpected 'x'"), std::string::npos) << message;
  EXPECT_EQ(input_error_of([&] { (void)parse_cores_list(dir + "/none.bind", 16); }),
            dir + "/none.bind: no such file");
  EXPECT_EQ(input_error_of([] { (void)parse_cores_list("none.bind", 16); }),
            "none.bind: no such file");

  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
}

}  // namespace
}  // namespace treematch::io
