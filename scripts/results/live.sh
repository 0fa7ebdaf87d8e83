#!/usr/bin/env bash
# Regenerates docs/results/live.md: one 300-job segment of SDSC-SP2 (sizes
# scaled to 32 nodes, arrivals rescaled to load 0.9) replayed with
# `los-sim replay` on a real local 32-node Slurm cluster (tests/cluster/cluster.sh)
# under Slurm's own sched/backfill (default parameters, and tuned) and under
# sched/los + losd with easy, conservative, los and tabu, each REPEATS times;
# per scheduler the live mean wait, bounded slowdown and utilization with 90%
# confidence intervals over the repeats, and per sched/los policy the error of
# the live run against los-sim's prediction and where it comes from.
#
# Usage: scripts/results/live.sh [BUILD_DIR]   (default: build)
# Settings (environment, with their defaults):
#   LIVE_REPEATS=2         runs per scheduler (the confidence intervals need 2+)
#   LIVE_COMPRESS=60       workload seconds per real second (one run ~50 min: 60x keeps
#                          SDSC-SP2's estimates, whose limits become whole minutes)
#   LIVE_TIME_GRAIN=whole  los-sim replay --time-grain: whole (submit and run times
#                          rounded to whole real seconds, in the replay and the
#                          prediction alike) or exact (unrounded: the pages' runs
#                          before the eighth session)
#   LIVE_SKIP=10000 LIVE_JOBS=300 LIVE_LOAD=0.9   the segment and its load
#   LIVE_SCHEDULERS="backfill backfill-tuned easy conservative los tabu"
#                          (a tabu entry may carry parameters: tabu:live-limit=0)
#   LIVE_FIRST_REPEAT=1    number of the first repeat made (adds repeats to earlier ones)
#   LIVE_PARALLEL=6        schedulers of one repeat run at once, each on its own cluster
#                          (own directory and ports; started 20 s apart)
#   LIVE_REPORT_ONLY=1     rewrite the page from the data of an earlier run on this machine
#                          (the schedules, *.swf, are derived from the trace and not committed)
# A run of the whole matrix with the defaults: 2 repeats x ~55 min (the six
# schedulers of a repeat at once). At another compression C or with
# LIVE_TIME_GRAIN=exact the data go to docs/results/live/data-xC[-exact] and the
# page to docs/results/live-xC[-exact].md (the 1000x runs of live-x1000-exact.md
# last 3-4 min each but erase the estimates). Runs repeat by repeat (every scheduler once, then again), so an
# interrupted matrix still has whole repeats; each run's outcome is kept in
# docs/results/live/data/SCHEDULER-rN.{json,latency.json,live.swf,pred.swf,as-run.swf}
# (a rerun overwrites the runs it makes, keeps the others).
# Needs: root, Slurm (slurmctld, slurmd), a build with the plugin, python3,
# the shared traces in ../shared/traces (or LOS_TRACES=DIR). The cluster
# daemons and the replay run at nice 10.
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"
sim="$build/bin/los-sim"
traces="${LOS_TRACES:-$root/../shared/traces}"
trace="$traces/SDSC-SP2-1998-4.2-cln.swf.gz"
repeats="${LIVE_REPEATS:-2}"
compress="${LIVE_COMPRESS:-60}"
skip="${LIVE_SKIP:-10000}"
njobs="${LIVE_JOBS:-300}"
load="${LIVE_LOAD:-0.9}"
grain="${LIVE_TIME_GRAIN:-whole}"
schedulers="${LIVE_SCHEDULERS:-backfill backfill-tuned easy conservative los tabu}"
nodes=32
parallel="${LIVE_PARALLEL:-6}"
first_repeat="${LIVE_FIRST_REPEAT:-1}"
out="$root/docs/results/live"
data="$out/data" page="$root/docs/results/live.md"
[[ "$grain" == whole || "$grain" == exact ]] || { echo "live.sh: LIVE_TIME_GRAIN must be whole or exact" >&2; exit 2; }
if [[ "$compress" != 60 || "$grain" != whole ]]; then
  variant="-x$compress"
  [[ "$grain" == whole ]] || variant+="-exact"
  data="$out/data$variant" page="$root/docs/results/live$variant.md"
fi

[[ -x "$sim" ]] || { echo "live.sh: $sim not found: build first" >&2; exit 1; }
[[ -f "$build/lib/sched_los.so" ]] || { echo "live.sh: $build/lib/sched_los.so not found: build with the plugin" >&2; exit 1; }
[[ -f "$trace" ]] || { echo "live.sh: missing trace $trace" >&2; exit 1; }
command -v python3 >/dev/null || { echo "live.sh: python3 not found" >&2; exit 1; }
[[ "$repeats" =~ ^[1-9][0-9]*$ ]] || { echo "live.sh: LIVE_REPEATS must be a positive integer" >&2; exit 2; }
[[ "$compress" =~ ^[1-9][0-9]*$ ]] || { echo "live.sh: LIVE_COMPRESS must be a positive integer" >&2; exit 2; }
[[ "$first_repeat" =~ ^[1-9][0-9]*$ ]] || { echo "live.sh: LIVE_FIRST_REPEAT must be a positive integer" >&2; exit 2; }
[[ "$parallel" =~ ^[1-9][0-9]*$ ]] || { echo "live.sh: LIVE_PARALLEL must be a positive integer" >&2; exit 2; }
# sched/backfill as a site would tune it for these jobs. Time is compressed
# C x: the default bf_interval (30 s) is 30 x C workload seconds (8 h at
# 1000x) and bf_resolution (60 s) 60 x C, so both go to 1 s; bf_window
# (minutes) covers the longest time limit of the segment (SDSC-SP2's 18 h:
# 2 min at 1000x, 18 at 60x) with 3 minutes of room; bf_continue goes on
# after a lock release.
window=$(((64800 + 60 * compress - 1) / (60 * compress) + 3))
tuned="bf_continue,bf_interval=1,bf_resolution=1,bf_window=$window"
mkdir -p "$data"
renice -n 10 $$ >/dev/null  # the cluster daemons and the replay inherit it

