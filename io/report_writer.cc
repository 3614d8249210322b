// HTML, SVG and PNG rendering of a mapping report, and its atomic placement in a directory.
#include "io/report_writer.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "io/atomic_file.h"
#include "io/heat_map_image.h"
#include "io/html_escape.h"
#include "io/input_error.h"
#include "io/link_load_section.h"

namespace treematch::io {
namespace {

namespace fs = std::filesystem;

/// Displayed side of a heat map in CSS pixels; smaller grids are scaled up without smoothing.
constexpr int kMapPixels = 512;
/// At most this many nodes get boundary lines on the heat maps (a finer grid would hide cells).
constexpr Index kMaxBoundaryNodes = 16;
constexpr std::string_view kReferenceColour = "#8da0b6";
constexpr std::string_view kMappedColour = "#e6772e";

std::string hex(const Rgb& colour) {
  return fmt::format("#{:02x}{:02x}{:02x}", colour.red, colour.green, colour.blue);
}

/// A number for reading, with its exact value (as `treematch eval` prints it) on hover.
std::string number_cell(double value) {
  return fmt::format("<td class=\"num\" title=\"{:.17g}\">{:.6g}</td>", value, value);
}

std::string percent(double part, double whole) {
  return whole > 0.0 ? fmt::format("{:.1f}%", 100.0 * part / whole) : "-";
}

std::string fields_table(const std::vector<ReportField>& fields) {
  std::string html = "<table class=\"fields\">\n";
  for (const ReportField& field : fields) {
    html +=
        fmt::format("<tr><th>{}</th><td>{}</td></tr>\n", escape(field.name), escape(field.value));
  }
  return html + "</table>\n";
}

std::string topology_table(const MappingReport& report) {
  std::string html =
      "<table>\n<tr><th>depth</th><th>level</th><th class=\"num\">arity</th>"
      "<th class=\"num\">link cost</th><th class=\"num\">nodes</th><th></th></tr>\n";
  Index nodes = 1;
  html += "<tr><td>0</td><td>root</td><td></td><td></td><td class=\"num\">1</td><td>" +
          std::string(report.machine_level == 0 ? "one machine" : "") + "</td></tr>\n";
  for (std::size_t d = 0; d < report.levels.size(); ++d) {
    const TreeLevel& level = report.levels[d];
    nodes *= level.arity;
    const bool machine = static_cast<int>(d) + 1 == report.machine_level;
    html += fmt::format(
        "<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{:g}</td>"
        "<td class=\"num\">{}</td><td>{}</td></tr>\n",
        d + 1, escape(level.name), level.arity, level.link_cost, nodes,
        machine ? "machines" : (d + 1 == report.levels.size() ? "leaves (cores)" : ""));
  }
  return html + "</table>\n";
}

std::string seconds_table(const MappingReport& report) {
  std::string html = "<table>\n";
  for (const auto& [phase, seconds] : report.seconds) {
    html += fmt::format("<tr><th>{}</th><td class=\"num\">{:.3f} s</td></tr>\n", escape(phase),
                        seconds);
  }
  return html + "</table>\n";
}

std::string cost_table(const MappingReport& report) {
  std::string html =
      "<table class=\"costs\">\n<tr><th>mapping</th><th>what it is</th>"
      "<th class=\"num\">hop-bytes</th><th class=\"num\">weighted cost</th>"
      "<th class=\"num\">hop-bytes / ours</th><th class=\"num\">weighted / ours</th>"
      "<th class=\"num\">seconds</th></tr>\n";
  if (report.costs.empty()) return html + "</table>\n";
  const MappingCost& ours = report.costs.front().cost;
  double best = -1.0;
  for (const ReportCost& row : report.costs) {
    if (row.skipped.empty() && (best < 0.0 || row.cost.weighted < best)) best = row.cost.weighted;
  }
  const auto ratio = [](double value, double reference) {
    return reference > 0.0 ? fmt::format("{:.3f}", value / reference) : std::string("-");
  };
  for (const ReportCost& row : report.costs) {
    if (!row.skipped.empty()) {
      html += fmt::format(
          "<tr class=\"skipped\"><td>{}</td><td>{}</td><td colspan=\"5\">skipped: {}</td></tr>\n",
          escape(row.name), escape(row.description), escape(row.skipped));
      continue;
    }
    html += fmt::format(
        "<tr{}><td>{}</td><td>{}</td>{}{}<td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td><td class=\"num\">{:.3f}</td></tr>\n",
        row.cost.weighted == best ? " class=\"best\"" : "", escape(row.name),
        escape(row.description), number_cell(row.cost.hop_bytes), number_cell(row.cost.weighted),
        ratio(row.cost.hop_bytes, ours.hop_bytes), ratio(row.cost.weighted, ours.weighted),
        row.seconds);
  }
  return html + "</table>\n";
}

std::string traffic_label(const LevelTraffic& row) {
  if (row.height == 0) return "same leaf (" + row.meets_in + ")";
  return row.meets_in == "root" ? std::string("across the root") : "within one " + row.meets_in;
}

std::string traffic_table(const MappingReport& report) {
  double total = 0.0;
  for (const LevelTraffic& row : report.traffic) total += row.reference;
  std::string html = fmt::format(
      "<table class=\"traffic\">\n<tr><th>levels up</th><th>the two ranks meet</th>"
      "<th class=\"num\">nodes</th><th class=\"num\">hops</th>"
      "<th class=\"num\">link cost of the path</th><th class=\"num\">{0}</th><th "
      "class=\"num\">share</th><th class=\"num\">{1}</th><th class=\"num\">share</th></tr>\n",
      escape(report.reference_name), escape(report.mapped_name));
  for (const LevelTraffic& row : report.traffic) {
    html += fmt::format(
        "<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{:g}</td>{}<td class=\"num\">{}</td>{}<td class=\"num\">{}</td></tr>\n",
        row.height, escape(traffic_label(row)), row.nodes, row.hops, row.weighted_distance,
        number_cell(row.reference), percent(row.reference, total), number_cell(row.mapped),
        percent(row.mapped, total));
  }
  return html + "</table>\n";
}

/// Horizontal bars: per level, the share of the volume under each mapping.
std::string traffic_chart(const MappingReport& report) {
  double total = 0.0;
  for (const LevelTraffic& row : report.traffic) total += row.reference;
  constexpr int kLabel = 190;
  constexpr int kBars = 460;
  constexpr int kBar = 13;
  constexpr int kGroup = 2 * kBar + 12;
  constexpr int kTop = 34;
  const int height = kTop + static_cast<int>(report.traffic.size()) * kGroup + 26;
  const int width = kLabel + kBars + 70;
  std::string svg = fmt::format(
      "<svg class=\"chart\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "xmlns=\"http://www.w3.org/2000/svg\" font-size=\"12\">\n",
      width, height);
  // Legend.
  svg += fmt::format(
      "<rect x=\"{0}\" y=\"6\" width=\"12\" height=\"12\" fill=\"{1}\"/>"
      "<text x=\"{2}\" y=\"16\">{3}</text>\n"
      "<rect x=\"{4}\" y=\"6\" width=\"12\" height=\"12\" fill=\"{5}\"/>"
      "<text x=\"{6}\" y=\"16\">{7}</text>\n",
      kLabel, kReferenceColour, kLabel + 16, escape(report.reference_name), kLabel + 200,
      kMappedColour, kLabel + 216, escape(report.mapped_name));
  // Grid at 0, 25, 50, 75 and 100 % of the volume.
  const int bottom = height - 20;
  for (int tick = 0; tick <= 4; ++tick) {
    const double x = kLabel + kBars * tick / 4.0;
    svg += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#ddd\"/>"
        "<text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\" fill=\"#666\">{4}%</text>\n",
        x, kTop - 6, bottom, bottom + 14, tick * 25);
  }
  int y = kTop;
  for (const LevelTraffic& row : report.traffic) {
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", kLabel - 8,
                       y + kBar + 4, escape(traffic_label(row)));
    int bar_y = y;
    for (const auto& [volume, colour] :
         {std::pair{row.reference, kReferenceColour}, std::pair{row.mapped, kMappedColour}}) {
      const double share = total > 0.0 ? volume / total : 0.0;
      const double length = kBars * share;
      svg += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{:.2f}\" height=\"{}\" fill=\"{}\">"
          "<title>{:.6g} ({})</title></rect>"
          "<text x=\"{:.2f}\" y=\"{}\" fill=\"#333\">{}</text>\n",
          kLabel, bar_y, length, kBar, colour, volume, percent(volume, total), kLabel + length + 4,
          bar_y + kBar - 2, percent(volume, total));
      bar_y += kBar;
    }
    y += kGroup;
  }
  return svg + "</svg>\n";
}

