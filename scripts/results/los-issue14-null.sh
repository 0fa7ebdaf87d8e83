#!/usr/bin/env bash
# Issue 14, the null comparison: EASY against EASY on the same workload with
# the offered load changed by DELTA (1e-6: submit times move by at most a few
# hundred seconds over a 100,000-job run). The two are equally good by
# construction; how often the 90% CI of the paired bounded-slowdown
# difference excludes zero is the chance floor of the "significantly worse"
# count on these workloads.
#
# Usage: scripts/results/los-issue14-null.sh GRID OUT_DIR [BUILD_DIR]
#   GRID: modal1024 | lublin (as in los-issue14.sh); DELTAS (env): the load
#   changes, default "0.000001 0.000002 0.000003".
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
grid="$1" out="$2" build="${3:-$root/build}"
sim="$build/bin/los-sim"
deltas="${DELTAS:-0.000001 0.000002 0.000003}"
mkdir -p "$out"
tasks() {
  local est nodes load seed d
  for est in ":estimates=modal" ""; do for nodes in 1024 8192; do
    [[ $grid == modal1024 && ( $nodes != 1024 || -z $est ) ]] && continue
    for load in 0.85 0.9 0.95; do for seed in 1 2 3; do
      for d in 0 $deltas; do
        echo "lublin-$nodes-$seed${est:+-modal}@$load|model:lublin:jobs=100000:nodes=$nodes:seed=$seed$est|$load|$d"
      done
    done; done; done; done
}
run_task() {
  local name workload load d l
  IFS='|' read -r name workload load d <<<"$1"
  l=$(python3 -c "print($load + $d)")
  [[ -s "$out/$name+$d.swf" ]] && return 0
  nice -n 10 "$sim" --quiet --load "$l" --policy easy --schedule-out "$out/$name+$d.swf.tmp" "$workload" >/dev/null &&
    mv "$out/$name+$d.swf.tmp" "$out/$name+$d.swf"
}
export -f run_task
export sim out
# shellcheck disable=SC2016  # $0 is expanded by the inner bash
tasks | xargs -P "${LOS_JOBS:-2}" -d '\n' -n 1 bash -c 'run_task "$0"'
better=0 worse=0 undecided=0
echo "| workload | load change | easy - easy' [90% CI] |"
echo "|---|---|---|"
for base in "$out"/*+0.swf; do
  name=$(basename "$base" +0.swf)
  for d in $deltas; do
    read -r m lo hi < <(python3 "$root/scripts/results/los_paired_swf.py" "$base" "$out/$name+$d.swf")
    echo "| $name | +$d | $m [$lo, $hi] |"
    if python3 -c "import sys; sys.exit(0 if $lo > 0 else 1)"; then better=$((better + 1))
    elif python3 -c "import sys; sys.exit(0 if $hi < 0 else 1)"; then worse=$((worse + 1))
    else undecided=$((undecided + 1)); fi
  done
done
echo
echo "EASY against EASY with the load changed: $better better, $worse worse, $undecided undecided"
