# The MPI treematch is built with, and the parallel HDF5 built for that same MPI.
#
# Any MPI with Open MPI's or MPICH's ABI: Open MPI (the default on Debian), MPICH (`cmake --preset
# mpich`), and the MPICH family (HPE Cray MPICH, Intel MPI, MVAPICH) through their compiler wrappers
# (-DMPI_C_COMPILER=..., -DMPI_CXX_COMPILER=...). Sets:
#   TM_MPI_FLAVOUR   openmpi | mpich (the ABI family, from mpi.h's own macros)
#   TM_MPI_LIBRARY   the MPI library's soname the binaries load (libmpi.so.40, libmpich.so.12, ...)
#   TM_MPI_VERSION   MPI_Get_library_version's first line, for the installed package's record
# Debian installs Open MPI and MPICH side by side, but its `mpicc`, `mpiexec` and `h5pcc`
# alternatives keep pointing at Open MPI's: a MPICH build names the `.mpich` tools, and an HDF5 or
# a launcher of the other MPI is refused here, naming both, instead of binaries that load two MPIs.

set(MPI_DETERMINE_LIBRARY_VERSION TRUE)  # MPI_C_LIBRARY_VERSION_STRING, by running a test program
find_package(MPI REQUIRED COMPONENTS C CXX)

# ---- Which MPI: the family from mpi.h's macros (Intel MPI, MVAPICH and Cray MPICH define
# MPICH_VERSION too), the soname from the MPI library itself.
include(CheckCSourceCompiles)
set(CMAKE_REQUIRED_LIBRARIES MPI::MPI_C)
set(CMAKE_REQUIRED_QUIET ON)
check_c_source_compiles("#include <mpi.h>\n#ifndef OPEN_MPI\n#error no\n#endif\nint main(void){return 0;}"
                        TM_MPI_IS_OPEN_MPI)
check_c_source_compiles("#include <mpi.h>\n#ifndef MPICH_VERSION\n#error no\n#endif\nint main(void){return 0;}"
                        TM_MPI_IS_MPICH)
unset(CMAKE_REQUIRED_LIBRARIES)
unset(CMAKE_REQUIRED_QUIET)
if(TM_MPI_IS_OPEN_MPI)
  set(TM_MPI_FLAVOUR openmpi)
elseif(TM_MPI_IS_MPICH)
  set(TM_MPI_FLAVOUR mpich)
else()
  message(FATAL_ERROR "MPI at ${MPI_C_COMPILER} is neither Open MPI nor of MPICH's family "
                      "(mpi.h defines neither OPEN_MPI nor MPICH_VERSION)")
endif()
string(REGEX REPLACE "[\n,].*" "" TM_MPI_VERSION "${MPI_C_LIBRARY_VERSION_STRING}")
string(REPLACE "\t" " " TM_MPI_VERSION "${TM_MPI_VERSION}")
string(STRIP "${TM_MPI_VERSION}" TM_MPI_VERSION)

# tm_mpi_needed(OUT FILE...): the sonames of the MPI libraries that each shared library FILE names
# as NEEDED (libmpi.so.N: Open MPI, Intel MPI; libmpich*.so.N: MPICH, MVAPICH, Cray MPICH).
find_program(TM_READELF NAMES readelf REQUIRED)
function(tm_mpi_needed out)
  set(found "")
  foreach(file IN LISTS ARGN)
    if(NOT file MATCHES "\\.so" OR NOT EXISTS "${file}")
      continue()
    endif()
    execute_process(COMMAND ${TM_READELF} -d "${file}" OUTPUT_VARIABLE dynamic ERROR_QUIET)
    string(REGEX MATCHALL "\\[(libmpi[a-z_]*\\.so[.0-9]*)\\]" names "${dynamic}")
    foreach(name IN LISTS names)
      string(REGEX REPLACE "^\\[|\\]$" "" name "${name}")
      list(APPEND found "${name}")
    endforeach()
  endforeach()
  list(REMOVE_DUPLICATES found)
  set(${out} "${found}" PARENT_SCOPE)
endfunction()

# The MPI library's own soname: what a binary linked with MPI::MPI_C loads.
set(tm_mpi_libraries "")
foreach(library IN LISTS MPI_C_LIBRARIES)
  get_filename_component(real "${library}" REALPATH)
  execute_process(COMMAND ${TM_READELF} -d "${real}" OUTPUT_VARIABLE dynamic ERROR_QUIET)
  if(dynamic MATCHES "Library soname: \\[(libmpi[a-z_]*\\.so[.0-9]*)\\]")
    list(APPEND tm_mpi_libraries "${CMAKE_MATCH_1}")
  endif()
endforeach()
set(TM_MPI_LIBRARY "")
if(tm_mpi_libraries)
  list(GET tm_mpi_libraries 0 TM_MPI_LIBRARY)
endif()
if(NOT TM_MPI_LIBRARY)
  message(FATAL_ERROR "MPI at ${MPI_C_COMPILER}: none of its libraries (${MPI_C_LIBRARIES}) has "
                      "an MPI soname (libmpi*.so)")
endif()
message(STATUS "MPI: ${TM_MPI_FLAVOUR} (${TM_MPI_LIBRARY}), ${TM_MPI_VERSION}")

