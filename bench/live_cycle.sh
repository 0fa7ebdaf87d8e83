#!/usr/bin/env bash
# The cost of one scheduling cycle on a live cluster: sched/los (snapshot,
# round trip to losd, decide, apply) against sched/backfill's cycle from
# sdiag, on the same queue, in the same run: 32 nodes held by one running
# job, JOBS (default 1500) pending jobs of deterministic pseudo-random sizes
# (1..32 nodes) and time limits (1..120 min).
#
#   bench/live_cycle.sh [LOSD_POLICY]     # default conservative; as root, after a build
#
# JOBS may list several increasing queue lengths, e.g. JOBS="1500 5000 10000":
# each scheduler's queue then grows to each length in turn (the first jobs are
# the same at every length) and each is measured there; the table gets a row
# per length and a least-squares line through sched/los's snapshot and cycle
# medians (the fixed part and the cost per pending job), projected to 100,000
# jobs. tests/cluster/cluster.sh's MaxJobCount=20000 bounds the longest.
#
# SUBMITTERS (default 4) sbatch processes submit in parallel; job i has
# priority PRIO_TOP - i (root may set it), so the queue order is job i's
# place whatever order the submissions reach slurmctld in. BACKFILL=0 skips
# the sched/backfill half. sched/backfill runs with bf_interval=2,
# bf_max_job_test = max(5000, longest queue) and bf_max_time=300, so that a
# cycle may test the whole queue (sdiag's depth says whether it did).
#
# LOS_PARAMS (default "los_interval=1,los_fallback=none") are sched/los's
# SchedulerParameters; add los_query_socket=none to leave out the predicted
# starts (losd's forecast, computed each cycle, then competes for the CPUs).
#
# EXTRA_NODES=N (default 0) adds N node records without a slurmd (State=FUTURE,
# in no partition): nothing runs there, but every loop over slurmctld's node
# table is as long as on a cluster of 32 + N nodes.
#
# BLOCKERS=K (default 1; K divides 32): the nodes are held by K running jobs
# of 32 / K nodes each instead of one (what a running job costs the snapshot).
#
# WIDE=1 (with EXTRA_NODES=N) adds partition "wide" of all 32 + N nodes (no
# job of its own): the snapshot gets a view of 32 + N nodes, where the
# running jobs are listed too (what a running job costs in a big partition).
#
# STARTS=S (default 0): after the last queue length, the queue and the
# blockers are cancelled and S one-node jobs of 1 s submitted; sched/los starts
# them as nodes free up. Prints apply_us / started over the cycles that
# started jobs: the cost of a start under slurmctld's write locks
# (select_nodes() and the launch included).
#
# Prints one table; docs/benchmarks.md records the runs.
set -uo pipefail
policy=${1:-conservative}
JOBS=${JOBS:-1500}
SUBMITTERS=${SUBMITTERS:-4}
BACKFILL=${BACKFILL:-1}
EXTRA_NODES=${EXTRA_NODES:-0}
BLOCKERS=${BLOCKERS:-1}
WIDE=${WIDE:-0}
STARTS=${STARTS:-0}
LOS_PARAMS=${LOS_PARAMS:-los_interval=1,los_fallback=none}
NODES=32
PRIO_TOP=1000000
cd "$(dirname "$0")/.."
source tests/cluster/cluster.sh
CLUSTER_PARTITION_STATE=UP
if [ "$EXTRA_NODES" -gt 0 ]; then
  CLUSTER_EXTRA_CONF="NodeName=x[1-$EXTRA_NODES] NodeHostname=localhost CPUs=1 RealMemory=1 State=FUTURE${CLUSTER_EXTRA_CONF:+
$CLUSTER_EXTRA_CONF}"
  [ "$WIDE" = 1 ] && CLUSTER_EXTRA_CONF+="
PartitionName=wide Nodes=n[1-$NODES],x[1-$EXTRA_NODES] MaxTime=INFINITE State=UP"
fi

