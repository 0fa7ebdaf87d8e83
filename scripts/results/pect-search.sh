#!/usr/bin/env bash
# Regenerates docs/results/pect-search.md: SCOJO-PECT (pect) and its grouped
# bi-level search (pect-search) against easy, conservative and los on the
# thesis's five Lublin-Feitelson workloads (128 processors, 10,000 jobs, seeds
# 71, 31, 73, 35, 7; the model's typeless parameters, exact run times) and on
# SDSC-BLUE (whole cleaned trace, 1152 processors, exact run times as
# estimates), with ablations (level 2 off, branch-and-bound off, smart
# backfilling off, no switch cost) and the "gap to the thesis" experiments
# (the `gap` list below: pect and pect-search with one choice changed, on the
# five seeds; data in docs/results/pect-search/data/gap).
#
# Usage: scripts/results/pect-search.sh [BUILD_DIR]   (default: build)
# Needs: a configured build directory, python3, the shared traces in
# ../shared/traces (or LOS_TRACES=DIR). Builds the pect-report target
# (scripts/results/pect-report.cpp, tools/CMakeLists.txt), then runs at most 2
# simulations at once (LOS_JOBS to change), under nice. About 6 minutes on the
# idle 2-core machine (6 m 17 s; 27 minutes when shared with other work).
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

base="easy conservative los pect pect-search pect-search:commit=0"
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

# The gap to the thesis: experiments, each a pair (pect variant, pect-search
# variant) on the five seeds: label|workload keys|pect-report flag|pect|pect-search
gap=(
  "defaults|||pect|pect-search"
  "the thesis's plan: the whole searched order kept (commit=0)|||pect|pect-search:commit=0"
  "plans keep the first 2 jobs (commit=2)|||pect|pect-search:commit=2"
  "plans keep the first 4 jobs (commit=4)|||pect|pect-search:commit=4"
  "level 2 off|||pect|pect-search:level2=false"
  "branch-and-bound off|||pect|pect-search:bnb=false"
  "force-shifting off|||pect|pect-search:shift=false"
  "search budget / 10 (nodes 200,000, perms 1,000)|||pect|pect-search:nodes=200000:perms=1000"
  "search budget x 10 (nodes 20,000,000, perms 100,000)|||pect|pect-search:nodes=20000000:perms=100000"
  "smaller groups (max 15 long / 10 medium)|||pect|pect-search:max_long=15:max_medium=10"
  "larger groups (max 60 long / 40 medium)|||pect|pect-search:max_long=60:max_medium=40"
  "sub-groups of 6 (ambiguity #11)|||pect|pect-search:subgroup=6"
  "group finish off (min_util 0, delta 1; ambiguity #9)|||pect|pect-search:min_util=0:delta=1"
  "plan jobs smart-backfilled into other slices (section 6.5 without its check)|||pect|pect-search:plan_backfill"
  "plans executed with EASY (only the first waiting plan job reserved)|||pect|pect-search:plan_easy"
  "plans executed with EASY, plan jobs smart-backfilled|||pect|pect-search:plan_easy:plan_backfill"
  "no switch cost (both)|||pect:switch=0|pect-search:switch=0"
  "no smart backfilling (both)|||pect:smart=false|pect-search:smart=false"
  "slices not ended when their class empties (both)|||pect:skip_empty=false|pect-search:skip_empty=false"
  "short limit 60 s, the table's (both; ambiguity #1)|||pect:short_limit=60|pect-search:short_limit=60"
  "medium slice 1800 s (both; ambiguity #13)|||pect:medium_slice=1800|pect-search:medium_slice=1800"
  "medium slice 7200 s (both; ambiguity #13)|||pect:medium_slice=7200|pect-search:medium_slice=7200"
  "larger groups, search budget x 10, group finish off|||pect|pect-search:max_long=60:max_medium=40:nodes=20000000:perms=100000:min_util=0:delta=1"
  "switch 0, medium slice 1800 s, short limit 60 s (both)|||pect:switch=0:medium_slice=1800:short_limit=60|pect-search:switch=0:medium_slice=1800:short_limit=60"
  "the row above and group finish off|||pect:switch=0:medium_slice=1800:short_limit=60|pect-search:switch=0:medium_slice=1800:short_limit=60:min_util=0:delta=1"
  "modal estimates (lublin estimates=modal)|:estimates=modal|--workload-estimates|pect|pect-search"
  "higher load (arrival-scale 0.85)|:arrival-scale=0.85||pect|pect-search"
  "lower load (arrival-scale 1.2)|:arrival-scale=1.2||pect|pect-search"
)
mkdir -p "$data/gap"
n=0
for e in "${gap[@]}"; do
  IFS='|' read -r label keys flag p1 p2 <<<"$e"
  printf '%s\n' "$label" >"$data/gap/$n.label"
  for seed in 71 31 73 35 7; do
    tasks+=("gap/$n-lublin-$seed|model:lublin:jobs=10000:nodes=128:seed=$seed$keys|$p1|$p2|$flag")
  done
  n=$((n + 1))
done

# How commit's default was chosen: on Lublin workloads the tables above do
# not use (seeds 1-6 and 8-11), with exact and modal estimates and at two other
# loads, pect against pect-search with commit 0 (the thesis's plan) to 4.
commit_seeds="1 2 3 4 5 6 8 9 10 11"
commit_policies="pect pect-search:commit=0 pect-search pect-search:commit=2 pect-search:commit=3 pect-search:commit=4"
mkdir -p "$data/commit"
for cond in "exact||" "modal|:estimates=modal|--workload-estimates" "load-up|:arrival-scale=0.85|" "load-down|:arrival-scale=1.2|"; do
  IFS='|' read -r cname keys flag <<<"$cond"
  for seed in $commit_seeds; do
    tasks+=("commit/$cname-$seed|model:lublin:jobs=10000:nodes=128:seed=$seed$keys|$commit_policies|+|$flag")
  done
done

run_task() {
  local name workload policy policy2 flag file
  IFS='|' read -r name workload policy policy2 flag <<<"$1"
  if [[ "$policy2" == "+" ]]; then  # the commit choice: the policies listed, in one file
    file="$data/$name.json"
    # shellcheck disable=SC2086  # $flag is empty or one word; $policy a list
    nice "$report" $flag "$workload" $policy >"$file.tmp" || { echo "pect-search.sh: $name failed" >&2; return 1; }
  elif [[ -n "$policy2" ]]; then  # a gap experiment: both policies in one file
    file="$data/$name.json"
    # shellcheck disable=SC2086  # $flag is empty or one word
    nice "$report" $flag "$workload" "$policy" "$policy2" >"$file.tmp" ||
      { echo "pect-search.sh: $name $policy $policy2 failed" >&2; return 1; }
  else
    file="$data/$name-${policy//[:=]/_}.json"
    nice "$report" "$workload" "$policy" >"$file.tmp" || { echo "pect-search.sh: $name $policy failed" >&2; return 1; }
  fi
  mv "$file.tmp" "$file"
}
export -f run_task
export report data
# shellcheck disable=SC2016  # $0 is expanded by the inner bash, on purpose
printf '%s\n' "${tasks[@]}" | xargs -P "$jobs" -d '\n' -n 1 bash -c 'run_task "$0"'

python3 "$root/scripts/results/pect-search-report.py" "$data" "$root/docs/results/pect-search.md" \
  "$(cd "$root" && git rev-parse --short HEAD 2>/dev/null || echo unknown)" "$(uname -srm); $(nproc) cores"
echo "pect-search.sh: wrote docs/results/pect-search.md"
