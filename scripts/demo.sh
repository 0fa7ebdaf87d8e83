#!/usr/bin/env bash
# The README's main command. On a fresh Debian 12 machine, as root: installs
# the dependencies (Slurm included) and the Slurm source the plugin compiles
# against, builds LOS with the sched/los plugin, then shows what LOS is for
# (scripts/live-compare.sh): 150 jobs of the SDSC-SP2 trace at high load on a
# real 32-node Slurm cluster on this host, first under Slurm's own
# sched/backfill, then under sched/los + losd with the policy los-sim predicts
# best for them, beside los-sim's prediction, with the difference and a
# terminal plot of the waits (about eight minutes after the build). Nothing is
# left running afterwards. Arguments go to scripts/live-compare.sh (--help).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
echo
exec scripts/live-compare.sh "$@"
