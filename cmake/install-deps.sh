#!/usr/bin/env bash
# Installs every Debian 12 package treematch needs to build, test and benchmark (run as root).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
# The launcher tests start their own Slurm daemons: none may start at install. Debian's
# policy-rc.d convention (exit 101) keeps package scripts from starting services.
POLICY=/usr/sbin/policy-rc.d
if [ ! -e "$POLICY" ]; then
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$POLICY" >/dev/null
  $SUDO chmod +x "$POLICY"
  trap '$SUDO rm -f "$POLICY"' EXIT
fi
$SUDO apt-get install -y -qq --no-install-recommends \
  build-essential cmake pkg-config ca-certificates ccache \
  libopenmpi-dev openmpi-bin \
  libhwloc-dev libhwloc-plugins hwloc \
  libtbb-dev \
  libhdf5-openmpi-dev hdf5-tools \
  googletest libgtest-dev \
  libcli11-dev libfmt-dev nlohmann-json3-dev \
  libpng-dev \
  scotch libsimgrid-dev \
  libmpich-dev libhdf5-mpich-dev mpich slurmctld slurmd slurm-client \
  clang libclang-rt-14-dev \
  scdoc man-db >/dev/null
