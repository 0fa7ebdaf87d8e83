#!/usr/bin/env bash
# The README's main command. On a fresh Debian 12 machine, as root: installs the
# dependencies, builds LOS, and compares the baseline policies on the shipped
# demo workload with los-sim.
set -euo pipefail
cd "$(dirname "$0")/.."
LOS_DEPS_QUIET=1 packaging/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build build -j"$(nproc)"
echo
./build/bin/los-sim --policy fcfs,easy,conservative,aggressive,depth:k=4 --check conf/workloads/demo-lublin-128.swf
