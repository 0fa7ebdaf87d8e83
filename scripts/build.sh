#!/usr/bin/env bash
# Installs every dependency (Debian packages, the Slurm source the plugin
# compiles against) and builds LOS into build/. Idempotent; as root on Debian 12.
# Used by scripts/demo.sh and scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
LOS_DEPS_QUIET=1 packaging/install-deps.sh
packaging/slurm-source.sh >/dev/null
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build build -j"$(nproc)"
