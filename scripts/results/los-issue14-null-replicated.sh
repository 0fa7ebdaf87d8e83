#!/usr/bin/env bash
# Issue 14, the null comparison of the replicated test: does the CI across
# replicates (los-issue14.sh with REPLICATES) call EASY different from itself?
# For each workload of GRID and each replicate N (REPLICATES, default 1..10),
# EASY runs on the workload jittered with --jitter-seed N and with
# --jitter-seed N + OFFSET (default 1000), both by --jitter JITTER (default
# 60 s): two trajectories of the same policy on replicates of the same
# workload, as EASY's and a policy's trajectories are in the real comparison.
# The report takes, per workload, the mean of the replicates' differences with
# a 90% Student-t CI over them, and counts the workloads whose CI excludes
# zero: a calibrated test flags about 10 % (5 % each side).
#
# With OLD=1 it runs the sixth session's null instead: EASY at L + delta
# against EASY at L + delta + SHIFT (DELTAS, default "0 0.00001 0.00002
# 0.00003 0.00004"; SHIFT default 0.000005), replicates that share most of
# their trajectory.
#
# Usage: scripts/results/los-issue14-null-replicated.sh GRID OUT_DIR [BUILD_DIR]
#   GRID: as in los-issue14.sh (modal1024, lublin, traces, all, TRACE@LOAD);
#   NODES and SEEDS (env) as there.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
grid="$1" out="$2" build="${3:-$root/build}"
sim="$build/bin/los-sim"
[[ -x "$sim" ]] || { echo "los-issue14-null-replicated.sh: $sim not found: build first" >&2; exit 1; }
mkdir -p "$out"
if [[ ${OLD:-0} == 1 ]]; then
  reps="${DELTAS:-0 0.00001 0.00002 0.00003 0.00004}" other="${SHIFT:-0.000005}"
else
  reps="${REPLICATES:-$(seq -s ' ' 1 10)}" other="${OFFSET:-1000}"
fi
tasks() {
  local line r
  TASKS_ONLY=1 "$root/scripts/results/los-issue14.sh" "$grid" - "$out" "$build" | while IFS= read -r line; do
    for r in $reps; do echo "$line|$r|a"; echo "$line|$r|b"; done
  done
}
run_task() {
  local name workload load r side f args
  IFS='|' read -r name workload load r side <<<"$1"
  f="$out/$name+$r+$side.json"
  [[ -s "$f" ]] && return 0
  if [[ ${OLD:-0} == 1 ]]; then
    local shift=0
    [[ $side == b ]] && shift=$other
    args=(--load "$(python3 -c "print($load + $r + $shift)")")
  else
    local seed=$r
    [[ $side == b ]] && seed=$((r + other))
    args=(--load "$load" --jitter "${JITTER:-60}" --jitter-seed "$seed")
  fi
  nice -n 10 "$sim" --quiet "${args[@]}" --policy easy --format json "$workload" >"$f.tmp" && mv "$f.tmp" "$f"
}
export -f run_task
export sim out other JITTER OLD
# shellcheck disable=SC2016  # $0 is expanded by the inner bash
tasks | xargs -P "${LOS_JOBS:-2}" -d '\n' -n 1 bash -c 'run_task "$0"'
python3 - "$out" "${OLD:-0}" <<'PY'
import glob, json, math, os, sys
out, old = sys.argv[1], sys.argv[2] == "1"
T90 = {1: 6.314, 2: 2.920, 3: 2.353, 4: 2.132, 5: 2.015, 6: 1.943, 7: 1.895, 8: 1.860, 9: 1.833,
       10: 1.812, 11: 1.796, 12: 1.782, 13: 1.771, 14: 1.761, 15: 1.753, 16: 1.746, 17: 1.740, 18: 1.734,
       19: 1.729}
cells = {}
for f in sorted(glob.glob(os.path.join(out, "*+a.json"))):
    name, r, _ = os.path.basename(f)[:-5].rsplit("+", 2)
    other = os.path.join(out, f"{name}+{r}+b.json")
    if not os.path.exists(other):
        continue
    a = json.load(open(f))[0]["mean_bsld"]
    b = json.load(open(other))[0]["mean_bsld"]
    cells.setdefault(name, []).append(a - b)
what = "easy(load + delta) - easy(load + delta + shift)" if old else "easy(jitter seed N) - easy(jitter seed N + offset)"
print(f"| workload | replicates | {what} [90% CI across replicates] |")
print("|---|---|---|")
counts = {}
for name, xs in sorted(cells.items()):
    group = "lublin" if name.startswith("lublin-") else "traces"
    m = sum(xs) / len(xs)
    h = T90[len(xs) - 1] * math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1) / len(xs))
    k = 0 if m - h > 0 else (1 if m + h < 0 else 2)
    counts.setdefault(group, [0, 0, 0])[k] += 1
    print(f"| {name} | {len(xs)} | {m:.1f} [{m - h:.1f}, {m + h:.1f}] |")
for group, c in counts.items():
    print(f"\n{group}: EASY against itself across replicates: {c[0]} better, {c[1]} worse, {c[2]} undecided "
          f"({(c[0] + c[1]) / sum(c):.0%} flagged; a calibrated 90% test flags about 10 %)")
PY
