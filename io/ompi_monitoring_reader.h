// Reads the per-rank files of Open MPI's monitoring (prof.<rank>.prof) into traffic matrices.
#pragma once

#include <cstdint>
#include <string>

#include "io/matrix_hdf5_writer.h"
#include "kernels/types.h"

namespace treematch::io {

/// One class of traffic as two directed n x n matrices over MPI_COMM_WORLD ranks: row i, column j
/// = what rank i sent to rank j. Rows sorted by column; only non-zero entries are stored (a pair
/// that exchanged only 0-byte messages is in `msg`, not in `size`); no diagonal.
struct TrafficMatrices {
  kernels::Csr size;  ///< bytes
  kernels::Csr msg;   ///< messages

  /// Sum of the stored entries of `size`, and of `msg`.
  [[nodiscard]] std::uint64_t total_bytes() const;
  [[nodiscard]] std::uint64_t total_messages() const;
};

/// What Open MPI 4.1's monitoring recorded for one run, one class of traffic apart from the others.
///
/// Lines used (fields are tab-separated, "<n> bytes" and "<n> msgs sent"), in the file of rank r:
///   E r j  point-to-point with tag >= 0 (what the application sent)  -> external[r][j]
///   I r j  tag < 0: collectives decomposed into point-to-point, internal protocol ->
///   internal[r][j] S r j  one-sided, recorded at the origin r: data put/accumulated into j  ->
///   onesided[r][j] R r j  one-sided, recorded at the origin r: data r fetched from j (Get,
///   Get_accumulate,
///          Fetch_and_op, Compare_and_swap), so it flowed from j to r  -> onesided[j][r]
/// Open MPI records every one-sided operation at its origin only (the target writes nothing), so S
/// and R are disjoint and both are kept: a Get counts one 0-byte request message r -> j (its S
/// line) and the data j -> r (its R line).
/// Lines read only to be validated: C (the collective component's logical per-peer volume, already
/// present as E/I messages: adding it would count collectives twice), D (a communicator and its
/// ranks), O2A, A2O, A2A (per-communicator collective totals), '#' section headers.
/// Traffic a rank sends to itself is dropped (it crosses no link; every matrix reader drops the
/// diagonal). With the osc pt2pt component (no RDMA network), one-sided operations travel as
/// point-to-point messages and appear in E as well as in S/R; `total` then counts them twice.
struct OmpiMonitoringPattern {
  kernels::Index ranks = 0;
  std::string prefix;                  ///< the files read are prefix + ".<rank>.prof"
  TrafficMatrices external;            ///< E lines
  TrafficMatrices internal;            ///< I lines
  TrafficMatrices onesided;            ///< S lines, and R lines transposed
  TrafficMatrices total;               ///< external + internal + onesided, entry by entry
  std::uint64_t collective_lines = 0;  ///< C lines seen (not added)
};

/// Reads every rank file of one monitored run. `source` is a directory holding the files of one run
/// (`<prefix>.<rank>.prof`, any prefix), a prefix path ("out/prof" for out/prof.0.prof ...), or one
/// of the rank files. The ranks must be 0..n-1 without a gap. Throws InputError naming the
/// directory or file (and the line) for: no rank file, files of several prefixes in a directory, a
/// missing rank, an unreadable or empty file, a file not starting with "# POINT TO POINT", an
/// unknown record, a wrong field count, a non-numeric value, a rank out of [0, n), an E/I/S/R/C
/// line whose source rank is not the file's, bytes without messages, or the same record twice.
OmpiMonitoringPattern read_ompi_monitoring(const std::string& source);

/// Writes `pattern` to the HDF5 file `path` (created, replacing any file): the total as /size and
/// /msg (what `treematch map` reads by default, --metric size|msg|avg), each class as
/// /external/{size,msg}, /internal/{size,msg} and /onesided/{size,msg} (csr_matrix groups, see
/// write_matrix_hdf5_csr; a class without traffic is an empty matrix of the same order), root
/// attributes source = "ompi-monitoring" and ranks = n, and a description attribute on each class
/// group. Throws Hdf5Error. Wrap `path` in a PendingFile for an atomic output.
void write_ompi_monitoring_hdf5(const std::string& path, const OmpiMonitoringPattern& pattern,
                                const Hdf5WriteOptions& options = {});

}  // namespace treematch::io