/// Node boundaries drawn over the heat maps: those of the deepest level with 2 to
/// kMaxBoundaryNodes nodes. width = leaves per node (0 = no such level).
struct Boundaries {
  Index width = 0;
  std::string level;
};

Boundaries boundaries(const MappingReport& report) {
  Index leaves = 1;
  for (const TreeLevel& level : report.levels) leaves *= level.arity;
  Index nodes = 1;
  Boundaries found;
  for (const TreeLevel& level : report.levels) {
    nodes *= level.arity;
    if (nodes > kMaxBoundaryNodes) break;
    if (nodes >= 2) found = Boundaries{leaves / nodes, level.name};
  }
  return found;
}

std::string heat_map_figure(const BinnedMatrix& matrix, const LogColourScale& scale,
                            const std::string& axis, Index boundary, const std::string& caption) {
  constexpr int kLeft = 62;
  constexpr int kTop = 10;
  const int width = kLeft + kMapPixels + 28;  // room for the last tick label
  const int height = kTop + kMapPixels + 46;
  std::string svg = fmt::format(
      "<svg width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "xmlns=\"http://www.w3.org/2000/svg\" font-size=\"11\">\n",
      width, height);
  if (matrix.cells == 0) {
    return svg + "<text x=\"10\" y=\"20\">(no processes)</text></svg>\n";
  }
  const std::string png = encode_png(heat_map_pixels(matrix, scale), static_cast<int>(matrix.cells),
                                     static_cast<int>(matrix.cells));
  svg += fmt::format(
      "<image x=\"{0}\" y=\"{1}\" width=\"{2}\" height=\"{2}\" preserveAspectRatio=\"none\" "
      "style=\"image-rendering:pixelated\" href=\"data:image/png;base64,{3}\"/>\n",
      kLeft, kTop, kMapPixels, base64(png));
  svg += fmt::format(
      "<rect x=\"{0}\" y=\"{1}\" width=\"{2}\" height=\"{2}\" fill=\"none\" stroke=\"#999\"/>\n",
      kLeft, kTop, kMapPixels);
  // Indexes covered by the picture: whole cells, the last possibly past `order`.
  const double span = static_cast<double>(matrix.cells) * static_cast<double>(matrix.cell_width);
  const auto pixel = [&](double index) { return kMapPixels * index / span; };
  if (boundary > 0) {
    for (Index at = boundary; at < matrix.order; at += boundary) {
      const double p = pixel(static_cast<double>(at));
      svg += fmt::format(
          "<line x1=\"{0:.2f}\" y1=\"{1}\" x2=\"{0:.2f}\" y2=\"{2}\" class=\"boundary\"/>"
          "<line x1=\"{3}\" y1=\"{4:.2f}\" x2=\"{5}\" y2=\"{4:.2f}\" class=\"boundary\"/>\n",
          kLeft + p, kTop, kTop + kMapPixels, kLeft, kTop + p, kLeft + kMapPixels);
    }
  }
  for (int tick = 0; tick <= 4; ++tick) {
    const auto index = static_cast<Index>(std::llround(matrix.order * (tick / 4.0)));
    const double p = pixel(static_cast<double>(index));
    svg += fmt::format(
        "<line x1=\"{0:.2f}\" y1=\"{1}\" x2=\"{0:.2f}\" y2=\"{2}\" stroke=\"#666\"/>"
        "<text x=\"{0:.2f}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>"
        "<line x1=\"{5}\" y1=\"{6:.2f}\" x2=\"{7}\" y2=\"{6:.2f}\" stroke=\"#666\"/>"
        "<text x=\"{8}\" y=\"{9:.2f}\" text-anchor=\"end\">{4}</text>\n",
        kLeft + p, kTop + kMapPixels, kTop + kMapPixels + 5, kTop + kMapPixels + 17, index,
        kLeft - 5, kTop + p, kLeft, kLeft - 7, kTop + p + 4);
  }
  svg += fmt::format(
      "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>"
      "<text transform=\"translate(14 {}) rotate(-90)\" text-anchor=\"middle\">{}</text>\n",
      kLeft + kMapPixels / 2, kTop + kMapPixels + 36, escape(axis), kTop + kMapPixels / 2,
      escape(axis));
  svg += "</svg>\n";
  return "<figure>\n" + svg + "<figcaption>" + caption + "</figcaption>\n</figure>\n";
}