# ---- The launcher of this MPI (the tests start every job through it). Open MPI's mpirun and
# MPICH's Hydra say who they are in --version; srun (Cray MPICH and most MPICH machines) too.
#   TM_MPI_LAUNCHER  openmpi | hydra | slurm
if(TM_MPI_FLAVOUR STREQUAL "mpich" AND MPIEXEC_EXECUTABLE)
  # FindMPI looks for `mpiexec` beside the compiler: on Debian that is Open MPI's alternative.
  get_filename_component(tm_launcher_real "${MPIEXEC_EXECUTABLE}" REALPATH)
  if(tm_launcher_real MATCHES "orterun|openmpi|prterun")
    find_program(tm_hydra NAMES mpiexec.mpich mpiexec.hydra NO_CACHE)
    if(tm_hydra)
      set(MPIEXEC_EXECUTABLE "${tm_hydra}" CACHE FILEPATH "Executable for running MPI programs."
          FORCE)
    endif()
  endif()
endif()
execute_process(COMMAND "${MPIEXEC_EXECUTABLE}" --version OUTPUT_VARIABLE tm_launcher_says
                ERROR_VARIABLE tm_launcher_says TIMEOUT 20)
if(tm_launcher_says MATCHES "HYDRA")
  set(TM_MPI_LAUNCHER hydra)
elseif(tm_launcher_says MATCHES "Open MPI|OpenRTE|PRRTE")
  set(TM_MPI_LAUNCHER openmpi)
elseif(tm_launcher_says MATCHES "^slurm")
  set(TM_MPI_LAUNCHER slurm)
else()
  # Vendors' builds of Hydra (Intel MPI's mpiexec.hydra, MVAPICH's) may not name it.
  set(TM_MPI_LAUNCHER openmpi)
  if(TM_MPI_FLAVOUR STREQUAL "mpich")
    set(TM_MPI_LAUNCHER hydra)
  endif()
  message(WARNING "the MPI launcher ${MPIEXEC_EXECUTABLE} does not say which it is in --version; "
                  "the tests drive it as ${TM_MPI_LAUNCHER}'s")
endif()
if(TM_MPI_LAUNCHER STREQUAL "openmpi" AND NOT TM_MPI_FLAVOUR STREQUAL "openmpi" OR
   TM_MPI_LAUNCHER STREQUAL "hydra" AND NOT TM_MPI_FLAVOUR STREQUAL "mpich")
  message(FATAL_ERROR "the MPI launcher ${MPIEXEC_EXECUTABLE} is ${TM_MPI_LAUNCHER}'s, but "
                      "treematch's MPI (${MPI_C_COMPILER}) is ${TM_MPI_FLAVOUR}: its ranks would "
                      "each start alone. Give -DMPIEXEC_EXECUTABLE=PATH (Debian: "
                      "/usr/bin/mpiexec.${TM_MPI_FLAVOUR})")
endif()
message(STATUS "MPI launcher: ${MPIEXEC_EXECUTABLE} (${TM_MPI_LAUNCHER})")

# ---- Parallel HDF5 for this MPI. Debian names each build's compiler wrapper after its MPI
# (h5pcc.openmpi, h5pcc.mpich); the unsuffixed h5pcc is whichever the alternatives chose.
if(NOT HDF5_C_COMPILER_EXECUTABLE)
  find_program(tm_h5pcc NAMES h5pcc.${TM_MPI_FLAVOUR} NO_CACHE)
  if(tm_h5pcc)
    set(HDF5_C_COMPILER_EXECUTABLE "${tm_h5pcc}" CACHE FILEPATH "HDF5's C compiler wrapper")
  endif()
endif()
set(HDF5_PREFER_PARALLEL TRUE)
find_package(HDF5 REQUIRED COMPONENTS C)
set(tm_hdf5_package libhdf5-openmpi-dev)
if(TM_MPI_FLAVOUR STREQUAL "mpich")
  set(tm_hdf5_package libhdf5-mpich-dev)
endif()
if(NOT HDF5_IS_PARALLEL)
  message(FATAL_ERROR "treematch needs HDF5's parallel (MPI) build for ${TM_MPI_FLAVOUR}, found a "
                      "serial one (${HDF5_C_LIBRARIES}): on Debian apt-get install "
                      "${tm_hdf5_package}, or give -DHDF5_C_COMPILER_EXECUTABLE=PATH/h5pcc")
endif()
set(tm_hdf5_real "")
foreach(library IN LISTS HDF5_C_LIBRARIES)
  get_filename_component(real "${library}" REALPATH)
  if(real MATCHES "libhdf5[^/]*\\.so")
    list(APPEND tm_hdf5_real "${real}")
  endif()
endforeach()
tm_mpi_needed(tm_hdf5_mpi ${tm_hdf5_real})
if(tm_hdf5_mpi AND NOT TM_MPI_LIBRARY IN_LIST tm_hdf5_mpi)
  message(FATAL_ERROR "HDF5 at ${tm_hdf5_real} is built for ${tm_hdf5_mpi}, but treematch's MPI "
                      "(${MPI_C_COMPILER}) is ${TM_MPI_LIBRARY}: the binaries would load two MPIs. "
                      "Give the HDF5 of this MPI: -DHDF5_C_COMPILER_EXECUTABLE=PATH/h5pcc "
                      "(Debian: ${tm_hdf5_package}, /usr/bin/h5pcc.${TM_MPI_FLAVOUR})")
endif()
message(STATUS "HDF5: ${tm_hdf5_real} (built for ${tm_hdf5_mpi})")
