#!/usr/bin/env bash
# Regenerates docs/results/los.md and its plots (docs/results/los/*.svg):
# EASY against every LOS variant on KTH-SP2 (loads 0.5-0.95) and SDSC-SP2
# (0.5-0.9), paired per-job differences with 90% confidence intervals, a
# lookahead sweep C in {10, 25, 50, 100, 250}, every metric with records
# cancelled before they ran dropped (the default) and kept (--keep-cancelled),
# the SDSC-SP2 ablation (one setting changed at a time, loads 0.5/0.7/0.9), and
# the long-queue grids of issue 14 (the hybrid LOS against EASY and the thesis:
# 36 Lublin-Feitelson and 18 Cirne-Berman workloads and 60 trace points, ten
# jittered replicates each; Lublin seeds 4-6 held out).
#
# Usage: scripts/results/los.sh [BUILD_DIR]   (default: build)
# Needs: a built los-sim, python3, gnuplot, the shared traces in
# ../shared/traces (or LOS_TRACES=DIR). Runs at most 2 simulations at once
# (LOS_JOBS to change), under nice. About 70-80 minutes on the 2-core machine (68 and 78 min measured on 2026-11-29),
# most of it the long-queue grids (1,500 runs, each of every policy).
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

# The thesis's algorithm is design=thesis (the default is the hybrid of issue
# 14); the page names these runs without it (los_report.py).
T=":design=thesis"
variants="easy,los$T,los-basic,los$T:traceback=selected-first,los-maxjobs$T,los-maxsd$T,los$T:head=once"
sweep="easy,los$T:lookahead=10,los$T:lookahead=25,los$T,los$T:lookahead=100,los$T:lookahead=250"
ablation_loads="0.50 0.70 0.90"

# One simulation: "OUTPUT|TRACE FILE|POLICIES|LOS-SIM OPTIONS..." -> OUTPUT (JSON).
run_task() {
  local output file policies flags
  IFS='|' read -r output file policies flags <<<"$1"
  # shellcheck disable=SC2086  # the options are separate words
  nice "$sim" --quiet --check $flags --policy "$policies" --format json "$file" >"$output.tmp" &&
    mv "$output.tmp" "$output"
}
export -f run_task
export sim
# shellcheck disable=SC2016  # $0 is expanded by the inner bash, on purpose
run_all() { xargs -P "$jobs" -d '\n' -n 1 bash -c 'run_task "$0"'; }  # task lines on stdin
path() { echo "$traces/${trace_file[$1]}"; }
# thesis POLICIES: each los, los-maxjobs and los-maxsd spelling with design=thesis.
thesis() {
  local out="" p name
  for p in ${1//,/ }; do
    name=${p%%:*}
    [[ $name == los || $name == los-maxjobs || $name == los-maxsd ]] && p="$name$T${p#"$name"}"
    out+="${out:+,}$p"
  done
  echo "$out"
}

rm -rf "$data"
mkdir -p "$data/cancelled" "$data/ablation"

# The traces' own loads (no --load), both readings of cancelled records: the
# runtime-scale rows of the ablation need the native offered load.
for t in KTH-SP2 SDSC-SP2; do
  for mode in drop keep; do
    flags=""; [[ $mode == keep ]] && flags="--keep-cancelled"
    echo "$data/cancelled/$t-$mode-own.json|$(path $t)|easy,los$T|$flags"
  done
done | run_all
native=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[0]["offered_load"])' \
  "$data/cancelled/SDSC-SP2-drop-own.json")

