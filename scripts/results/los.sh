#!/usr/bin/env bash
# Regenerates docs/results/los.md and its plots (docs/results/los/*.svg):
# EASY against every LOS variant on KTH-SP2 (loads 0.5-0.95) and SDSC-SP2
# (0.5-0.9), paired per-job differences with 90% confidence intervals, and a
# lookahead sweep C in {10, 25, 50, 100, 250}.
#
# Usage: scripts/results/los.sh [BUILD_DIR]   (default: build)
# Needs: a built los-sim, python3, gnuplot, the shared traces in
# ../shared/traces (or LOS_TRACES=DIR). Runs at most 2 simulations at once
# (LOS_JOBS to change), under nice. About a minute on the 2-core machine.
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${1:-$root/build}"
sim="$build/bin/los-sim"
traces="${LOS_TRACES:-$root/../shared/traces}"
jobs="${LOS_JOBS:-2}"
out="$root/docs/results/los"
data="$out/data"

[[ -x "$sim" ]] || { echo "los.sh: $sim not found: build first (cmake --build $build)" >&2; exit 1; }
command -v gnuplot >/dev/null || { echo "los.sh: gnuplot not found" >&2; exit 1; }
command -v python3 >/dev/null || { echo "los.sh: python3 not found" >&2; exit 1; }
declare -A trace_file=([KTH-SP2]=KTH-SP2-1996-2.1-cln.swf.gz [SDSC-SP2]=SDSC-SP2-1998-4.2-cln.swf.gz)
declare -A trace_loads=([KTH-SP2]="0.50 0.55 0.60 0.65 0.70 0.75 0.80 0.85 0.90 0.95"
                        [SDSC-SP2]="0.50 0.55 0.60 0.65 0.70 0.75 0.80 0.85 0.90")
for t in "${!trace_file[@]}"; do
  [[ -f "$traces/${trace_file[$t]}" ]] || { echo "los.sh: missing trace $traces/${trace_file[$t]}" >&2; exit 1; }
done

variants="easy,los,los-basic,los:traceback=selected-first,los-maxjobs,los-maxsd,los:head=once"
sweep="easy,los:lookahead=10,los:lookahead=25,los,los:lookahead=100,los:lookahead=250"

mkdir -p "$data"
rm -f "$data"/*.json
tasks=()
for t in KTH-SP2 SDSC-SP2; do
  for l in ${trace_loads[$t]}; do
    tasks+=("$t variants $l $variants" "$t sweep $l $sweep")
  done
done
printf '%s\n' "${tasks[@]}" | xargs -P "$jobs" -L 1 bash -c '
  t="$0"; kind="$1"; load="$2"; policies="$3"
  nice "'"$sim"'" --quiet --check --load "$load" --policy "$policies" --format json \
    "'"$traces"'/$(case $t in KTH-SP2) echo '"${trace_file[KTH-SP2]}"';; SDSC-SP2) echo '"${trace_file[SDSC-SP2]}"';; esac)" \
    > "'"$data"'/$t-$kind-$load.json.tmp" && mv "'"$data"'/$t-$kind-$load.json.tmp" "'"$data"'/$t-$kind-$load.json"
'
python3 "$root/scripts/results/los_report.py" "$data" "$out" "$root/docs/results/los.md" \
  "$(cd "$root" && git rev-parse --short HEAD 2>/dev/null || echo unknown)" "$(uname -srm); $(nproc) cores"
for g in "$out"/*.gp; do (cd "$out" && gnuplot "$(basename "$g")"); done
echo "los.sh: wrote docs/results/los.md and $(ls "$out"/*.svg | wc -l) plots"
