#!/usr/bin/env bash
# The README's main command. On a fresh Debian 12 machine, as root: installs
# the dependencies (Slurm included) and the Slurm source the plugin compiles
# against, builds LOS with the sched/los plugin, then runs the live demo: a
# real 32-node Slurm cluster on this host scheduled by sched/los + losd,
# replaying a generated 60-job workload 60x faster than trace time (about
# five minutes), with a summary from Slurm's own records. Nothing is left
# running afterwards. Arguments go to scripts/live-demo.sh (--policy, ...).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
echo
exec scripts/live-demo.sh "$@"