{
  for t in KTH-SP2 SDSC-SP2; do
    for l in ${trace_loads[$t]}; do
      echo "$data/$t-variants-$l.json|$(path $t)|$variants|--load $l"
      echo "$data/$t-sweep-$l.json|$(path $t)|$sweep|--load $l"
    done
    for l in $ablation_loads; do
      echo "$data/cancelled/$t-drop-$l.json|$(path $t)|easy,los$T|--load $l"
      echo "$data/cancelled/$t-keep-$l.json|$(path $t)|easy,los$T|--load $l --keep-cancelled"
    done
  done
  # The ablation: NAME|POLICIES|OPTIONS, each row one change from the first
# (every LOS spelling the thesis's: design=thesis after the name).
  while IFS='|' read -r name policies flags; do
    for l in $ablation_loads; do
      if [[ $flags == *RUNTIME_SCALE* ]]; then
        scale=$(python3 -c "print($l / $native)")
        f="${flags//RUNTIME_SCALE/$scale}"
      else
        f="--load $l $flags"
      fi
      echo "$data/ablation/$name@$l.json|$(path SDSC-SP2)|$(thesis "$policies")|$f"
    done
  done <<'ROWS'
cleaned|easy,los|
archived|easy,los|--keep-cancelled
no-kill|easy,los|--no-kill
perfect-estimates|easy,los|--perfect-estimates
no-extra|easy,los-basic|
extra-thesis|easy,los:extra=thesis|
head-once|easy,los:head=once|
lookahead-10|easy,los:lookahead=10|
lookahead-25|easy,los:lookahead=25|
lookahead-100|easy,los:lookahead=100|
lookahead-250|easy,los:lookahead=250|
rest-easy|easy,los:rest=easy|
runtime-scale|easy,los|--runtime-scale RUNTIME_SCALE
variants-archived|easy,los,los:traceback=selected-first,los-maxjobs,los-maxsd|--keep-cancelled
variants-perfect|easy,los,los:traceback=selected-first,los-maxjobs,los-maxsd|--perfect-estimates
variants-rest-easy|easy,los:rest=easy,los:rest=easy:traceback=selected-first,los-maxjobs:rest=easy,los-maxsd:rest=easy|
ROWS
} | run_all

# Where SDSC-SP2's differences at 0.9 come from, by job class: the simulated
# schedules (not kept) of easy, los and selected-first, cleaned and as archived.
sched="$(mktemp -d)"
trap 'rm -rf "$sched"' EXIT
for mode in cleaned archived; do
  flags=""; [[ $mode == archived ]] && flags="--keep-cancelled"
  # shellcheck disable=SC2086
  nice "$sim" --quiet --load 0.90 $flags --policy "easy,los$T,los$T:traceback=selected-first" \
    --schedule-out "$sched/$mode.swf" "$(path SDSC-SP2)" >/dev/null
  python3 "$root/scripts/results/los_report.py" decompose "$data/decomposition.json" "$sched/$mode.easy.swf" \
    "los, $mode" "$sched/$mode.los_design_thesis.swf" \
    "selected-first, $mode" "$sched/$mode.los_design_thesis_traceback_selected-first.swf"
done

# Long queues (issue 14): EASY against the hybrid LOS (the default), its
# merit variant, the thesis's three and the hybrid with one part changed at a
# time, on 36 Lublin-Feitelson and 18 Cirne-Berman workloads and every shared
# trace at loads 0.5-0.95, ten jittered replicates each; then the hybrid and
# the thesis's three on the held-out Lublin seeds 4-6.
longqueue="los,los-maxjobs,los:design=thesis,los-maxjobs:design=thesis,los-maxsd:design=thesis"
longqueue+=",los:merit=none,los:rules=every,los:rules=long,los:protect=none,los:gate=none,los:keep=optimal"
for grid in lublin cirne traces; do
  REPLICATES="$(seq -s ' ' 1 10)" LOS_JOBS="$jobs" "$root/scripts/results/los-issue14.sh" "$grid" "$longqueue" \
    "$data/longqueue" "$build" >/dev/null
done
SEEDS="4 5 6" REPLICATES="$(seq -s ' ' 1 10)" LOS_JOBS="$jobs" "$root/scripts/results/los-issue14.sh" lublin \
  "los,los-maxjobs,los:design=thesis,los-maxjobs:design=thesis,los-maxsd:design=thesis" "$data/heldout" \
  "$build" >/dev/null

python3 "$root/scripts/results/los_report.py" "$data" "$out" "$root/docs/results/los.md" \
  "$(cd "$root" && git rev-parse --short HEAD 2>/dev/null || echo unknown)" "$(uname -srm); $(nproc) cores"
for g in "$out"/*.gp; do (cd "$out" && gnuplot "$(basename "$g")"); done
echo "los.sh: wrote docs/results/los.md and $(find "$out" -maxdepth 1 -name '*.svg' | wc -l) plots"
