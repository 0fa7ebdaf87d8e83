#!/usr/bin/env bash
# The live demo: a real 32-node Slurm cluster on this host scheduled by
# sched/los + losd, replaying a shipped generated workload with compressed
# time, then a summary from Slurm's own records. Leaves nothing running.
#
#   scripts/live-demo.sh [--policy SPEC] [--compress C] [--workload FILE.swf]
#
#   --policy    losd's policy for the partition (default: easy)
#   --compress  trace seconds per real second (default: 60); Slurm time limits
#               are whole minutes, so limits round up to ceil(estimate / C / 60) min
#   --workload  SWF with sizes in nodes, at most 32 (default:
#               conf/workloads/live-demo-60.swf, from scripts/gen-live-workload.sh)
#
# As root, after a build with the plugin (scripts/demo.sh does all of it).
set -uo pipefail
cd "$(dirname "$0")/.."
policy=easy
compress=60
workload=conf/workloads/live-demo-60.swf
while [ $# -gt 0 ]; do
  case "$1" in
    --policy) policy=${2:?--policy needs a SPEC}; shift 2 ;;
    --compress) compress=${2:?--compress needs a number}; shift 2 ;;
    --workload) workload=${2:?--workload needs a FILE}; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "live-demo.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ "$compress" =~ ^[1-9][0-9]*$ ]] || { echo "live-demo.sh: --compress must be a positive integer, not '$compress'" >&2; exit 2; }
[ -f "$workload" ] || { echo "live-demo.sh: workload '$workload' not found" >&2; exit 2; }
NODES=32
bad=$(awk -v n=$NODES '!/^;/ && NF >= 9 && ($5 < 1 || $5 > n || $4 < 0) {print NR; exit}' "$workload")
[ -z "$bad" ] || { echo "live-demo.sh: $workload line $bad: size outside 1..$NODES or negative run time" >&2; exit 2; }

source tests/cluster/cluster.sh
CLUSTER_PARTITION_STATE=UP
CLUSTER_NAME=demo
port=$(free_port_range 1) || fail "no free port for the metrics endpoint"
LOSD_METRICS="127.0.0.1:$port"

cluster_up $NODES "los_fallback=easy"
losd_start "$policy"
echo
echo "losd metrics:  http://$LOSD_METRICS/metrics   (e.g. curl -s http://$LOSD_METRICS/metrics | grep ^los_)"
echo "slurm:         SLURM_CONF=$SLURM_CONF squeue"
echo

