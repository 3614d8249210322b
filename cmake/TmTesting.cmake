# Helpers that register GoogleTest executables with CTest.
include(GoogleTest)

# tm_add_test(NAME SOURCES... [LIBS ...]): one GoogleTest binary, each TEST discovered by CTest.
function(tm_add_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} GTest::gtest_main tm_warnings)
  gtest_discover_tests(${name} WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                       PROPERTIES ENVIRONMENT "TM_SOURCE_DIR=${PROJECT_SOURCE_DIR}"
                       DISCOVERY_TIMEOUT 60)
endfunction()

# tm_add_mpi_test(NAME SOURCES... [LIBS ...] RANKS r1 r2 ...): one GoogleTest binary run through
# mpiexec once per rank count (oversubscribed, allowed as root), each run a CTest test labelled mpi.
function(tm_add_mpi_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS;RANKS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} GTest::gtest MPI::MPI_CXX tm_warnings)
  foreach(ranks IN LISTS ARG_RANKS)
    add_test(NAME ${name}.np${ranks}
             COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${ranks} --oversubscribe --allow-run-as-root
                     ${MPIEXEC_PREFLAGS} $<TARGET_FILE:${name}> ${MPIEXEC_POSTFLAGS}
             WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
    set_tests_properties(${name}.np${ranks} PROPERTIES LABELS mpi TIMEOUT 300 PROCESSORS ${ranks}
                         ENVIRONMENT "TM_SOURCE_DIR=${PROJECT_SOURCE_DIR};OMPI_MCA_rmaps_base_oversubscribe=1")
  endforeach()
endfunction()
