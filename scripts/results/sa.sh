#!/usr/bin/env bash
# Regenerates docs/results/sa.md: SA against the user's request and the best
# request (thesis ch. 5), the all-SA runs (sec. 6.1), and the gain against load
# and against the number of shapes, on Cirne's rigid + moldable models.
#
#   scripts/results/sa.sh                 build, run every experiment, summarise
#   scripts/results/sa.sh --summary-only  summarise the raw records already in docs/results/raw/
#
# Environment (defaults in brackets): JOBS_PARALLEL [2] simultaneous runs;
# MAIN_WORKLOADS [12] workloads at kappa_L = 1; SWEEP_WORKLOADS [4] per other
# kappa_L; TARGETS [10] target jobs per workload; RATE_DIVISOR [1.9]; LITERAL_WORKLOADS [0]
# workloads at the thesis's literal rates (rate divisor 1; slow, saturated).
# Each sa-experiments invocation covers 2 workloads (a few minutes).
set -euo pipefail
cd "$(dirname "$0")/../.."
RAW=docs/results/raw/sa
JOBS_PARALLEL=${JOBS_PARALLEL:-2}
MAIN_WORKLOADS=${MAIN_WORKLOADS:-12}
SWEEP_WORKLOADS=${SWEEP_WORKLOADS:-4}
TARGETS=${TARGETS:-10}
RATE_DIVISOR=${RATE_DIVISOR:-1.9}
LITERAL_WORKLOADS=${LITERAL_WORKLOADS:-0}

if [[ "${1:-}" != "--summary-only" ]]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build -j2 --target sa-experiments >/dev/null
  rm -rf "$RAW" && mkdir -p "$RAW"
  # One line per invocation: name, first seed, workloads, kappa_L, rate divisor.
  {
    for ((s = 1; s <= MAIN_WORKLOADS; s += 2)); do echo "main $s 2 1 $RATE_DIVISOR"; done
    for ((s = 101; s < 101 + SWEEP_WORKLOADS; s += 2)); do echo "load0.5 $s 2 0.5 $RATE_DIVISOR"; done
    for ((s = 201; s < 201 + SWEEP_WORKLOADS; s += 2)); do echo "load0.75 $s 2 0.75 $RATE_DIVISOR"; done
    for ((s = 301; s < 301 + LITERAL_WORKLOADS; s += 1)); do echo "literal $s 1 1 1"; done
  } | xargs -P "$JOBS_PARALLEL" -L 1 sh -c \
    'nice ./build/bin/sa-experiments --first-seed "$1" --workloads "$2" --load "$3" --rate-divisor "$4" \
       --targets '"$TARGETS"' --out '"$RAW"'/"$0"-seed"$1".tsv && echo "done $0 seed $1" >&2'
fi
python3 scripts/results/sa_summary.py "$RAW" > docs/results/sa.md
echo "wrote docs/results/sa.md" >&2
