#!/usr/bin/env bash
# Regenerates docs/results/fairness-tabu.md and its NUWT CDF plots
# (docs/results/fairness-tabu/*.svg): the fairness paper's comparison
# (Klusacek & Rudova; spec ../shared/specs/fairness-tabu.md) of
#   fcfs aggressive easy conservative bf-fair tabu tabu:safe
# on SDSC-SP2, KTH-SP2, HPC2N and SDSC-BLUE, perfect estimates (estimate :=
# run time), bounded-slowdown threshold 1 s, as in the paper; on whole traces
# (LOS_SKIP, LOS_WINDOW to cut a window instead, e.g. LOS_WINDOW=20000).
# A second set runs conservative, tabu and tabu:safe with the traces' own
# estimates on KTH-SP2 and SDSC-SP2, to show what safe mode costs when early
# completions leave room to move jobs. A third set runs the paper's abort rule
# (tabu:abort, 10 ms of simulated time per search iteration, 2 s limit; and
# tabu:abort:eval-cost=0.1, a ten times slower search) on the four traces
# with perfect estimates.
#
# Usage: scripts/results/fairness-tabu.sh [BUILD_DIR]   (default: build)
# LOS_RERUN="POLICY ..." reruns only those policies' simulations and keeps the
# other runs' data in docs/results/fairness-tabu/data (committed), then
# rebuilds the page from all of it; e.g. after a change to one policy:
#   LOS_RERUN="tabu:abort tabu:abort:eval-cost=0.1" scripts/results/fairness-tabu.sh
# Needs: a built los-sim, python3, gnuplot, the shared traces in
# ../shared/traces (or LOS_TRACES=DIR). Runs LOS_JOBS (default 2) simulations
# at once, under nice, every one with the invariant checker (--check); a
# violation fails the script. Each simulation is one policy on one trace; the
# longest (tabu:safe on HPC2N) takes about 3 minutes on the shared 2-core
# machine, the whole set about 3.5 minutes.
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${1:-$root/build}"
sim="$build/bin/los-sim"
traces="${LOS_TRACES:-$root/../shared/traces}"
jobs="${LOS_JOBS:-2}"
skip="${LOS_SKIP:-0}"
window="${LOS_WINDOW:-0}"
rerun="${LOS_RERUN:-}"
out="$root/docs/results/fairness-tabu"
data="$out/data"

[[ -x "$sim" ]] || { echo "fairness-tabu.sh: $sim not found: build first (cmake --build $build)" >&2; exit 1; }
command -v gnuplot >/dev/null || { echo "fairness-tabu.sh: gnuplot not found" >&2; exit 1; }
command -v python3 >/dev/null || { echo "fairness-tabu.sh: python3 not found" >&2; exit 1; }
declare -A trace_file=([SDSC-SP2]=SDSC-SP2-1998-4.2-cln.swf.gz [KTH-SP2]=KTH-SP2-1996-2.1-cln.swf.gz
                       [HPC2N]=HPC2N-2002-2.2-cln.swf.gz [SDSC-BLUE]=SDSC-BLUE-2000-4.2-cln.swf.gz)
for t in "${!trace_file[@]}"; do
  [[ -f "$traces/${trace_file[$t]}" ]] || { echo "fairness-tabu.sh: missing trace $traces/${trace_file[$t]}" >&2; exit 1; }
done

policies="fcfs aggressive easy conservative bf-fair tabu tabu:safe"

mkdir -p "$data"
[[ -n $rerun ]] || rm -f "$data"/*.json "$data"/*.csv
tasks=()
# The slowest first, so the two slots stay busy to the end.
for p in tabu:safe tabu tabu:abort tabu:abort:eval-cost=0.1; do
  for t in SDSC-BLUE SDSC-SP2 HPC2N KTH-SP2; do tasks+=("$t perfect $p"); done
done
for t in SDSC-SP2 KTH-SP2; do
  for p in tabu:safe tabu conservative; do tasks+=("$t trace $p"); done
done
for t in SDSC-BLUE SDSC-SP2 HPC2N KTH-SP2; do
  for p in $policies; do
    [[ $p == tabu || $p == tabu:safe ]] || tasks+=("$t perfect $p")
  done
done

if [[ -n $rerun ]]; then
  kept=()
  for task in "${tasks[@]}"; do
    for p in $rerun; do [[ ${task##* } == "$p" ]] && kept+=("$task"); done
  done
  tasks=("${kept[@]}")
  [[ ${#tasks[@]} -gt 0 ]] || { echo "fairness-tabu.sh: LOS_RERUN=\"$rerun\" names no policy of this page" >&2; exit 1; }
fi

# --keep-cancelled: the page's committed runs keep SDSC-SP2's records cancelled
# before they ran (the only trace here that has them) as zero-length jobs,
# the simulator's reading when they were made; LOS_RERUN of one policy stays
# comparable with the others. Dropping them (the default since) is a whole rerun.
run_one() {
  local t="$1" est="$2" p="$3"
  local name="$t-$est-${p//[:=]/_}" flags=(--quiet --check --bsld-tau 1 --format json --skip "$skip" --keep-cancelled)
  [[ $window == 0 ]] || flags+=(--jobs "$window")
  [[ $est == perfect ]] && flags+=(--perfect-estimates)
  # A failed run (exit 3: an invariant violated) fails the whole script.
  nice "$sim" "${flags[@]}" --policy "$p" --user-stats "$data/$name.csv.tmp" "$traces/${trace_file[$t]}" \
    > "$data/$name.json.tmp" || { echo "fairness-tabu.sh: $name failed" >&2; return 1; }
  mv "$data/$name.csv.tmp" "$data/$name.csv"
  mv "$data/$name.json.tmp" "$data/$name.json"
  echo "fairness-tabu.sh: $name done"
}
export -f run_one
export sim traces data skip window
export trace_SDSC_SP2="${trace_file[SDSC-SP2]}" trace_KTH_SP2="${trace_file[KTH-SP2]}" \
       trace_HPC2N="${trace_file[HPC2N]}" trace_SDSC_BLUE="${trace_file[SDSC-BLUE]}"
printf '%s\n' "${tasks[@]}" | xargs -P "$jobs" -L 1 bash -c '
  declare -A trace_file=([SDSC-SP2]=$trace_SDSC_SP2 [KTH-SP2]=$trace_KTH_SP2 [HPC2N]=$trace_HPC2N [SDSC-BLUE]=$trace_SDSC_BLUE)
  run_one "$0" "$1" "$2"'

python3 "$root/scripts/results/fairness_tabu_report.py" "$data" "$out" "$root/docs/results/fairness-tabu.md" \
  "$(cd "$root" && git rev-parse --short HEAD 2>/dev/null || echo unknown)" "$(uname -srm); $(nproc) cores" \
  "$skip" "$window"
for g in "$out"/*.gp; do (cd "$out" && gnuplot "$(basename "$g")"); done
echo "fairness-tabu.sh: wrote docs/results/fairness-tabu.md and $(ls "$out"/*.svg | wc -l) plots"
