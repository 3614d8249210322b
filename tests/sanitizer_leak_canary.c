/* The sanitizer build's check of its own MPI test environment (tests/CMakeLists.txt): each rank
 * leaks 77 bytes from main between MPI_Init and MPI_Finalize, and the test passes only when
 * LeakSanitizer reports them under mpiexec. It fails if the suppressions of Open MPI's leaks
 * (cmake/sanitizers/lsan.supp) or the preloaded library that keeps Open MPI's components loaded
 * ever hide a leak of the program itself. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

char* volatile leaked; /* volatile: the allocation cannot be optimised away */

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  leaked = malloc(77);
  snprintf(leaked, 77, "rank program with %d arguments", argc);
  puts(leaked);
  leaked = NULL;
  MPI_Finalize();
  return 0;
}