read -ra levels <<<"$JOBS"
[ ${#levels[@]} -ge 1 ] || fail "JOBS is empty"
prev=0
for n in "${levels[@]}"; do
  [[ "$n" =~ ^[0-9]+$ ]] && [ "$n" -gt "$prev" ] || fail "JOBS must list increasing job counts, not '$JOBS'"
  prev=$n
done
max_jobs=$prev
[ "$max_jobs" -lt 20000 ] || fail "at most 19,999 pending jobs (MaxJobCount=20000 in tests/cluster/cluster.sh)"
[ "$SUBMITTERS" -ge 1 ] || fail "SUBMITTERS must be >= 1"
[ "$BLOCKERS" -ge 1 ] && [ $((NODES % BLOCKERS)) -eq 0 ] || fail "BLOCKERS must divide $NODES"

# Job i's size and time limit: the same sequence as ever (an LCG from 12345),
# whatever the number of submitters.
job_size=()
job_minutes=()
x=12345
for ((i = 0; i < max_jobs; i++)); do
  x=$(((x * 1103515245 + 12345) % 2147483648))
  job_size[i]=$((1 + (x >> 8) % NODES))
  job_minutes[i]=$((1 + (x >> 16) % 120))
done

# block_nodes: BLOCKERS running jobs (default 1) of NODES / BLOCKERS nodes
# each, on every node, so that no pending job starts.
block_nodes() {
  local b ids=() id deadline=$((SECONDS + 60))
  for ((b = 0; b < BLOCKERS; b++)); do ids+=("$(submit blocker$b $((NODES / BLOCKERS)) 600 3600)"); done
  for id in "${ids[@]}"; do
    until [ "$(squeue -h -j "$id" -o %t)" = R ]; do
      [ $SECONDS -lt $deadline ] || fail "blocker job $id did not start"
      sleep 0.2
    done
  done
}

# fill_queue FROM TO: pending jobs FROM..TO-1, then checks that TO are pending.
fill_queue() {
  local from=$1 to=$2 w i t0=$SECONDS pids=() failed=0
  for ((w = 0; w < SUBMITTERS; w++)); do
    (
      for ((i = from + w; i < to; i += SUBMITTERS)); do
        sbatch --parsable -J q$i -N "${job_size[i]}" -t "${job_minutes[i]}" --priority=$((PRIO_TOP - i)) \
          -o /dev/null --wrap "sleep 60" >/dev/null || { echo "sbatch of job $i failed" >&2; exit 1; }
      done
    ) &
    pids+=($!)
  done
  for w in "${pids[@]}"; do wait "$w" || failed=1; done
  [ $failed -eq 0 ] || fail "a submission failed"
  log "submitted jobs $from..$((to - 1)) in $((SECONDS - t0)) s ($SUBMITTERS submitters)"
  local pending
  pending=$(squeue -h -t PD -o %i | wc -l)
  [ "$pending" -eq "$to" ] || fail "$pending jobs pending, expected $to"
}

median() { sort -n | awk '{a[NR]=$1} END {if (NR==0) print 0; else print a[int((NR+1)/2)]}'; }
minmax() { sort -n | awk 'NR==1 {lo=$1} {hi=$1} END {print lo " / " hi}'; }
# fit X1 Y1 X2 Y2 ...: least-squares line; prints "intercept slope".
fit() {
  awk 'BEGIN {
    n = 0; for (i = 1; i < ARGC; i += 2) { x = ARGV[i]; y = ARGV[i + 1]; n++; sx += x; sy += y; sxx += x * x; sxy += x * y }
    d = n * sxx - sx * sx; b = (d > 0 ? (n * sxy - sx * sy) / d : 0); a = (sy - b * sx) / n
    printf "%.1f %.4f\n", a, b }' "$@"
}

# ---- sched/los -------------------------------------------------------------
declare -A los_snapshot_min los_cycles los_total los_total_mm los_snapshot los_snapshot_mm los_decide los_apply los_predict resync_total resync_decide
CLUSTER_SCHEDULER=sched/los
cluster_up $NODES "$LOS_PARAMS"
losd_start "$policy"
block_nodes
have=0
for n in "${levels[@]}"; do
  fill_queue $have "$n"
  have=$n
  from=$(log_lines)
  sleep 12 # about ten periodic cycles on the full queue
  lines="$(tail -n +"$((from + 1))" "$CLUSTER_DIR/slurmctld.log" | grep "sched/los: cycle .*by=losd pending=$n ")"
  cycles=$(grep -c . <<<"$lines")
  [ "$cycles" -ge 3 ] || fail "only $cycles sched/los cycles on the queue of $n"
  values() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" <<<"$lines"; }
  los_cycles[$n]=$cycles
  los_total[$n]=$(values total_us | median)
  los_total_mm[$n]=$(values total_us | minmax)
  los_snapshot[$n]=$(values snapshot_us | median)
  los_snapshot_mm[$n]=$(values snapshot_us | minmax)
  los_snapshot_min[$n]=$(values snapshot_us | sort -n | head -1)
  los_decide[$n]=$(values decide_us | median)
  los_apply[$n]=$(values apply_us | median)
  # the rest of the cycle: losd's predicted starts (query socket) and the
  # Reason and StartTime of every pending job set from them under the write locks
  los_predict[$n]=$(sed -n 's/.* snapshot_us=\([0-9]*\) decide_us=\([0-9]*\) apply_us=\([0-9]*\) total_us=\([0-9]*\).*/\4 \1 \2 \3/p' <<<"$lines" \
    | awk '{print $1 - $2 - $3 - $4}' | median)
  # A cycle right after a losd restart: the snapshot is a resync and the
  # policy rebuilds its state (every reservation) from scratch.
  losd_stop quiet
  from=$(log_lines)
  losd_start "$policy" 2>/dev/null
  line=$(wait_log "by=losd pending=$n " "$from" 60)
  resync_total[$n]=$(sed -n "${line}s/.* total_us=\([0-9]*\).*/\1/p" "$CLUSTER_DIR/slurmctld.log")
  resync_decide[$n]=$(sed -n "${line}s/.* decide_us=\([0-9]*\).*/\1/p" "$CLUSTER_DIR/slurmctld.log")
  log "sched/los at $n pending: snapshot ${los_snapshot[$n]} us, total ${los_total[$n]} us (median of $cycles)"
done
starts_line=""
if [ "$STARTS" -gt 0 ]; then
  scancel --state=PENDING --partition=batch
  for ((b = 0; b < BLOCKERS; b++)); do scancel --name=blocker$b; done
  deadline=$((SECONDS + 120))
  until [ -z "$(squeue -h -o %i)" ]; do
    [ $SECONDS -lt $deadline ] || fail "the cancelled jobs did not end in 120 s"
    sleep 0.5
  done
  from=$(log_lines)
  for ((i = 0; i < STARTS; i++)); do
    sbatch --parsable -J s$i -N 1 -t 1 -o /dev/null --wrap "sleep 1" >/dev/null || fail "sbatch of start job $i failed"
  done
  deadline=$((SECONDS + 60 + STARTS))
  until [ -z "$(squeue -h -o %i)" ]; do
    [ $SECONDS -lt $deadline ] || fail "the $STARTS start jobs did not end in $((60 + STARTS)) s"
    sleep 1
  done
  starts_line=$(tail -n +"$((from + 1))" "$CLUSTER_DIR/slurmctld.log" | grep "sched/los: cycle .*by=losd .* started=[1-9]" |
    sed -n 's/.* started=\([0-9]*\) .* apply_us=\([0-9]*\).*/\1 \2/p' |
    awk '{s += $1; a += $2; c++; if (c == 1 || $2 / $1 < lo) lo = $2 / $1} END {
      if (s) printf "starts: %d jobs in %d cycles; apply under the write locks %.0f us per start (sum / sum), least per cycle %.0f us\n", s, c, a / s, lo }')
  [ -n "$starts_line" ] || fail "no cycle started a job"
  log "$starts_line"
fi
cluster_teardown

# ---- sched/backfill --------------------------------------------------------
declare -A bf_cycles bf_mean bf_last bf_depth main_mean
if [ "$BACKFILL" != 0 ]; then
  CLUSTER_SCHEDULER=sched/backfill
  cluster_up $NODES "bf_max_job_test=$((max_jobs > 5000 ? max_jobs : 5000)),bf_interval=2,bf_max_time=300"
  block_nodes
  have=0
  for n in "${levels[@]}"; do
    fill_queue $have "$n"
    have=$n
    sdiag -r >/dev/null
    deadline=$((SECONDS + 120 + n / 20))
    while :; do
      cycles=$(sdiag | sed -n 's/^[[:space:]]*Total cycles: *\([0-9]*\).*/\1/p' | sed -n 2p)
      [ "${cycles:-0}" -ge 3 ] && break
      [ $SECONDS -lt $deadline ] || fail "sched/backfill ran ${cycles:-0} cycles on $n jobs in $((120 + n / 20)) s"
      sleep 1
    done
    stats="$(sdiag)"
    bf_stats="$(sed -n '/^Backfilling stats/,/^$/p' <<<"$stats")"
    bf_cycles[$n]=$cycles
    bf_mean[$n]=$(sed -n 's/^[[:space:]]*Mean cycle: *\([0-9]*\).*/\1/p' <<<"$bf_stats" | head -1)
    bf_last[$n]=$(sed -n 's/^[[:space:]]*Last cycle: *\([0-9]*\).*/\1/p' <<<"$bf_stats" | head -1)
    bf_depth[$n]=$(sed -n 's/^[[:space:]]*Last depth cycle: *\([0-9]*\).*/\1/p' <<<"$bf_stats" | head -1)
    main_mean[$n]=$(sed -n 's/^[[:space:]]*Mean cycle: *\([0-9]*\).*/\1/p' <<<"$stats" | head -1)
    log "sched/backfill at $n pending: mean cycle ${bf_mean[$n]} us (depth ${bf_depth[$n]})"
  done
  cluster_teardown
fi

echo
extra=""
[ "$EXTRA_NODES" -gt 0 ] && extra=" (+ $EXTRA_NODES FUTURE node records)"
[ "$WIDE" = 1 ] && extra+=", partition wide of all of them"
extra+=", $BLOCKERS running job(s)"
echo "live cycle, $NODES nodes$extra, losd policy $policy, sched/los $LOS_PARAMS; microseconds; sched/los: median (min / max) of its periodic cycles"
printf "%-8s %-7s %-22s %-12s %-8s %-10s %-22s %-18s %-30s %-10s %s\n" pending cycles "snapshot" "round trip" apply \
  predict "sched/los total" resync "sched/backfill mean (depth)" "main" "ratio"
for n in "${levels[@]}"; do
  bf="-" main="-" ratio="-"
  if [ -n "${bf_mean[$n]:-}" ]; then
    bf="${bf_mean[$n]} (${bf_depth[$n]}, last ${bf_last[$n]})"
    main=${main_mean[$n]}
    ratio=$(awk -v a="${los_total[$n]}" -v b="${bf_mean[$n]}" 'BEGIN {printf "%.4f", (b > 0 ? a / b : 0)}')
  fi
  printf "%-8s %-7s %-22s %-12s %-8s %-10s %-22s %-18s %-30s %-10s %s\n" "$n" "${los_cycles[$n]}" \
    "${los_snapshot[$n]} (${los_snapshot_mm[$n]})" "${los_decide[$n]}" "${los_apply[$n]}" "${los_predict[$n]}" \
    "${los_total[$n]} (${los_total_mm[$n]})" "${resync_total[$n]} (${resync_decide[$n]})" "$bf" "$main" "$ratio"
done
echo "columns: snapshot under read locks (incl. taking them); round trip to losd incl. decide; apply under write"
echo "locks; predict: the rest of the cycle (losd's predicted starts, and every pending job's Reason and"
echo "StartTime set from them under the write locks); resync: the first cycle after a losd restart, total (round trip); main: slurmctld main scheduler, sdiag mean;"
echo "ratio: sched/los total / sched/backfill mean (goal <= 0.2)"
[ -n "$starts_line" ] && echo "$starts_line"
if [ ${#levels[@]} -ge 2 ]; then
  pts_snapshot=() pts_snapshot_min=() pts_total=()
  for n in "${levels[@]}"; do
    pts_snapshot+=("$n" "${los_snapshot[$n]}")
    pts_snapshot_min+=("$n" "${los_snapshot_min[$n]}")
    pts_total+=("$n" "${los_total[$n]}")
  done
  read -r a b < <(fit "${pts_snapshot[@]}")
  echo "snapshot = $a us + $b us/job (least squares over the medians); at 100,000 jobs: $(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.0f", a + b * 100000}') us"
  # the least disturbed cycles: on a shared machine the median can include waits for a CPU
  read -r a b < <(fit "${pts_snapshot_min[@]}")
  echo "snapshot, minimums = $a us + $b us/job; at 100,000 jobs: $(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.0f", a + b * 100000}') us"
  read -r a b < <(fit "${pts_total[@]}")
  echo "sched/los cycle = $a us + $b us/job (least squares over the medians); at 100,000 jobs: $(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.0f", a + b * 100000}') us"
fi