std::string binning_note(const BinnedMatrix& matrix, const std::string& unit) {
  if (matrix.cell_width == 1) {
    return fmt::format("{0} x {0} {1}s, one cell each", matrix.order, unit);
  }
  return fmt::format("{0} x {0} {1}s summed into {2} x {2} cells of {3} x {3} {1}s", matrix.order,
                     unit, matrix.cells, matrix.cell_width);
}

/// The colour bar with ticks at powers of ten, and the swatch of empty cells.
std::string legend(const LogColourScale& scale) {
  constexpr int kLeft = 110;
  constexpr int kWidth = 400;
  std::string svg =
      "<svg width=\"800\" height=\"48\" viewBox=\"0 0 800 48\" "
      "xmlns=\"http://www.w3.org/2000/svg\" font-size=\"11\">\n"
      "<defs><linearGradient id=\"ramp\" x1=\"0\" x2=\"1\" y1=\"0\" y2=\"0\">";
  for (int stop = 0; stop <= 20; ++stop) {
    const double at = stop / 20.0;
    svg += fmt::format("<stop offset=\"{:.2f}\" stop-color=\"{}\"/>", at,
                       hex(LogColourScale::colour_at(at)));
  }
  svg += "</linearGradient></defs>\n";
  svg += fmt::format(
      "<rect x=\"4\" y=\"6\" width=\"16\" height=\"14\" fill=\"{}\" stroke=\"#999\"/>"
      "<text x=\"24\" y=\"17\">no traffic</text>\n"
      "<rect x=\"{}\" y=\"6\" width=\"{}\" height=\"14\" fill=\"url(#ramp)\" stroke=\"#999\"/>\n",
      hex(kEmptyCell), kLeft, kWidth);
  const double low = scale.low();
  const double high = scale.high();
  const auto tick = [&](double x, const std::string& label) {
    return fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"20\" x2=\"{0:.1f}\" y2=\"25\" stroke=\"#666\"/>"
        "<text x=\"{0:.1f}\" y=\"37\" text-anchor=\"middle\">{1}</text>\n",
        x, label);
  };
  // The two ends with their values, powers of ten in between where they do not crowd the ends.
  svg += tick(kLeft, fmt::format("{:.3g}", low));
  if (high > low) {
    svg += tick(kLeft + kWidth, fmt::format("{:.3g}", high));
    const int first = static_cast<int>(std::ceil(std::log10(low)));
    const int last = static_cast<int>(std::floor(std::log10(high)));
    const int step = std::max(1, (last - first + 1 + 7) / 8);
    for (int e = first; e <= last; e += step) {
      const double x = kLeft + kWidth * scale.position(std::pow(10.0, e));
      if (x - kLeft >= 40.0 && kLeft + kWidth - x >= 40.0) svg += tick(x, fmt::format("1e{}", e));
    }
  }
  svg +=
      fmt::format("<text x=\"{}\" y=\"17\">{:.3g} to {:.3g} per cell (log scale)</text>\n</svg>\n",
                  kLeft + kWidth + 8, low, high);
  return svg;
}

