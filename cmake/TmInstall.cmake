# cmake --install: the treematch command, the mapping library (libtreematch.so, C API and C++
# header), the in-job reorder and phase library (libtreematch_reorder.so), the profiling library
# (libtreematch-profile.so), their headers, a CMake package (find_package(treematch): targets
# treematch::treematch, treematch::reorder, treematch::profile) and pkg-config files (treematch,
# treematch-reorder). The tree is relocatable: `cmake --install build --prefix DIR` anywhere.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(tm_package_dir ${CMAKE_INSTALL_LIBDIR}/cmake/treematch)

install(TARGETS treematch RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS libtreematch treematch_reorder treematch-profile EXPORT treematchTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_SOURCE_DIR}/apps/library/treematch.h
              ${PROJECT_SOURCE_DIR}/apps/library/treematch.hpp
              ${PROJECT_SOURCE_DIR}/apps/library/treematch_tm.h
              ${PROJECT_SOURCE_DIR}/apps/reorder/treematch_reorder.h
              ${PROJECT_SOURCE_DIR}/apps/reorder/treematch_phase.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

install(EXPORT treematchTargets NAMESPACE treematch:: DESTINATION ${tm_package_dir})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/treematchConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/treematchConfig.cmake
                              INSTALL_DESTINATION ${tm_package_dir})
# 0.x: a new minor version may change the API.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/treematchConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/treematchConfig.cmake
              ${PROJECT_BINARY_DIR}/treematchConfigVersion.cmake
        DESTINATION ${tm_package_dir})

# The .pc files name the prefix relative to themselves (${pcfiledir}/..), so that the installed
# tree may be moved.
file(RELATIVE_PATH tm_pc_up /root/${CMAKE_INSTALL_LIBDIR}/pkgconfig /root)
# treematch-reorder requires its MPI's own .pc where the MPI ships one (Debian: ompi-c for Open
# MPI, mpich for MPICH), so that pkg-config brings that MPI's flags and no other's.
set(tm_mpi_pc ompi-c)
if(TM_MPI_FLAVOUR STREQUAL "mpich")
  set(tm_mpi_pc mpich)
endif()
pkg_check_modules(tm_mpi_pc_found QUIET ${tm_mpi_pc})
set(TM_MPI_PKGCONFIG "")
if(tm_mpi_pc_found_FOUND)
  set(TM_MPI_PKGCONFIG ${tm_mpi_pc})
endif()
foreach(pc IN ITEMS treematch treematch-reorder)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/${pc}.pc.in ${PROJECT_BINARY_DIR}/${pc}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/${pc}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()

# `cpack -G DEB` in the build directory: one Debian package of everything above, installed under
# /usr; dpkg-shlibdeps (dpkg-dev, brought by build-essential) derives Depends from the binaries.
set(CPACK_PACKAGE_NAME treematch)
set(CPACK_PACKAGE_VENDOR "treematch")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "TreeMatch process placement for MPI jobs: command, mapping library, in-job reordering")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "treematch developers <treematch@localhost>")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
include(CPack)
