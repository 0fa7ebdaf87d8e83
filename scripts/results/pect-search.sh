#!/usr/bin/env bash
# Regenerates docs/results/pect-search.md: SCOJO-PECT (pect) and its grouped
# bi-level search (pect-search) against easy, conservative and los on the
# thesis's five Lublin-Feitelson workloads (128 processors, 10,000 jobs, seeds
# 71, 31, 73, 35, 7; the model's typeless parameters, exact run times) and on
# SDSC-BLUE (whole cleaned trace, 1152 processors, exact run times as
# estimates), with ablations (level 2 off, branch-and-bound off, smart
# backfilling off, no switch cost).
#
# Usage: scripts/results/pect-search.sh [BUILD_DIR]   (default: build)
# Needs: a configured build directory, python3, the shared traces in
# ../shared/traces (or LOS_TRACES=DIR). Builds the pect-report target
# (scripts/results/pect-report.cpp, tools/CMakeLists.txt), then runs at most 2
# simulations at once (LOS_JOBS to change), under nice. About 3 minutes on the
# 2-core machine.
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${1:-$root/build}"
traces="${LOS_TRACES:-$root/../shared/traces}"
jobs="${LOS_JOBS:-2}"
data="$root/docs/results/pect-search/data"
blue="$traces/SDSC-BLUE-2000-4.2-cln.swf.gz"

[[ -f "$build/CMakeCache.txt" ]] || { echo "pect-search.sh: $build is not a configured build directory (cmake -S $root -B $build)" >&2; exit 1; }
[[ -f "$blue" ]] || { echo "pect-search.sh: missing trace $blue" >&2; exit 1; }
command -v python3 >/dev/null || { echo "pect-search.sh: python3 not found" >&2; exit 1; }

nice cmake --build "$build" --target pect-report -j "$jobs" >/dev/null ||
  { echo "pect-search.sh: building pect-report failed (cmake --build $build --target pect-report)" >&2; exit 1; }
report="$build/bin/pect-report"
[[ -x "$report" ]] || { echo "pect-search.sh: $report not found after building the pect-report target" >&2; exit 1; }

rm -rf "$data"
mkdir -p "$data"

base="easy conservative los pect pect-search"
ablations="pect-search:level2=false pect-search:bnb=false pect:smart=false pect-search:smart=false pect:switch=0"
tasks=()
for seed in 71 31 73 35 7; do
  for p in $base $ablations; do
    tasks+=("lublin-$seed|model:lublin:jobs=10000:nodes=128:seed=$seed|$p")
  done
done
for p in $base pect-search:level2=false; do
  tasks+=("SDSC-BLUE|$blue|$p")
done

run_task() {
  local name workload policy
  IFS='|' read -r name workload policy <<<"$1"
  local file="$data/$name-${policy//[:=]/_}.json"
  nice "$report" "$workload" "$policy" >"$file.tmp" || { echo "pect-search.sh: $name $policy failed" >&2; return 1; }
  mv "$file.tmp" "$file"
}
export -f run_task
export report data
# shellcheck disable=SC2016  # $0 is expanded by the inner bash, on purpose
printf '%s\n' "${tasks[@]}" | xargs -P "$jobs" -d '\n' -n 1 bash -c 'run_task "$0"'

python3 "$root/scripts/results/pect-search-report.py" "$data" "$root/docs/results/pect-search.md" \
  "$(cd "$root" && git rev-parse --short HEAD 2>/dev/null || echo unknown)" "$(uname -srm); $(nproc) cores"
echo "pect-search.sh: wrote docs/results/pect-search.md"
