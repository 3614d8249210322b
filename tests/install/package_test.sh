#!/bin/bash
# package_test.sh BUILD_DIR: `cpack -G DEB` of BUILD_DIR into a temporary directory; the package
# must hold what `cmake --install` installs (under /usr) and its dependencies must be installable
# on this machine (apt-get install --simulate: nothing is changed).
set -euo pipefail
build=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cpack --config "$build/CPackConfig.cmake" -G DEB -B "$work" > "$work/cpack.log" ||
  { cat "$work/cpack.log"; exit 1; }
deb=$(ls "$work"/treematch_*.deb)
dpkg-deb --contents "$deb" | awk '{print $6}' > "$work/contents"
for file in usr/bin/treematch usr/lib/libtreematch.so.0 usr/lib/libtreematch_reorder.so \
            usr/lib/libtreematch-profile.so usr/include/treematch.h usr/include/treematch.hpp \
            usr/include/treematch_phase.h usr/lib/cmake/treematch/treematchConfig.cmake \
            usr/lib/pkgconfig/treematch.pc usr/share/man/man1/treematch.1; do
  grep -qx "./$file" "$work/contents" || { echo "$(basename "$deb") lacks /$file"; exit 1; }
done
depends=$(dpkg-deb --field "$deb" Depends)
# The MPI and its HDF5 build: Open MPI's or MPICH's, whichever the package was built with.
case $depends in
  *libmpich*) mpi_packages="libmpich12 libhdf5-mpich" other_mpi=libopenmpi ;;
  *) mpi_packages="libopenmpi3 libhdf5-openmpi" other_mpi=libmpich ;;
esac
[[ $depends != *"$other_mpi"* ]] || { echo "Depends names two MPIs: $depends"; exit 1; }
for library in $mpi_packages libhwloc15 libtbb12; do
  [[ $depends == *"$library"* ]] || { echo "Depends lacks $library: $depends"; exit 1; }
done
apt-get install --simulate --no-install-recommends "$deb" > "$work/apt.log" 2>&1 ||
  { cat "$work/apt.log"; exit 1; }
echo "$(basename "$deb") holds the install and its Depends ($depends) are met"
