#!/bin/bash
# install_test.sh BUILD_DIR SOURCE_DIR EXTRA_FLAGS MPICC [OTHER_MPICC]: installs BUILD_DIR into a
# temporary prefix, then builds tests/install/consumer against it twice, with
# find_package(treematch) (MPI: MPICC, the build's own) and with pkg-config, and runs the C and C++
# programs of each. EXTRA_FLAGS (the sanitizer build's -fsanitize=...) go to every compile and
# link. Also checks the installed files a user needs, that both record the build's MPI, and that a
# project configured with another MPI (OTHER_MPICC, when installed) is refused in one message.
set -euo pipefail
build=$1
source=$2
extra=${3:-}
mpicc=$4
other_mpicc=${5:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
consumer=$source/tests/install/consumer

cmake --install "$build" --prefix "$prefix" > "$work/install.log"
for file in bin/treematch include/treematch.h include/treematch.hpp include/treematch_tm.h \
            include/treematch_reorder.h \
            include/treematch_phase.h lib/cmake/treematch/treematchConfig.cmake \
            lib/pkgconfig/treematch.pc lib/pkgconfig/treematch-reorder.pc; do
  [ -e "$prefix/$file" ] || { echo "not installed: $file"; exit 1; }
done
for lib in libtreematch.so libtreematch_reorder.so libtreematch-profile.so; do
  [ -e "$prefix/lib/$lib" ] || { echo "not installed: lib/$lib"; exit 1; }
done
"$prefix/bin/treematch" --version

echo "== find_package(treematch)"
cmake -S "$consumer" -B "$work/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" -DMPI_C_COMPILER="$mpicc" \
      -DCMAKE_C_FLAGS="$extra" -DCMAKE_CXX_FLAGS="$extra" -DCMAKE_EXE_LINKER_FLAGS="$extra" \
      > "$work/configure.log"
cmake --build "$work/cmake-build" > "$work/build.log"
"$work/cmake-build/map_ring_c"
"$work/cmake-build/map_ring_cpp"

if [ -n "$other_mpicc" ] && [ -x "$other_mpicc" ]; then
  echo "== find_package(treematch) with another MPI ($other_mpicc)"
  if cmake -S "$consumer" -B "$work/other-build" -DCMAKE_PREFIX_PATH="$prefix" \
           -DMPI_C_COMPILER="$other_mpicc" > "$work/other.log" 2>&1; then
    echo "a project with another MPI ($other_mpicc) was not refused"; exit 1
  fi
  # CMake wraps the message: read it as one line.
  refusal=$(tr -s ' \n' ' ' < "$work/other.log")
  [[ $refusal == *"is built with "*"but this project's MPI"* ]] ||
    { cat "$work/other.log"; echo "refused, but not for its MPI"; exit 1; }
  grep -o "is built with [^:]*" <<< "$refusal" | head -1
fi

echo "== pkg-config treematch"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
for pc in treematch treematch-reorder; do
  recorded=$(pkg-config --variable=mpi "$pc")
  [ -n "$recorded" ] || { echo "$pc.pc records no MPI"; exit 1; }
  echo "$pc.pc: mpi=$recorded ($(pkg-config --variable=mpi_library "$pc"))"
done
# shellcheck disable=SC2046,SC2086  # the flags are words
cc $extra -o "$work/map_ring_c" "$consumer/map_ring.c" $(pkg-config --cflags --libs treematch)
# shellcheck disable=SC2046,SC2086
c++ -std=c++17 $extra -o "$work/map_ring_cpp" "$consumer/map_ring.cc" \
    $(pkg-config --cflags --libs treematch)
LD_LIBRARY_PATH=$prefix/lib "$work/map_ring_c"
LD_LIBRARY_PATH=$prefix/lib "$work/map_ring_cpp"
echo "installed tree usable"
