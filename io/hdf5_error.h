// Hdf5Error: the exception a failed HDF5 call throws while a matrix or an attribute is written.
#pragma once

#include <stdexcept>

namespace treematch::io {

/// A failed HDF5 call while writing; what() = "<path>: <call> failed[: <HDF5's reason>]".
/// (Problems found while reading are InputError: the file is what the user gave.)
class Hdf5Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace treematch::io
