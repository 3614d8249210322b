# The tm_warnings INTERFACE target: every project target links it, so warnings are errors everywhere.
add_library(tm_warnings INTERFACE)
target_compile_options(tm_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
                                             -Wno-sign-conversion -Werror)
# GCC 12 under ASan at -O1 (TM_SANITIZE) warns of uninitialised reads inside libstdc++'s <regex>
# (std::function members of regex states) that are not there; the Release build keeps the warning.
if(TM_SANITIZE AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  target_compile_options(tm_warnings INTERFACE -Wno-maybe-uninitialized)
endif()
