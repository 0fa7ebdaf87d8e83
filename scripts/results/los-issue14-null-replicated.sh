#!/usr/bin/env bash
# Issue 14, the null comparison of the replicated test: does the CI across
# replicates (los-issue14.sh with DELTAS) call EASY different from itself?
# For each Lublin workload and each replicate load L + delta (DELTAS, default
# "0 0.00001 0.00002 0.00003 0.00004"), EASY runs at that load and at that
# load + SHIFT (default 0.000005); the report takes, per workload, the mean of
# the replicates' differences with a 90% Student-t CI over them, and counts
# the workloads whose CI excludes zero (nominally 10 %).
#
# Usage: scripts/results/los-issue14-null-replicated.sh GRID OUT_DIR [BUILD_DIR]
#   GRID: modal1024 | lublin (as in los-issue14.sh); NODES (env) as there.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
grid="$1" out="$2" build="${3:-$root/build}"
sim="$build/bin/los-sim"
deltas="${DELTAS:-0 0.00001 0.00002 0.00003 0.00004}"
shift_by="${SHIFT:-0.000005}"
[[ -x "$sim" ]] || { echo "los-issue14-null-replicated.sh: $sim not found: build first" >&2; exit 1; }
mkdir -p "$out"
tasks() {
  local est nodes load seed d s
  for est in ":estimates=modal" ""; do for nodes in 1024 8192; do
    [[ $grid == modal1024 && ( $nodes != 1024 || -z $est ) ]] && continue
    [[ -n ${NODES:-} && " $NODES " != *" $nodes "* ]] && continue
    for load in 0.85 0.9 0.95; do for seed in 1 2 3; do for d in $deltas; do for s in 0 "$shift_by"; do
      echo "lublin-$nodes-$seed${est:+-modal}@$load|model:lublin:jobs=100000:nodes=$nodes:seed=$seed$est|$load|$d|$s"
    done; done; done; done; done; done
}
run_task() {
  local name workload load d s l f
  IFS='|' read -r name workload load d s <<<"$1"
  f="$out/$name+$d+$s.json"
  [[ -s "$f" ]] && return 0
  l=$(python3 -c "print($load + $d + $s)")
  nice -n 10 "$sim" --quiet --load "$l" --policy easy --format json "$workload" >"$f.tmp" && mv "$f.tmp" "$f"
}
export -f run_task
export sim out
# shellcheck disable=SC2016  # $0 is expanded by the inner bash
tasks | xargs -P "${LOS_JOBS:-2}" -d '\n' -n 1 bash -c 'run_task "$0"'
python3 - "$out" "$shift_by" <<'PY'
import glob, json, math, os, sys
out, shift = sys.argv[1], sys.argv[2]
T90 = {1: 6.314, 2: 2.920, 3: 2.353, 4: 2.132, 5: 2.015, 6: 1.943, 7: 1.895, 8: 1.860, 9: 1.833}
cells = {}
for f in sorted(glob.glob(os.path.join(out, "*+0.json"))):
    name, d, _ = os.path.basename(f)[:-5].rsplit("+", 2)
    other = os.path.join(out, f"{name}+{d}+{shift}.json")
    a = json.load(open(f))[0]["mean_bsld"]
    b = json.load(open(other))[0]["mean_bsld"]
    cells.setdefault(name, []).append(a - b)
print(f"| workload | replicates | easy - easy(load + {shift}) [90% CI across replicates] |")
print("|---|---|---|")
counts = [0, 0, 0]
for name, xs in sorted(cells.items()):
    m = sum(xs) / len(xs)
    h = T90[len(xs) - 1] * math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1) / len(xs))
    k = 0 if m - h > 0 else (1 if m + h < 0 else 2)
    counts[k] += 1
    print(f"| {name} | {len(xs)} | {m:.1f} [{m - h:.1f}, {m + h:.1f}] |")
print(f"\nEASY against itself across replicates: {counts[0]} better, {counts[1]} worse, {counts[2]} undecided")
PY
