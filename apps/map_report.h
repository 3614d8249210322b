// `treematch map --report DIR`: the report's data gathered from one run, then written as HTML.
#pragma once

#include <string>

#include "apps/inputs.h"
#include "apps/map_command.h"
#include "src/model/context.h"
#include "src/report/mapping_report.h"

namespace treematch::apps {

/// Everything the report shows about a `treematch map` run: `outcome` must come from
/// compute_mapping with Baselines::kAll (the cost rows are reused, not recomputed). Adds the
/// identity's (= packed) per-level traffic next to TreeMatch's and the matrix binned into at most
/// kHeatMapCells cells a side in rank and in mapped order: O(nnz + p) time, O(p + cells^2) memory.
MappingReport build_map_report(const MapOptions& options, const Inputs& inputs, const Context& ctx,
                               const MapOutcome& outcome);

/// Builds the report, renders it and writes DIR/index.html atomically (io/report_writer.h).
/// Returns the wall seconds it took. Throws io::InputError if DIR cannot be written.
double write_map_report(const std::string& dir, const MapOptions& options, const Inputs& inputs,
                        const Context& ctx, const MapOutcome& outcome);

}  // namespace treematch::apps
