#!/usr/bin/env bash
# The README's test command (and what CI runs). On a fresh Debian 12 machine, as
# root: installs the dependencies, builds LOS with its tests, runs them all.
# Trace tests read ../shared/traces and skip when it is absent.
set -euo pipefail
cd "$(dirname "$0")/.."
LOS_DEPS_QUIET=1 packaging/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build build -j"$(nproc)"
ctest --test-dir build --output-on-failure -j"$(nproc)"
