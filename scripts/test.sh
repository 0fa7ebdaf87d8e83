#!/usr/bin/env bash
# The README's test command (and what CI runs). On a fresh Debian 12 machine, as
# root: installs the dependencies, builds LOS with its tests, runs them all —
# unit, trace, daemon and live-cluster tests (real slurmctld and slurmd) — and
# the hardening stages (scripts/test-hardening.sh: fuzzers, ASan+UBSan, TSan).
# Trace tests read ../shared/traces and skip when it is absent.
#
# The hardening stages build and run beside the main suite, at nice 19: the
# live-cluster tests, which take most of the main run, leave the CPU mostly
# idle, and niced they barely slow the rest. Their output goes to
# build/hardening.log and is summed up at the end. LOS_SKIP_HARDENING=1 skips
# them on a developer machine; CI (.ci/run) does not set it.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
hardening_pid=""
if [ "${LOS_SKIP_HARDENING:-0}" = 1 ]; then
  echo "test.sh: LOS_SKIP_HARDENING=1: fuzz, ASan+UBSan and TSan stages skipped"
else
  nice -n 19 scripts/test-hardening.sh >build/hardening.log 2>&1 &
  hardening_pid=$!
fi
rc=0
ctest --test-dir build --output-on-failure -j"$(nproc)" || rc=$?
if [ -n "$hardening_pid" ]; then
  hardening_rc=0
  wait "$hardening_pid" || hardening_rc=$?
  if [ "$hardening_rc" -eq 0 ]; then
    grep -E '^== hardening|^fuzz_|tests passed|Total Test time' build/hardening.log || true
  else
    cat build/hardening.log
    echo "test.sh: the hardening stages failed (exit $hardening_rc); the whole log is above" >&2
    rc=1
  fi
fi
exit "$rc"
