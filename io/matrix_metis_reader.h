// Reads a METIS graph file (as used by .APHiD task graphs) into the CommGraph model.
#pragma once

#include <memory>
#include <string>

#include "io/matrix_stream.h"
#include "src/model/comm_graph.h"

namespace treematch::io {

/// Reads a METIS graph: an optional UTF-8 BOM and run of '%' comment lines, a header
/// "n m [fmt [ncon]]", then one line per vertex listing its 1-based neighbours, each followed by
/// its edge weight when fmt ends in 1 (fmt = [vertex sizes][vertex weights][edge weights], e.g.
/// 001, 010, 011; vertex sizes and weights are skipped). Without edge weights every edge weighs 1.
/// Comment lines may appear anywhere; blank vertex lines are isolated vertices; blank lines after
/// the last vertex are ignored. Throws InputError(path, ...) for a bad header (n = 0, or n or m
/// more than the file's size can hold: refused before anything is sized from them), a neighbour
/// out of range, a self loop, a repeated neighbour, a non-positive weight, a wrong number of vertex
/// lines, an edge without its reverse (or with another weight; both vertices named) or an edge
/// count that differs from m; tokens quoted in messages are cut to 32 characters, unprintable
/// bytes shown as '?'. `check`, if given, is called with n once the header is read, before any
/// vertex line.
CommGraph read_metis_graph(const std::string& path, const HeaderCheck& check = {});

/// The same file as a stream of row blocks (same checks, same messages; the symmetry and edge-count
/// checks run when the last block is read, see open_matrix_source in io/matrix_stream.h).
std::unique_ptr<MatrixRowSource> open_metis_row_source(const std::string& path);

}  // namespace treematch::io
