// Opens an HDF5 matrix on every rank of a communicator at once, for collective (MPI-IO) reading.
#pragma once

#include <mpi.h>

#include <string>

#include "io/matrix_hdf5_reader.h"
#include "io/matrix_stream.h"

namespace treematch::io {

/// Opens the file on every rank of `comm` at once (MPI-IO driver; collective) for
/// Hdf5MatrixReader::read_rows_collective, with the same checks as the serial constructor.
/// Collective and agreed: either it succeeds on every rank or every rank throws the same
/// AgreedError (io/agreement.h), the lowest failing rank's error, after which every rank has
/// closed the file. Defined in io/matrix_hdf5_reader.cc, beside the reader's internals.
Hdf5MatrixReader open_hdf5_matrix_collective(const std::string& path, const std::string& object,
                                             MPI_Comm comm, const HeaderCheck& check = {});

}  // namespace treematch::io
