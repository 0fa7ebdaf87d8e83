#!/usr/bin/env bash
# Prints one SHA-256 per (workload, policy): a digest of the whole simulated
# schedule (los-sim --schedule-out) and of los-sim's JSON metrics. Run it before
# and after a refactor that must not change any schedule, and diff the outputs:
#
#   scripts/schedule-digest.sh > /tmp/before.txt     # on the old tree
#   scripts/schedule-digest.sh > /tmp/after.txt      # on the new tree
#   diff /tmp/before.txt /tmp/after.txt && echo identical
#
# Usage: scripts/schedule-digest.sh [BUILD_DIR]   (default: build)
# Covers every policy of --list-policies with its defaults and the
# non-default parameters the results use, on segments of two shared traces
# (trace estimates, and perfect ones at a higher load) and on a generated
# Lublin workload. Traces come from ../shared/traces (LOS_TRACES=DIR); a trace
# that is absent is skipped with a note on stderr. About 2 minutes on 2 cores.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
sim="$build/bin/los-sim"
traces="${LOS_TRACES:-$root/../shared/traces}"
# The path is in los-sim's output: make it the same from every checkout.
[[ -d "$traces" ]] && traces="$(cd "$traces" && pwd -P)"
[[ -x "$sim" ]] || { echo "schedule-digest.sh: $sim not found: build first" >&2; exit 1; }

space="fcfs easy conservative aggressive depth depth:k=2 los:design=thesis los-basic los-maxjobs:design=thesis
       los-maxsd:design=thesis los:design=thesis:head=once los:design=thesis:traceback=selected-first
       los:design=thesis:lookahead=10 bf-fair tabu tabu:safe tabu:period=60:budget=3
       los los-maxjobs los-basic:design=hybrid los:lookahead=10 los:rules=every los:merit=none"
gang="gang gang:mpl=3:cs=2 bgs bgs:plan=rebuild mgs mgs:c=0:q=-1 mbgs mbgs:plan=rebuild:migrate_idle"
pect="pect pect:smart=false pect-search pect-search:level2=false"

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# digest LABEL POLICY SIM-ARGS...
digest() {
  local label="$1" policy="$2"
  shift 2
  "$sim" --quiet --policy "$policy" --format json --schedule-out "$tmp/s.swf" "$@" > "$tmp/m.json"
  # Left out: wall_s (the simulation's run time varies between runs) and the
  # policy's name (a label: the digest's line names the spec it was given).
  printf '%s %s %s\n' "$({ grep -v '^; Policy:' "$tmp/s.swf"; grep -vE '"(wall_s|policy)"' "$tmp/m.json"; } |
    sha256sum | cut -d' ' -f1)" \
    "$label" "$policy"
}

run_set() {
  local label="$1" policies="$2"
  shift 2
  for p in $policies; do digest "$label" "$p" "$@"; done
}

kth="$traces/KTH-SP2-1996-2.1-cln.swf.gz"
sdsc="$traces/SDSC-SP2-1998-4.2-cln.swf.gz"
if [[ -f "$kth" ]]; then
  run_set kth-3000 "$space" --jobs 3000 "$kth"
  run_set kth-3000-perfect-0.9 "$space" --jobs 3000 --perfect-estimates --load 0.9 "$kth"
  run_set kth-2000-gang "$gang $pect" --jobs 2000 --nodes 320 --perfect-estimates "$kth"
else
  echo "schedule-digest.sh: $kth absent, skipped" >&2
fi
if [[ -f "$sdsc" ]]; then
  run_set sdsc-3000-0.9 "$space" --skip 5000 --jobs 3000 --load 0.9 "$sdsc"
else
  echo "schedule-digest.sh: $sdsc absent, skipped" >&2
fi
run_set lublin-2000 "$space $gang $pect" model:lublin:jobs=2000:nodes=128:seed=7
