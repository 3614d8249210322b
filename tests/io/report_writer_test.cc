// Tests of the report page: PNG and base64 encoding, the colour scale, the HTML and its placement.
#include "io/report_writer.h"

#include <png.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "io/heat_map_image.h"
#include "io/input_error.h"

namespace treematch::io {
namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Decodes a PNG with libpng's simplified API into RGB pixels.
std::vector<Rgb> decode_png(const std::string& bytes, int& width, int& height) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  EXPECT_NE(png_image_begin_read_from_memory(&image, bytes.data(), bytes.size()), 0)
      << image.message;
  image.format = PNG_FORMAT_RGB;
  std::vector<png_byte> raw(PNG_IMAGE_SIZE(image));
  EXPECT_NE(png_image_finish_read(&image, nullptr, raw.data(), 0, nullptr), 0) << image.message;
  width = static_cast<int>(image.width);
  height = static_cast<int>(image.height);
  std::vector<Rgb> pixels;
  for (std::size_t i = 0; i + 2 < raw.size(); i += 3)
    pixels.push_back({raw[i], raw[i + 1], raw[i + 2]});
  return pixels;
}

TEST(Base64, MatchesTheRfcExamples) {
  EXPECT_EQ(base64(""), "");
  EXPECT_EQ(base64("f"), "Zg==");
  EXPECT_EQ(base64("fo"), "Zm8=");
  EXPECT_EQ(base64("foo"), "Zm9v");
  EXPECT_EQ(base64("foob"), "Zm9vYg==");
  EXPECT_EQ(base64("fooba"), "Zm9vYmE=");
  EXPECT_EQ(base64("foobar"), "Zm9vYmFy");
  EXPECT_EQ(base64(std::string("\xff\x00\xfe", 3)), "/wD+");
}

TEST(EncodePng, RoundTripsThroughLibpng) {
  const std::vector<Rgb> pixels{{255, 0, 0}, {0, 255, 0},     {0, 0, 255},
                                {1, 2, 3},   {250, 251, 252}, {128, 64, 32}};
  const std::string png = encode_png(pixels, /*width=*/3, /*height=*/2);
  ASSERT_GT(png.size(), 8u);
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  int width = 0;
  int height = 0;
  EXPECT_EQ(decode_png(png, width, height), pixels);
  EXPECT_EQ(width, 3);
  EXPECT_EQ(height, 2);
  EXPECT_THROW(encode_png(pixels, 4, 2), std::invalid_argument);
  EXPECT_THROW(encode_png({}, 0, 0), std::invalid_argument);
}

TEST(LogColourScale, IsLogarithmicBetweenItsEnds) {
  const LogColourScale scale(/*low=*/10.0, /*high=*/1000.0);
  EXPECT_EQ(scale.position(10.0), 0.0);
  EXPECT_EQ(scale.position(1000.0), 1.0);
  EXPECT_NEAR(scale.position(100.0), 0.5, 1e-12);
  EXPECT_EQ(scale.position(1.0), 0.0);  // clamped
  EXPECT_EQ(scale.colour(0.0), kEmptyCell);
  EXPECT_EQ(scale.colour(10.0), LogColourScale::colour_at(0.0));
  EXPECT_EQ(scale.colour(1e6), LogColourScale::colour_at(1.0));
  EXPECT_NE(LogColourScale::colour_at(0.0), kEmptyCell);
  EXPECT_THROW(LogColourScale(0.0, 1.0), std::invalid_argument);
  EXPECT_THROW(LogColourScale(2.0, 1.0), std::invalid_argument);
  // The darker end is darker: the sum of channels falls along the ramp.
  const auto lightness = [](const Rgb& c) { return c.red + c.green + c.blue; };
  for (int step = 1; step <= 10; ++step) {
    EXPECT_LT(lightness(LogColourScale::colour_at(step / 10.0)),
              lightness(LogColourScale::colour_at((step - 1) / 10.0)));
  }
}

