// HTML and SVG of the link loads of a mapping and of the identity.
#include "io/link_load_section.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "io/html_escape.h"

namespace treematch::io {
namespace {

constexpr int kLabelWidth = 170;
constexpr int kStripWidth = 768;
constexpr int kStripHeight = 14;

const ReportCost* row_named(const MappingReport& report, const std::string& name) {
  const auto found = std::find_if(report.costs.begin(), report.costs.end(),
                                  [&](const ReportCost& row) { return row.name == name; });
  return found == report.costs.end() || !found->links ? nullptr : &*found;
}

/// White (idle) to dark red (the busiest link of either mapping).
std::string heat_colour(double share) {
  const double s = std::clamp(share, 0.0, 1.0);
  const auto channel = [&](double idle, double hot) {
    return static_cast<int>(std::lround(idle + (hot - idle) * s));
  };
  return fmt::format("#{:02x}{:02x}{:02x}", channel(255, 165), channel(255, 15), channel(255, 21));
}

std::string level_table(const MappingReport& report, const ReportCost& mapped,
                        const ReportCost& reference) {
  std::string html = fmt::format(
      "<table>\n<tr><th>links of</th><th class=\"num\">links</th><th class=\"num\">bandwidth</th>"
      "<th class=\"num\">latency</th><th class=\"num\">{0}: busiest bytes</th>"
      "<th class=\"num\">seconds</th><th class=\"num\">hot</th><th class=\"num\">{1}: busiest "
      "bytes</th><th class=\"num\">seconds</th><th class=\"num\">hot</th></tr>\n",
      escape(reference.name), escape(mapped.name));
  for (std::size_t l = 0; l < mapped.links->levels.size(); ++l) {
    const LevelLinkLoad& ours = mapped.links->levels[l];
    const LevelLinkLoad& theirs = reference.links->levels[l];
    html += fmt::format(
        "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{:.3g} us</td><td class=\"num\">{:.6g}</td><td class=\"num\">{:.4g}</td>"
        "<td class=\"num\">{}</td><td class=\"num\">{:.6g}</td><td class=\"num\">{:.4g}</td>"
        "<td class=\"num\">{}</td></tr>\n",
        escape(level_name(report.levels, ours.depth)), ours.links,
        bandwidth_text(ours.spec.bandwidth), ours.spec.latency * 1e6, theirs.max_bytes,
        theirs.max_seconds, theirs.hot_links, ours.max_bytes, ours.max_seconds, ours.hot_links);
  }
  for (const auto& [label, field] :
       {std::pair{"predicted seconds", &LinkLoads::predicted_seconds},
        std::pair{"congestion norm (s)", &LinkLoads::congestion_norm}}) {
    html += fmt::format(
        "<tr class=\"best\"><td colspan=\"4\">{}</td><td colspan=\"3\" class=\"num\">{:.6g}</td>"
        "<td colspan=\"3\" class=\"num\">{:.6g}</td></tr>\n",
        label, (*reference.links).*field, (*mapped.links).*field);
  }
  return html + "</table>\n";
}

std::string strips(const MappingReport& report, const ReportCost& mapped,
                   const ReportCost& reference) {
  const double busiest =
      std::max(mapped.links->bottleneck_seconds, reference.links->bottleneck_seconds);
  const auto levels = static_cast<int>(mapped.links->levels.size());
  constexpr int kGroup = 2 * kStripHeight + 14;
  const int height = 24 + levels * kGroup;
  std::string svg = fmt::format(
      "<svg class=\"chart\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "xmlns=\"http://www.w3.org/2000/svg\" font-size=\"12\">\n"
      "<text x=\"{2}\" y=\"14\" fill=\"#555\">each cell: one link (or the busiest of a run of "
      "links), white idle, dark red {3:.4g} s</text>\n",
      kLabelWidth + kStripWidth + 10, height, kLabelWidth, busiest);
  int y = 24;
  for (int l = 0; l < levels; ++l) {
    svg += fmt::format(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", kLabelWidth - 8,
        y + kStripHeight + 4,
        escape(level_name(report.levels, mapped.links->levels[static_cast<std::size_t>(l)].depth)));
    int strip_y = y;
    for (const ReportCost* row : {&reference, &mapped}) {
      const LevelLinkLoad& level = row->links->levels[static_cast<std::size_t>(l)];
      const auto cells = static_cast<double>(level.picture_bytes.size());
      for (std::size_t c = 0; c < level.picture_bytes.size(); ++c) {
        const double seconds = level.picture_bytes[c] / level.spec.bandwidth;
        svg += fmt::format(
            "<rect x=\"{:.2f}\" y=\"{}\" width=\"{:.2f}\" height=\"{}\" fill=\"{}\">"
            "<title>{}: {:.6g} bytes, {:.4g} s</title></rect>\n",
            kLabelWidth + kStripWidth * static_cast<double>(c) / cells, strip_y,
            kStripWidth / cells, kStripHeight - 1,
            heat_colour(busiest > 0.0 ? seconds / busiest : 0.0), escape(row->name),
            level.picture_bytes[c], seconds);
      }
      svg +=
          fmt::format("<text x=\"{}\" y=\"{}\" fill=\"#555\" font-size=\"10\">{}</text>\n",
                      kLabelWidth + kStripWidth + 4, strip_y + kStripHeight - 3, escape(row->name));
      strip_y += kStripHeight;
    }
    y += kGroup;
  }
  return svg + "</svg>\n";
}

}  // namespace

std::string link_load_section(const MappingReport& report) {
  if (report.costs.empty() || !report.costs.front().links) return "";
  const ReportCost& mapped = report.costs.front();
  const ReportCost* reference = row_named(report, "packed");
  if (reference == nullptr) reference = &mapped;
  return "<h2 id=\"links\">Link loads</h2>\n<p>Bytes each link from a tree vertex to its parent "
         "carries in each direction (the matrix is made symmetric: a directed pair is charged "
         "the mean of its two directions), and its time at the link's bandwidth. Link model: " +
         escape(report.link_model) +
         ". A link is hot at 90% of the busiest link's time or more. Predicted time: the "
         "busiest link's time plus the latency of the longest path a message takes; congestion "
         "norm: the L8 norm of all links' times, which counts how many links are near the "
         "busiest.</p>\n" +
         level_table(report, mapped, *reference) + strips(report, mapped, *reference);
}

}  // namespace treematch::io
