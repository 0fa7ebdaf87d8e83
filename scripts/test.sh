#!/usr/bin/env bash
# The README's test command (and what CI runs). On a fresh Debian 12 machine, as
# root: installs the dependencies, builds LOS with its tests, runs them all —
# unit, trace, daemon and live-cluster tests (real slurmctld and slurmd).
# Trace tests read ../shared/traces and skip when it is absent.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
ctest --test-dir build --output-on-failure -j"$(nproc)"
