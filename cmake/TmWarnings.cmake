# The tm_warnings INTERFACE target: every project target links it, so warnings are errors everywhere.
add_library(tm_warnings INTERFACE)
target_compile_options(tm_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
                                             -Wno-sign-conversion -Werror)
