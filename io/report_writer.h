// The `treematch map --report` page: one self-contained HTML file, written atomically.
#pragma once

#include <string>

#include "src/report/mapping_report.h"

namespace treematch::io {

/// The report as one HTML page that needs nothing else (for mailing): inline CSS, the per-level
/// traffic as an inline SVG bar chart, the two heat maps as PNG data: URIs drawn on one shared
/// log colour scale with its legend. Every cost appears rounded for reading with the exact value
/// ("%.17g", as `treematch eval` prints it) in the cell's title attribute.
std::string render_report_html(const MappingReport& report);

/// What stops `dir` from receiving a report, or "" if nothing does: it exists and is not a
/// directory, or the folder that would hold it does not exist. Cheap: for checking the option
/// before a long run.
std::string report_directory_problem(const std::string& dir);

/// Writes `html` as DIR/index.html without ever leaving a partial page. A new DIR is built as a
/// sibling "DIR.tmp.<pid>" and renamed into place, so DIR appears complete or not at all; an
/// existing DIR gets its index.html replaced atomically (write_file_atomically), other files in it
/// are left alone. Throws InputError(dir, ...) if DIR cannot be written (see
/// report_directory_problem); the temporary folder is then removed.
void write_report_directory(const std::string& dir, const std::string& html);

}  // namespace treematch::io
