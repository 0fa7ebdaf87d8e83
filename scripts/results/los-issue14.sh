#!/usr/bin/env bash
# Issue 14: EASY against LOS designs on the long-queue Lublin-Feitelson
# workloads and the shared traces; one los-sim JSON per workload, then the
# better/worse/undecided counts (90% CI of easy - policy mean bounded slowdown)
# and per-workload tables (scripts/results/los_issue14_report.py).
#
# Usage: scripts/results/los-issue14.sh GRID POLICIES OUT_DIR [BUILD_DIR]
#   GRID: modal1024 (Lublin 1,024 units, modal estimates: 9 workloads),
#         lublin (2 sizes x loads 0.85/0.9/0.95 x seeds 1-3 x exact/modal: 36),
#         cirne (Cirne-Berman, 1,024 and 8,192 units x loads 0.85/0.9/0.95 x
#         seeds 1-3: 18), phi (Lublin with estimates=phi, the same 18),
#         traces (every ../shared/traces/*.swf.gz x loads 0.5..0.95),
#         all (lublin + traces), or TRACE@LOAD (one shared trace, e.g.
#         NASA-iPSC-1993-3.1-cln@0.95)
#   POLICIES: comma-separated; the baseline BASELINE (env, default easy) is
#   prepended (the report's "easy" is then that baseline).
# Runs at most LOS_JOBS (default 2) simulations at once, under nice.
# NODES (env, e.g. "8192"): only the Lublin workloads of these machine sizes.
# SEEDS (env, default "1 2 3"): the Lublin workloads' seeds (held-out checks
# use others). ESTIMATES (env, default "modal exact"): the Lublin workloads'
# estimates, the modal user-estimate model and/or exact ones.
# TASKS_ONLY=1 (env): print the task lines NAME|WORKLOAD|LOAD and stop (the
# null comparison, los-issue14-null-replicated.sh, runs the same grid).
# REPLICATES (env, e.g. "$(seq -s ' ' 1 10)"): replicate every workload once
# per value N, its submit times jittered by los-sim --jitter JITTER (env,
# default 60 s) --jitter-seed N (NAME+jN.json); the report then also gives,
# per workload, the CI of easy - policy across the replicates
# (docs/simulator.md, "Replicates"). DELTAS (env, e.g. "0 0.00001"): the
# older replicates, at the load plus each value (NAME+DELTA.json); on
# overloaded workloads those runs share most of their trajectory, and their
# CI is too narrow (docs/los.md, tenth session's section).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
grid="$1" policies="$2" out="$3" build="${4:-$root/build}"
sim="$build/bin/los-sim"
traces="${LOS_TRACES:-$root/../shared/traces}"
[[ -x "$sim" ]] || { echo "los-issue14.sh: $sim not found: build first" >&2; exit 1; }
mkdir -p "$out"

tasks() {  # NAME|WORKLOAD|LOAD
  local est kind nodes load seed t
  case "$1" in
    modal1024|lublin|all)
      for est in ":estimates=modal" ""; do for nodes in 1024 8192; do
        [[ $1 == modal1024 && ( $nodes != 1024 || -z $est ) ]] && continue
        [[ -n ${NODES:-} && " $NODES " != *" $nodes "* ]] && continue
        kind=exact; [[ -n $est ]] && kind=modal
        [[ " ${ESTIMATES:-modal exact} " != *" $kind "* ]] && continue
        for load in 0.85 0.9 0.95; do for seed in ${SEEDS:-1 2 3}; do
          echo "lublin-$nodes-$seed${est:+-modal}@$load|model:lublin:jobs=100000:nodes=$nodes:seed=$seed$est|$load"
        done; done; done; done ;;
  esac
  case "$1" in
    phi)  # Lublin with Zhang et al.'s overestimation model, held out (issue 14)
      for nodes in 1024 8192; do for load in 0.85 0.9 0.95; do for seed in ${SEEDS:-1 2 3}; do
        echo "lublin-$nodes-$seed-phi@$load|model:lublin:jobs=100000:nodes=$nodes:seed=$seed:estimates=phi|$load"
      done; done; done ;;
    cirne)  # a second workload model, held out from the design work (issue 14)
      for nodes in 1024 8192; do for load in 0.85 0.9 0.95; do for seed in ${SEEDS:-1 2 3}; do
        echo "cirne-$nodes-$seed@$load|model:cirne:jobs=100000:nodes=$nodes:seed=$seed|$load"
      done; done; done ;;
    *@*)
      echo "$1|$traces/${1%@*}.swf.gz|${1#*@}" ;;
    traces|all)
      for t in "$traces"/*.swf.gz; do
        for load in 0.5 0.55 0.6 0.65 0.7 0.75 0.8 0.85 0.9 0.95; do
          echo "$(basename "$t" .swf.gz)@$load|$t|$load"
        done
      done ;;
  esac
}
run_task() {
  local name workload load d jitter=()
  IFS='|' read -r name workload load d <<<"$1"
  if [[ $d == j* ]]; then
    name="$name+$d" jitter=(--jitter "${JITTER:-60}" --jitter-seed "${d#j}")
  elif [[ -n $d ]]; then
    name="$name+$d" load=$(python3 -c "print($load + $d)")
  fi
  [[ -s "$out/$name.json" ]] && return 0
  nice -n 10 "$sim" --quiet --load "$load" "${jitter[@]}" --policy "${BASELINE:-easy},$policies" --format json \
    "$workload" >"$out/$name.json.tmp" && mv "$out/$name.json.tmp" "$out/$name.json"
}
replicate() {  # each task line once per REPLICATES (jitter seeds) or DELTAS value, or as it is
  local line d
  while IFS= read -r line; do
    if [[ -n ${REPLICATES:-} ]]; then
      for d in $REPLICATES; do echo "$line|j$d"; done
    elif [[ -n ${DELTAS:-} ]]; then
      for d in $DELTAS; do echo "$line|$d"; done
    else
      echo "$line"
    fi
  done
}
if [[ ${TASKS_ONLY:-0} == 1 ]]; then tasks "$grid"; exit 0; fi
export -f run_task
export sim out policies BASELINE JITTER
# shellcheck disable=SC2016  # $0 is expanded by the inner bash
tasks "$grid" | replicate | xargs -P "${LOS_JOBS:-2}" -d '\n' -n 1 bash -c 'run_task "$0"'
python3 "$root/scripts/results/los_issue14_report.py" "$out"
