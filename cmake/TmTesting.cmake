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
