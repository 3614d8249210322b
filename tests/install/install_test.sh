#!/bin/bash
# install_test.sh BUILD_DIR SOURCE_DIR [EXTRA_FLAGS]: installs BUILD_DIR into a temporary prefix,
# then builds tests/install/consumer against it twice, with find_package(treematch) and with
# pkg-config, and runs the C and C++ programs of each. EXTRA_FLAGS (the sanitizer build's
# -fsanitize=...) go to every compile and link. Also checks the installed files a user needs.
set -euo pipefail
build=$1
source=$2
extra=${3:-}
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
cmake -S "$consumer" -B "$work/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" \
      -DCMAKE_C_FLAGS="$extra" -DCMAKE_CXX_FLAGS="$extra" -DCMAKE_EXE_LINKER_FLAGS="$extra" \
      > "$work/configure.log"
cmake --build "$work/cmake-build" > "$work/build.log"
"$work/cmake-build/map_ring_c"
"$work/cmake-build/map_ring_cpp"

echo "== pkg-config treematch"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
# shellcheck disable=SC2046,SC2086  # the flags are words
cc $extra -o "$work/map_ring_c" "$consumer/map_ring.c" $(pkg-config --cflags --libs treematch)
# shellcheck disable=SC2046,SC2086
c++ -std=c++17 $extra -o "$work/map_ring_cpp" "$consumer/map_ring.cc" \
    $(pkg-config --cflags --libs treematch)
LD_LIBRARY_PATH=$prefix/lib "$work/map_ring_c"
LD_LIBRARY_PATH=$prefix/lib "$work/map_ring_cpp"
echo "installed tree usable"