std::string heat_maps(const MappingReport& report) {
  const LogColourScale scale = LogColourScale::spanning({&report.rank_order, &report.mapped_order});
  const Boundaries lines = boundaries(report);
  const Index boundary = lines.width;
  const std::string core_note = boundary > 0
                                    ? fmt::format(" Grey lines: {} boundaries, every {} cores.",
                                                  escape(lines.level), boundary)
                                    : std::string();
  std::string html = "<div class=\"maps\">\n";
  const Index rank_boundary = boundary * report.identity_ranks_per_leaf;
  const std::string rank_note =
      rank_boundary > 0
          ? fmt::format(" Grey lines: {} boundaries under the identity, every {} ranks.",
                        escape(lines.level), rank_boundary)
          : std::string();
  html += heat_map_figure(report.rank_order, scale, "rank", rank_boundary,
                          "<b>Rank order</b>: cell (i, j) = volume between ranks i and j. " +
                              escape(binning_note(report.rank_order, "rank")) + "." + rank_note);
  html +=
      heat_map_figure(report.mapped_order, scale, "core (logical index)", boundary,
                      "<b>Mapped order</b> (" + escape(report.mapped_name) +
                          "): cell (a, b) = volume between the ranks placed on cores a and b. " +
                          escape(binning_note(report.mapped_order, "core")) +
                          ". Traffic near the diagonal stays low in the tree." + core_note);
  html += "</div>\n" + legend(scale);
  return html;
}

