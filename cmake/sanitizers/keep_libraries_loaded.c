/* Preloaded into the processes of the sanitizer build's MPI tests (cmake/TmTesting.cmake).
 * Open MPI 4.1 unloads its components at MPI_Finalize; LeakSanitizer then finds what they
 * allocated for the life of the process at addresses of no module, and could only name the
 * Open MPI function above it by unwinding every malloc through DWARF tables, which made each
 * sanitized MPI job about 4 times slower (a 4-rank job of the profiling tests 10.7 s against
 * 2.7 s). Kept loaded, every such allocation names its Open MPI or PMIx library with the default
 * fast unwinding, and lsan.supp suppresses it by module. The processes exit right after
 * MPI_Finalize: nothing needs the memory of a library back. */
int dlclose(void* handle);

int dlclose(void* handle) {
  (void)handle;
  return 0;
}
