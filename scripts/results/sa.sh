#!/usr/bin/env bash
# Regenerates docs/results/sa.md: SA against the user's request and the best
# request (thesis ch. 5), the all-SA runs (sec. 6.1), and the gain against load
# and against the number of shapes, on Cirne's rigid + moldable models.
#
#   scripts/results/sa.sh                 build, run every experiment, summarise
#   scripts/results/sa.sh --summary-only  summarise the raw records already in docs/results/raw/sa/
#
# The full run took about two hours of wall time on the shared 2-core machine
# (22 Nov 2026); the kappa_L = 1 workloads take most of it.
#
# Environment (defaults in brackets): JOBS_PARALLEL [2] simultaneous runs;
# MAIN_WORKLOADS [30] workloads at kappa_L = 1; SWEEP_WORKLOADS [12] per other
# kappa_L (0.5, 0.75, 0.875); TARGETS [10] target jobs per workload; RATE_DIVISOR [1.9]; LITERAL_WORKLOADS [1]
# workloads at the thesis's literal rates (rate divisor 1; saturated, about 15-25 minutes each).
# Each sa-experiments invocation covers one workload (minutes on a busy machine).
set -euo pipefail
cd "$(dirname "$0")/../.."
RAW=docs/results/raw/sa
JOBS_PARALLEL=${JOBS_PARALLEL:-2}
MAIN_WORKLOADS=${MAIN_WORKLOADS:-30}
SWEEP_WORKLOADS=${SWEEP_WORKLOADS:-12}
TARGETS=${TARGETS:-10}
RATE_DIVISOR=${RATE_DIVISOR:-1.9}
LITERAL_WORKLOADS=${LITERAL_WORKLOADS:-1}

if [[ "${1:-}" != "--summary-only" ]]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build -j2 --target sa-experiments >/dev/null
  rm -rf "$RAW" && mkdir -p "$RAW"
  # One line per invocation (one workload each): name, seed, kappa_L, rate
  # divisor. Interleaved so that every group has results early.
  {
    for ((i = 0; i < MAIN_WORKLOADS || i < SWEEP_WORKLOADS; i++)); do
      ((i < MAIN_WORKLOADS)) && echo "main $((1 + i)) 1 $RATE_DIVISOR"
      ((i < SWEEP_WORKLOADS)) && echo "load0.5 $((101 + i)) 0.5 $RATE_DIVISOR"
      ((i < SWEEP_WORKLOADS)) && echo "load0.75 $((201 + i)) 0.75 $RATE_DIVISOR"
      ((i < SWEEP_WORKLOADS)) && echo "load0.875 $((301 + i)) 0.875 $RATE_DIVISOR"
    done
    for ((i = 0; i < LITERAL_WORKLOADS; i++)); do echo "literal $((401 + i)) 1 1"; done
  } | xargs -P "$JOBS_PARALLEL" -L 1 sh -c \
    'nice ./build/bin/sa-experiments --first-seed "$1" --workloads 1 --load "$2" --rate-divisor "$3" \
       --targets '"$TARGETS"' --out '"$RAW"'/"$0"-seed"$1".tsv && echo "done $0 seed $1" >&2'
fi
python3 scripts/results/sa_summary.py "$RAW" > docs/results/sa.md
echo "wrote docs/results/sa.md" >&2
