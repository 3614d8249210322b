// Tests of the SimGrid platform and hostfile: every host, router, link and route of a small tree,
// holes left out, and a model of the wrong size refused.
#include "io/simgrid_platform.h"

#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace treematch::io {
namespace {

std::size_t occurrences(const std::string& text, const std::string& word) {
  std::size_t count = 0;
  for (std::size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1))
    ++count;
  return count;
}

// 2 nodes x 2 cores; node links 1 GB/s and 1 us, core links free and 0 s.
Topology two_by_two(std::vector<Index> os = {0, 1, 2, 3}) {
  return Topology({TreeLevel{2, 10.0, "node"}, TreeLevel{2, 1.0, "core"}}, std::move(os));
}

LinkModel two_levels() {
  LinkModel model;
  model.links = {LinkSpec{1e9, 1e-6}, LinkSpec{}};
  model.name = "custom";
  return model;
}

TEST(SimgridPlatform, EveryVertexHasItsLinkUpAndItsRoute) {
  const std::string xml = simgrid_platform_xml(two_by_two(), two_levels(), 1e9);
  EXPECT_EQ(occurrences(xml, "<host "), 4u);
  EXPECT_EQ(occurrences(xml, "<router "), 3u);  // the root and the two nodes
  EXPECT_EQ(occurrences(xml, "<link "), 6u);    // two node links, four core links
  EXPECT_EQ(occurrences(xml, "<route "), 6u);
  EXPECT_NE(xml.find("<host id=\"h3\" speed=\"1000000000f\"/>"), std::string::npos);
  EXPECT_NE(xml.find("<link id=\"l1_1\" bandwidth=\"1000000000Bps\" latency=\"9.9999999999999995e-"
                     "07s\" sharing_policy=\"SPLITDUPLEX\"/>"),
            std::string::npos);
  // A free link gets kFreeLinkBandwidth: SimGrid has no infinite bandwidth.
  EXPECT_NE(xml.find("<link id=\"l2_3\" bandwidth=\"1000000000000000Bps\" latency=\"0s\""),
            std::string::npos);
  // Core 3 goes up to node 1, node 1 up to the root.
  EXPECT_NE(xml.find("<route src=\"h3\" dst=\"r1_1\"><link_ctn id=\"l2_3\" direction=\"UP\"/>"),
            std::string::npos);
  EXPECT_NE(xml.find("<route src=\"r1_1\" dst=\"r0_0\"><link_ctn id=\"l1_1\" direction=\"UP\"/>"),
            std::string::npos);
  EXPECT_NE(xml.find("routing=\"DijkstraCache\""), std::string::npos);
}

TEST(SimgridPlatform, AHoleHasNoHostAndNoRoute) {
  const std::string xml = simgrid_platform_xml(two_by_two({0, -1, 2, 3}), two_levels(), 1e9);
  EXPECT_EQ(occurrences(xml, "<host "), 3u);
  EXPECT_EQ(xml.find("\"h1\""), std::string::npos);
  EXPECT_EQ(occurrences(xml, "<route "), 5u);
}

TEST(SimgridPlatform, AModelOfAnotherDepthIsRefused) {
  LinkModel model = two_levels();
  model.links.pop_back();
  EXPECT_THROW((void)simgrid_platform_xml(two_by_two(), model, 1e9), std::invalid_argument);
}

TEST(SimgridPlatform, TheHostfileNamesEachRanksLeafInRankOrder) {
  EXPECT_EQ(simgrid_hostfile(Mapping{{3, 0, 2}}), "h3\nh0\nh2\n");
}

}  // namespace
}  // namespace treematch::io