constexpr std::string_view kStyle = R"(body{font-family:"DejaVu Sans",system-ui,sans-serif;
margin:24px auto;max-width:1280px;padding:0 16px;color:#222;font-size:14px}
h1{font-size:22px;margin-bottom:4px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ccc;
padding-bottom:3px}p.sub{color:#555;margin-top:0}
table{border-collapse:collapse;font-size:13px;margin:6px 0}
th,td{padding:3px 10px;border-bottom:1px solid #eee;text-align:left;vertical-align:top}
th{font-weight:600}.num{text-align:right;font-variant-numeric:tabular-nums}
table.fields th{color:#444;font-weight:normal}tr.best td{background:#fdf0dc;font-weight:600}
tr.skipped td{color:#888}.row{display:flex;gap:40px;flex-wrap:wrap;align-items:flex-start}
.maps{display:flex;gap:20px;flex-wrap:wrap}figure{margin:0}
figcaption{font-size:12px;color:#444;max-width:512px;margin-left:62px}
line.boundary{stroke:#5a7fa8;stroke-opacity:.45;stroke-width:1}
pre{font-size:12px;background:#f6f6f6;padding:8px}details{margin-top:8px}
)";

}  // namespace

std::string render_report_html(const MappingReport& report) {
  std::string html = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<title>treematch report: {0}</title>\n<style>\n{1}</style>\n</head>\n<body>\n"
      "<h1>TreeMatch mapping report</h1>\n<p class=\"sub\">{0}</p>\n",
      escape(report.title), kStyle);
  html += "<h2 id=\"inputs\">Inputs</h2>\n<div class=\"row\">\n<div>" +
          fields_table(report.inputs) + "</div>\n<div><b>Topology</b>, root first" +
          topology_table(report) + "</div>\n" + "<div><b>Run time</b>" + seconds_table(report) +
          "</div>\n</div>\n";
  html += "<h2 id=\"options\">Options</h2>\n" + fields_table(report.options) +
          "<details><summary>Effective settings</summary><pre>" + escape(report.context) +
          "</pre></details>\n";
  html +=
      "<h2 id=\"costs\">Cost against the baselines</h2>\n<p>Hop-bytes: volume x tree edges between "
      "the two "
      "cores; weighted cost: volume x the link costs on that path (the cost TreeMatch "
      "minimises). Ratios are to the first row; the cheapest weighted cost is highlighted.</p>\n" +
      cost_table(report);
  html +=
      "<h2 id=\"traffic\">Traffic crossing each level of the tree</h2>\n<p>Volume by where the "
      "paths of "
      "the two communicating ranks meet (their lowest common ancestor).</p>\n" +
      traffic_table(report) + traffic_chart(report);
  html += link_load_section(report);
  html +=
      "<h2 id=\"matrix\">Communication matrix</h2>\n<p>Both pictures share one logarithmic colour "
      "scale; " +
      std::string("a directed matrix C is drawn as (C + C<sup>T</sup>) / 2.</p>\n") +
      heat_maps(report);
  html += "</body>\n</html>\n";
  return html;
}

std::string report_directory_problem(const std::string& dir) {
  std::error_code error;
  const fs::path path(dir);
  if (dir.empty()) return "the report directory name is empty";
  const fs::file_status status = fs::status(path, error);
  if (fs::exists(status)) {
    return fs::is_directory(status) ? "" : "exists and is not a directory";
  }
  fs::path parent = path.lexically_normal().parent_path();
  if (!path.lexically_normal().has_filename()) parent = parent.parent_path();
  if (parent.empty()) parent = ".";
  if (!fs::is_directory(parent, error)) {
    return "the folder " + parent.string() + " that would hold it " +
           (fs::exists(parent, error) ? "is not a folder" : "does not exist");
  }
  return "";
}

void write_report_directory(const std::string& dir, const std::string& html) {
  if (const std::string problem = report_directory_problem(dir); !problem.empty()) {
    throw InputError(dir, problem);
  }
  fs::path target = fs::path(dir).lexically_normal();
  if (!target.has_filename()) target = target.parent_path();  // "out/" names "out"
  std::error_code error;
  if (fs::is_directory(target, error)) {
    write_file_atomically((target / "index.html").string(), html);
    return;
  }
  fs::path staging = target;
  staging += ".tmp." + std::to_string(::getpid());
  fs::remove_all(staging, error);
  if (!fs::create_directory(staging, error)) {
    throw InputError(dir, "cannot create " + staging.string() + ": " + error.message());
  }
  try {
    write_file_atomically((staging / "index.html").string(), html);
    fs::rename(staging, target);
  } catch (const std::exception& failure) {
    fs::remove_all(staging, error);  // best effort: the error that matters is the one reported
    throw InputError(dir, std::string("cannot write the report: ") + failure.what());
  }
}

}  // namespace treematch::io