TEST(LogColourScale, SpansThePositiveCellsOfEveryMatrix) {
  BinnedMatrix a{/*order=*/2, /*cell_width=*/1, /*cells=*/2, {0, 4, 4, 0}};
  BinnedMatrix b{2, 1, 2, {8, 0.5, 0.5, 0}};
  const LogColourScale scale = LogColourScale::spanning({&a, &b});
  EXPECT_EQ(scale.low(), 0.5);
  EXPECT_EQ(scale.high(), 8.0);
  BinnedMatrix zero{2, 1, 2, {0, 0, 0, 0}};
  EXPECT_EQ(LogColourScale::spanning({&zero}).high(), 1.0);
}

TEST(HeatMapPixels, OnePixelPerCellRowMajor) {
  const BinnedMatrix matrix{2, 1, 2, {0, 1, 100, 10}};
  const std::vector<Rgb> pixels = heat_map_pixels(matrix, LogColourScale(1.0, 100.0));
  ASSERT_EQ(pixels.size(), 4u);
  EXPECT_EQ(pixels[0], kEmptyCell);
  EXPECT_EQ(pixels[1], LogColourScale::colour_at(0.0));
  EXPECT_EQ(pixels[2], LogColourScale::colour_at(1.0));
  EXPECT_EQ(pixels[3], LogColourScale::colour_at(0.5));
}

MappingReport small_report() {
  MappingReport report;
  report.title = "m<1>.mat & co";
  report.inputs = {{"matrix", "m<1>.mat"}};
  report.levels = {TreeLevel{2, 10.0, "Package"}, TreeLevel{2, 1.0, "Core"}};
  report.costs = {ReportCost{"treematch", "ours", {12.5, 0.1 + 0.2}, 0.01, "", std::nullopt},
                  ReportCost{"MPIPP.5", "swaps", {}, 0.0, "over budget", std::nullopt}};
  report.reference_name = "identity (packed)";
  report.mapped_name = "treematch";
  report.traffic = {LevelTraffic{0, "Core", 4, 0, 0.0, 0.0, 0.0},
                    LevelTraffic{1, "Package", 2, 2, 2.0, 10.0, 14.0},
                    LevelTraffic{2, "root", 1, 4, 22.0, 14.0, 10.0}};
  report.rank_order = BinnedMatrix{4, 1, 4, std::vector<double>(16, 1.0)};
  report.mapped_order = BinnedMatrix{4, 1, 4, std::vector<double>(16, 2.0)};
  return report;
}

TEST(RenderReportHtml, HoldsEveryPartWithExactCostsAndEscapedText) {
  const std::string html = render_report_html(small_report());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("</html>"), std::string::npos);
  // Exact costs as `treematch eval` prints them ("%.17g"), beside the rounded ones.
  EXPECT_NE(html.find(fmt::format("title=\"{:.17g}\"", 12.5)), std::string::npos);
  EXPECT_NE(html.find(fmt::format("title=\"{:.17g}\"", 0.1 + 0.2)), std::string::npos);
  EXPECT_NE(html.find("skipped: over budget"), std::string::npos);
  EXPECT_NE(html.find("m&lt;1&gt;.mat &amp; co"), std::string::npos);
  EXPECT_EQ(html.find("m<1>"), std::string::npos);
  EXPECT_NE(html.find("within one Package"), std::string::npos);
  EXPECT_NE(html.find("across the root"), std::string::npos);
  // Self-contained: two heat maps inline, nothing fetched.
  std::size_t images = 0;
  for (std::size_t at = html.find("data:image/png;base64,"); at != std::string::npos;
       at = html.find("data:image/png;base64,", at + 1)) {
    ++images;
  }
  EXPECT_EQ(images, 2u);
  EXPECT_EQ(html.find("src=\"http"), std::string::npos);
  EXPECT_EQ(html.find("href=\"http"), std::string::npos);
}

