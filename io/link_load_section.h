// The report's section on link loads: a table per level and a picture where the hot links show.
#pragma once

#include <string>

#include "src/report/mapping_report.h"

namespace treematch::io {

/// The "Link loads" section (from its <h2> on) for the report's mapped row (the first) against
/// its "packed" row: per level the links' bandwidth and latency, each mapping's busiest link
/// (bytes and seconds) and hot links, the predicted time and congestion norm, and an SVG where
/// every level is two strips of cells (one per link, or the busiest of a run of links when the
/// level has more than kLinkPictureCells) coloured by time on one linear scale. "" when the rows
/// carry no link loads.
std::string link_load_section(const MappingReport& report);

}  // namespace treematch::io
