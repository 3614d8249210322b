#!/usr/bin/env bash
# one_mpi.sh MPI_LIBRARY FILE...: no binary or library FILE loads an MPI other than MPI_LIBRARY (the
# soname configure found, e.g. libmpich.so.12), directly or through its dependencies (ldd); the
# mapping library (libtreematch.so) may load none.
# Debian installs Open MPI and MPICH side by side; a dependency built for the other MPI (HDF5's
# parallel build is one per MPI) would load both into one process.
set -euo pipefail
expected=$1
shift
for file in "$@"; do
  loaded=$( (ldd "$file" | grep -oE '\blibmpi[a-z_]*\.so\.[0-9]+' || true) | sort -u | tr '\n' ' ')
  if [ -n "$loaded" ] && [ "$loaded" != "$expected " ]; then
    echo "$(basename "$file") loads ${loaded:-no MPI}, not $expected alone"
    exit 1
  fi
done
echo "$# binaries and libraries load $expected alone or no MPI"
