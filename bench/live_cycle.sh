#!/usr/bin/env bash
# The cost of one scheduling cycle on a live cluster: sched/los (snapshot,
# round trip to losd, decide, apply) against sched/backfill's cycle from
# sdiag, on the same queue, in the same run: 32 nodes held by one running
# job, JOBS (default 1500) pending jobs of deterministic pseudo-random sizes
# (1..32 nodes) and time limits (1..120 min).
#
#   bench/live_cycle.sh [LOSD_POLICY]     # default conservative; as root, after a build
#
# Prints one table; docs/benchmarks.md records the runs.
set -uo pipefail
policy=${1:-conservative}
JOBS=${JOBS:-1500}
NODES=32
cd "$(dirname "$0")/.."
source tests/cluster/cluster.sh
CLUSTER_PARTITION_STATE=UP

# fill_queue: a blocker on every node, then JOBS pending jobs.
fill_queue() {
  local blocker i x=12345 size minutes t0
  blocker=$(submit blocker $NODES 600 3600)
  local deadline=$((SECONDS + 30))
  until [ "$(squeue -h -j "$blocker" -o %t)" = R ]; do
    [ $SECONDS -lt $deadline ] || fail "the blocker job did not start"
    sleep 0.2
  done
  t0=$SECONDS
  for ((i = 0; i < JOBS; i++)); do
    x=$(((x * 1103515245 + 12345) % 2147483648))
    size=$((1 + (x >> 8) % NODES))
    minutes=$((1 + (x >> 16) % 120))
    sbatch --parsable -J q$i -N $size -t $minutes -o /dev/null --wrap "sleep 60" >/dev/null || fail "sbatch $i failed"
  done
  log "submitted $JOBS jobs in $((SECONDS - t0)) s"
  local pending
  pending=$(squeue -h -t PD -o %i | wc -l)
  [ "$pending" -eq "$JOBS" ] || fail "$pending jobs pending, expected $JOBS"
}

median() { sort -n | awk '{a[NR]=$1} END {if (NR==0) print 0; else print a[int((NR+1)/2)]}'; }

# ---- sched/los -------------------------------------------------------------
CLUSTER_SCHEDULER=sched/los
cluster_up $NODES "los_interval=1,los_fallback=none"
losd_start "$policy"
fill_queue
from=$(log_lines)
sleep 12   # about ten periodic cycles on the full queue
lines="$(tail -n +"$((from + 1))" "$CLUSTER_DIR/slurmctld.log" | grep "sched/los: cycle .*by=losd pending=$JOBS ")"
cycles=$(grep -c . <<<"$lines")
[ "$cycles" -ge 3 ] || fail "only $cycles sched/los cycles on the full queue"
field() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" <<<"$lines" | median; }
los_total=$(field total_us)
los_snapshot=$(field snapshot_us)
los_decide=$(field decide_us)
los_apply=$(field apply_us)
los_min=$(sed -n 's/.* total_us=\([0-9]*\).*/\1/p' <<<"$lines" | sort -n | head -1)
los_max=$(sed -n 's/.* total_us=\([0-9]*\).*/\1/p' <<<"$lines" | sort -n | tail -1)
# A cycle right after a losd restart: the snapshot is a resync and the
# policy rebuilds its state (every reservation) from scratch.
losd_stop quiet
from=$(log_lines)
losd_start "$policy" 2>/dev/null
n=$(wait_log "by=losd pending=$JOBS " "$from" 30)
resync_total=$(sed -n "${n}s/.* total_us=\([0-9]*\).*/\1/p" "$CLUSTER_DIR/slurmctld.log")
cluster_teardown

# ---- sched/backfill --------------------------------------------------------
CLUSTER_SCHEDULER=sched/backfill
cluster_up $NODES "bf_max_job_test=5000,bf_interval=2"
fill_queue
sdiag -r >/dev/null
deadline=$((SECONDS + 120))
while :; do
  bf_cycles=$(sdiag | sed -n 's/^[[:space:]]*Total cycles: *\([0-9]*\).*/\1/p' | sed -n 2p)
  [ "${bf_cycles:-0}" -ge 3 ] && break
  [ $SECONDS -lt $deadline ] || fail "sched/backfill ran ${bf_cycles:-0} cycles in 120 s"
  sleep 1
done
bf_stats="$(sdiag | sed -n '/^Backfilling stats/,/^$/p')"
bf_mean=$(sed -n 's/^[[:space:]]*Mean cycle: *\([0-9]*\).*/\1/p' <<<"$bf_stats" | head -1)
bf_last=$(sed -n 's/^[[:space:]]*Last cycle: *\([0-9]*\).*/\1/p' <<<"$bf_stats" | head -1)
bf_depth=$(sed -n 's/^[[:space:]]*Last depth cycle: *\([0-9]*\).*/\1/p' <<<"$bf_stats" | head -1)
main_mean=$(sdiag | sed -n 's/^[[:space:]]*Mean cycle: *\([0-9]*\).*/\1/p' | head -1)
cluster_teardown

ratio=$(awk -v a="$los_total" -v b="$bf_mean" 'BEGIN {printf "%.3f", (b > 0 ? a / b : 0)}')
echo
echo "live cycle, $NODES nodes, $JOBS pending jobs (losd policy: $policy)"
printf "%-46s %12s\n" "what" "microseconds"
printf "%-46s %12s\n" "sched/los cycle total (median of $cycles)" "$los_total"
printf "%-46s %12s\n" "  min / max" "$los_min / $los_max"
printf "%-46s %12s\n" "  snapshot under read locks (median)" "$los_snapshot"
printf "%-46s %12s\n" "  round trip to losd incl. decide (median)" "$los_decide"
printf "%-46s %12s\n" "  apply under write locks (median)" "$los_apply"
printf "%-46s %12s\n" "sched/los cycle right after a losd restart" "$resync_total"
printf "%-46s %12s\n" "sched/backfill cycle, sdiag mean ($bf_cycles cycles)" "$bf_mean"
printf "%-46s %12s\n" "  last cycle (depth $bf_depth)" "$bf_last"
printf "%-46s %12s\n" "slurmctld main scheduler, sdiag mean" "$main_mean"
echo "ratio sched/los / sched/backfill: $ratio (goal <= 0.2)"
