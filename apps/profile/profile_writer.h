// Writes the profile of a run: every rank's row of each traffic matrix into one HDF5 file.
#pragma once

#include <mpi.h>

#include <string>

#include "apps/profile/pcontrol_phases.h"
#include "apps/profile/traffic_recorder.h"

namespace treematch::profile {

/// Collective over `comm` (MPI_COMM_WORLD: rank r writes row r). Writes, with parallel HDF5, the
/// csr_matrix groups /size and /msg (bytes and messages of all classes together: what
/// `treematch map` reads) and /p2p, /collective, /onesided, each with size and msg, plus the root
/// attributes source = "treematch-profile" and ranks = n and a description of each class group.
/// When a rank used an MPI_Pcontrol level other than 0 and 1, every level that was on somewhere
/// gets /phase/pcontrol_LEVEL (size and msg, attributes source, ranks and pcontrol_level), the
/// layout of treematch_phase_write.
/// The file is written as "<path>.tmp.<pid of rank 0>" and renamed to `path` by rank 0 once every
/// rank closed it; on failure the temporary is removed and nothing appears under `path`.
/// Throws io::Hdf5Error (io::Hdf5PeerError on the ranks where nothing failed) or
/// std::runtime_error (the rename, on rank 0 only).
void write_profile(MPI_Comm comm, const std::string& path, const TrafficRecorder& recorder,
                   const PcontrolPhases& phases);

}  // namespace treematch::profile