TEST(RenderReportHtml, LinkLoadsShowPerLevelWithTheHotLinks) {
  // Arrange: the identity loads both Package links with 8 bytes at 1 B/s; treematch one Core
  // link with 3 bytes (of the four), hot against the busiest link of both, 8 s.
  MappingReport report = small_report();
  const LinkSpec slow{1.0, 1e-6};
  auto level = [&](int depth, Index links, double max, std::vector<double> picture) {
    return LevelLinkLoad{depth, links, slow, max, max, max, 0, std::move(picture)};
  };
  LinkLoads packed{{level(1, 2, 8.0, {8, 8}), level(2, 4, 0.0, {0, 0, 0, 0})},
                   8.0,
                   1,
                   4e-6,
                   8.0 * std::pow(4.0, 1.0 / 8),
                   12.000004};
  LinkLoads ours{{level(1, 2, 0.0, {0, 0}), level(2, 4, 3.0, {3, 0, 0, 0})},
                 3.0,
                 2,
                 2e-6,
                 3.0 * std::pow(2.0, 1.0 / 8),
                 3.000002};
  report.costs = {ReportCost{"treematch", "ours", {12.5, 0.3}, 0.01, "", ours},
                  ReportCost{"packed", "identity", {20, 1.0}, 0.0, "", packed}};
  report.link_model = "custom, bottom-up: 1e-09 GB/s 1 us | 1e-09 GB/s 1 us";

  // Act
  const std::string html = render_report_html(report);

  // Assert: the section, both predictions, and a cell at the full colour (the identity's
  // Package links) and an idle one.
  EXPECT_NE(html.find("<h2 id=\"links\">Link loads</h2>"), std::string::npos);
  EXPECT_NE(html.find("custom, bottom-up"), std::string::npos);
  EXPECT_NE(html.find("<td colspan=\"3\" class=\"num\">12</td><td colspan=\"3\" "
                      "class=\"num\">3</td>"),
            std::string::npos);
  EXPECT_NE(html.find("fill=\"#a50f15\"><title>packed: 8 bytes"), std::string::npos);
  EXPECT_NE(html.find("fill=\"#ffffff\"><title>treematch: 0 bytes"), std::string::npos);
}

TEST(RenderReportHtml, NoLinkSectionWithoutLinkLoads) {
  EXPECT_EQ(render_report_html(small_report()).find("id=\"links\""), std::string::npos);
}

/// A fresh empty directory per test, removed afterwards.
class ReportDirectoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    root_ = fs::temp_directory_path() /
            ("tm_report_" + std::to_string(::getpid()) + "_" + std::string(info->name()));
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  [[nodiscard]] std::vector<std::string> entries(const fs::path& dir) const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir))
      names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

  fs::path root_;
};

TEST_F(ReportDirectoryTest, NewDirectoryAppearsWholeWithNothingLeftOver) {
  write_report_directory((root_ / "report").string(), "<html>one</html>");
  EXPECT_EQ(read_text(root_ / "report" / "index.html"), "<html>one</html>");
  EXPECT_EQ(entries(root_), std::vector<std::string>{"report"});
  EXPECT_EQ(entries(root_ / "report"), std::vector<std::string>{"index.html"});
}

TEST_F(ReportDirectoryTest, ExistingDirectoryGetsItsPageReplacedOthersKept) {
  fs::create_directories(root_ / "report");
  std::ofstream(root_ / "report" / "notes.txt") << "mine";
  std::ofstream(root_ / "report" / "index.html") << "old";
  write_report_directory((root_ / "report/").string(), "new");
  EXPECT_EQ(read_text(root_ / "report" / "index.html"), "new");
  EXPECT_EQ(entries(root_ / "report"), (std::vector<std::string>{"index.html", "notes.txt"}));
}

TEST_F(ReportDirectoryTest, MissingParentOrAFileInTheWayIsAnInputErrorAndCreatesNothing) {
  const std::string nested = (root_ / "missing" / "report").string();
  EXPECT_NE(report_directory_problem(nested), "");
  EXPECT_THROW(write_report_directory(nested, "x"), InputError);
  std::ofstream(root_ / "file") << "x";
  EXPECT_NE(report_directory_problem((root_ / "file").string()), "");
  EXPECT_THROW(write_report_directory((root_ / "file").string(), "x"), InputError);
  EXPECT_EQ(entries(root_), std::vector<std::string>{"file"});
  EXPECT_EQ(report_directory_problem((root_ / "new").string()), "");
  EXPECT_EQ(report_directory_problem(root_.string()), "");
}

}  // namespace
}  // namespace treematch::io
