#!/usr/bin/env bash
# The README's test command (and what CI runs). On a fresh Debian 12 machine, as
# root: installs the dependencies, builds LOS with its tests, runs them all —
# unit, trace, daemon and live-cluster tests (real slurmctld and slurmd).
# Trace tests read ../shared/traces and skip when it is absent.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
ctest --test-dir build --output-on-failure -j"$(nproc)"
# Then the hardening stages: fuzzers, ASan+UBSan and TSan builds
# (scripts/test-hardening.sh). LOS_SKIP_HARDENING=1 skips them on a developer
# machine; CI (.ci/run) does not set it, so they always run there.
if [ "${LOS_SKIP_HARDENING:-0}" = 1 ]; then
  echo "test.sh: LOS_SKIP_HARDENING=1: fuzz, ASan+UBSan and TSan stages skipped"
else
  scripts/test-hardening.sh
fi