# One live run: SCHEDULER REPEAT -> $data/SCHEDULER-rREPEAT.*; in a subshell,
# so that the cluster (its EXIT trap) is gone when it returns.
# shellcheck disable=SC2034  # the CLUSTER_* settings are read by cluster.sh
run_one() (
  local sched=$1 rep=$2 base="$data/$1-r$2" predict
  export LOS_BUILD_DIR="$build"
  export LOS_CLUSTER_KEEP="${LOS_CLUSTER_KEEP:-/tmp/los-live-keep}"
  CLUSTER_NAME=live
  CLUSTER_PARTITION_STATE=UP
  # shellcheck source=../../tests/cluster/cluster.sh
  source "$root/tests/cluster/cluster.sh"
  case "$sched" in
    # Slurm refuses an empty SchedulerParameters=: bf_interval=30 is its default.
    backfill) CLUSTER_SCHEDULER=sched/backfill; cluster_up $nodes "bf_interval=30"; predict=easy ;;
    backfill-tuned) CLUSTER_SCHEDULER=sched/backfill; cluster_up $nodes "$tuned"; predict=easy ;;
    # A policy's own clock settings are in Slurm's (real) seconds live and in
    # workload seconds in the prediction: tabu searches every `period` seconds
    # (300), i.e. every 300 x C workload seconds live. Live gets
    # period = 300 / C (whole seconds, at least 1) and the prediction that
    # period x C, so both search as often in workload time.
    # "tabu:K=V:..." adds parameters to both (e.g. tabu:live-limit=0).
    tabu | tabu:*)
      local period=$(((300 + compress / 2) / compress)) extra="${sched#tabu}"
      ((period >= 1)) || period=1
      cluster_up_decided_by losd "tabu:period=$period$extra" $nodes
      predict="tabu:period=$((period * compress))$extra" ;;
    *) cluster_up_decided_by losd "$sched" $nodes; predict=$sched ;;
  esac
  log "run $rep: $sched ($njobs jobs, x$compress)"
  "$sim" replay --quiet --compress "$compress" --time-grain "$grain" --poll 1 --cluster-nodes $nodes --name "live-$sched" \
    --jobs "$njobs" --skip "$skip" --load "$load" --policy "$predict" --format json \
    --out "$base.live.swf" --prediction-out "$base.pred.swf" --as-run-out "$base.as-run.swf" \
    "$trace" >"$base.json.tmp" 2>"$base.err" || fail "replay $sched run $rep failed: $(tail -3 "$base.err")"
  mv "$base.json.tmp" "$base.json"
  [ -s "$base.err" ] || rm -f "$base.err"
  # The scheduler's reaction to submissions and completions, from slurmctld's
  # log (millisecond times; Slurm's job records have whole seconds).
  python3 "$root/scripts/results/live_latency.py" "$CLUSTER_DIR/slurmctld.log" >"$base.latency.json"
)

run_timed() {
  local t0=$SECONDS
  run_one "$1" "$2" || { echo "live.sh: $1 run $2 failed (logs in ${LOS_CLUSTER_KEEP:-/tmp/los-live-keep})" >&2; return 1; }
  echo "live.sh: $1 run $2 done in $((SECONDS - t0)) s" >&2
}

if [[ "${LIVE_REPORT_ONLY:-0}" != 1 ]]; then
  for rep in $(seq "$first_repeat" $((first_repeat + repeats - 1))); do
    if [[ $parallel == 1 ]]; then
      for sched in $schedulers; do run_timed "$sched" "$rep" || exit 1; done
      continue
    fi
    # Up to LIVE_PARALLEL clusters at once; the 20 s between starts lets each
    # cluster bind the ports it found free before the next one looks.
    pids=() failed=0
    for sched in $schedulers; do
      run_timed "$sched" "$rep" &
      pids+=($!)
      if [[ ${#pids[@]} -ge $parallel ]]; then
        for p in "${pids[@]}"; do wait "$p" || failed=1; done
        pids=()
      else
        sleep 20
      fi
    done
    for p in "${pids[@]}"; do wait "$p" || failed=1; done
    [[ $failed == 0 ]] || exit 1
  done
fi

python3 "$root/scripts/results/live_report.py" "$data" "$compress" "$njobs" "$skip" "$load" "$tuned" \
  "$sim" >"$page"
echo "live.sh: wrote ${page#"$root/"}" >&2