# The jobs: id submit run size estimate (trace seconds).
mapfile -t jobs < <(awk '!/^;/ && NF >= 9 {est = ($9 > 0 ? $9 : $4); print $1, $2, $4, $5, est}' "$workload")
count=${#jobs[@]}
[ "$count" -gt 0 ] || fail "no jobs in $workload"
first_submit=$(cut -d' ' -f2 <<<"${jobs[0]}")
span=$(( ($(cut -d' ' -f2 <<<"${jobs[count-1]}") - first_submit) / compress ))
echo "replaying $count jobs of $workload under '$policy', $compress x faster (arrivals over ${span} s)"

progress() {
  local pd r
  pd=$(squeue -h -t PD -o %i | wc -l)
  r=$(squeue -h -t R,CG -o %i | wc -l)
  local started
  started=$(curl -s --max-time 1 "http://$LOSD_METRICS/metrics" 2>/dev/null | awk '/^los_jobs_started_total/ {s += $NF} END {print s + 0}')
  printf '[%4d s] submitted %3d/%d  pending %3d  running %3d  losd started %s\n' \
    $((SECONDS - t0)) "$1" "$count" "$pd" "$r" "$started"
}

declare -A submit_at size_of
t0=$SECONDS
start_ns=$(date +%s%N)
next_report=10
i=0
for line in "${jobs[@]}"; do
  read -r id submit run size est <<<"$line"
  due_ns=$((start_ns + (submit - first_submit) * 1000000000 / compress))
  now_ns=$(date +%s%N)
  if [ $due_ns -gt $now_ns ]; then sleep "$(awk -v d=$((due_ns - now_ns)) 'BEGIN {printf "%.3f", d / 1e9}')"; fi
  minutes=$(( (est + compress * 60 - 1) / (compress * 60) ))
  secs=$(awk -v r="$run" -v c="$compress" 'BEGIN {printf "%.2f", r / c}')
  jid=$(sbatch --parsable -J "w$id" -N "$size" -t "$minutes" -o /dev/null --wrap "sleep $secs") || fail "sbatch of job $id failed"
  jid=${jid%%;*}
  submit_at[$jid]=$(date +%s.%N)
  size_of[$jid]=$size
  i=$((i + 1))
  if [ $((SECONDS - t0)) -ge $next_report ]; then progress $i; next_report=$((SECONDS - t0 + 10)); fi
done
while [ -n "$(squeue -h -o %i)" ]; do
  if [ $((SECONDS - t0)) -ge $next_report ]; then progress $i; next_report=$((SECONDS - t0 + 10)); fi
  sleep 1
  [ $((SECONDS - t0)) -lt 3600 ] || fail "jobs still running after an hour"
done
[ $((SECONDS - t0)) -eq $((next_report - 10)) ] || progress $i

# ---- summary from Slurm's records (slurmctld log: millisecond times) --------
logf="$CLUSTER_DIR/slurmctld.log"
table="$CLUSTER_DIR/summary.txt"
: >"$table"
for jid in "${!submit_at[@]}"; do
  st=$(grep -m1 "sched/los: started JobId=$jid " "$logf" | sed 's/^\[\([^]]*\)\].*/\1/')
  en=$(grep -m1 "_job_complete: JobId=$jid done" "$logf" | sed 's/^\[\([^]]*\)\].*/\1/')
  [ -n "$st" ] && [ -n "$en" ] || fail "job $jid has no start or completion in the slurmctld log"
  [ "$(jobcomp JobState "$jid")" = COMPLETED ] || fail "job $jid ended $(jobcomp JobState "$jid")"
  echo "$jid ${submit_at[$jid]} $(date -d "$st" +%s.%N) $(date -d "$en" +%s.%N) ${size_of[$jid]}" >>"$table"
done
by_fallback=$(grep -E "by=easy .*started=[1-9]" "$logf" | sed 's/.*started=\([0-9]*\).*/\1/' | awk '{s+=$1} END {print s+0}')
echo
awk -v c="$compress" -v n=$NODES -v policy="$policy" -v fb="$by_fallback" '
  { sub_t = $2; st = $3; en = $4; size = $5;
    wait = (st - sub_t) * c; run = (en - st) * c; if (wait < 0) wait = 0;
    w += wait; b += ((wait + run) / (run > 10 ? run : 10) > 1 ? (wait + run) / (run > 10 ? run : 10) : 1);
    area += size * run;
    if (NR == 1 || sub_t < first) first = sub_t; if (en > last) last = en; jobs++ }
  END {
    span = (last - first) * c;
    printf "live run under %s (Slurm 22.05, %d nodes, time x%d; in trace seconds)\n", policy, n, c;
    printf "%-28s %10s\n", "metric", "value";
    printf "%-28s %10d\n", "jobs", jobs;
    printf "%-28s %10.0f\n", "mean wait (s)", w / jobs;
    printf "%-28s %10.2f\n", "mean bounded slowdown", b / jobs;
    printf "%-28s %10.3f\n", "utilization", area / (n * span);
    printf "%-28s %10.0f\n", "makespan (s)", span;
    printf "%-28s %10d\n", "started by the fallback", fb;
  }' "$table"
echo
echo "(los-sim on the same workload: build/bin/los-sim --policy $policy $workload)"
cluster_teardown
echo "cluster stopped; nothing left running"
