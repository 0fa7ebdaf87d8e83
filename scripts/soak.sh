#!/usr/bin/env bash
# Soak: many short jobs through a real 32-node Slurm cluster on this host,
# scheduled by sched/los + losd, with compressed time (run times of 1-3 s
# stand for 1-3 minutes of a trace: 60x). While it runs it samples losd's RSS
# (/proc/PID/status) and, at the end, reads losd's /metrics (decision latency
# histogram, started counter) and checks them against Slurm's own records
# (the job completion log and slurmctld's log). Not part of CI.
#
#   scripts/soak.sh [--jobs N] [--max-seconds S] [--policy SPEC] [--out DIR]
#
#   --jobs         jobs to run (default 10000)
#   --max-seconds  stop submitting after S seconds and let the queue drain
#                  (default 0: no limit); the report says how many ran
#   --policy       losd's policy (default: los)
#   --queue        jobs kept submitted but not completed (default 200)
#   --sample       seconds between RSS samples (default 5)
#   --out          where rss.tsv, metrics.txt, summary.txt and the logs go
#                  (default build/soak-YYYYmmdd-HHMMSS)
#
# As root, after a build with the plugin. Exit 0 when every check holds.
set -uo pipefail
cd "$(dirname "$0")/.."
jobs=10000 max_seconds=0 policy=los queue=200 sample=5 out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --jobs) jobs=${2:?--jobs needs N}; shift 2 ;;
    --max-seconds) max_seconds=${2:?--max-seconds needs S}; shift 2 ;;
    --policy) policy=${2:?--policy needs SPEC}; shift 2 ;;
    --queue) queue=${2:?--queue needs N}; shift 2 ;;
    --sample) sample=${2:?--sample needs S}; shift 2 ;;
    --out) out=${2:?--out needs DIR}; shift 2 ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "soak.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
for v in jobs queue sample; do
  [[ "${!v}" =~ ^[1-9][0-9]*$ ]] || { echo "soak.sh: --$v must be a positive integer, not '${!v}'" >&2; exit 2; }
done
[[ "$max_seconds" =~ ^[0-9]+$ ]] || { echo "soak.sh: --max-seconds must be an integer, not '$max_seconds'" >&2; exit 2; }

source tests/cluster/cluster.sh
out="${out:-$LOS_BUILD_DIR/soak-$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$out" || { echo "soak.sh: cannot create $out" >&2; exit 2; }
out="$(cd "$out" && pwd)"
LOS_CLUSTER_KEEP="$out"
LOS_CLUSTER_KEEP_ALWAYS=1
CLUSTER_PARTITION_STATE=UP
CLUSTER_NAME=soak
NODES=32
port=$(free_port_range 1) || fail "no free port for the metrics endpoint"
LOSD_METRICS="127.0.0.1:$port"

cluster_up $NODES "los_fallback=none"
losd_start "$policy"
metrics() { curl -sf --max-time 10 "http://$LOSD_METRICS/metrics"; }
metrics >/dev/null || fail "losd's /metrics at $LOSD_METRICS does not answer"

# Sampler: elapsed s, losd RSS (KiB), jobs submitted, jobs completed.
rss_file="$out/rss.tsv"
echo -e "elapsed_s\trss_kib\tsubmitted\tcompleted" >"$rss_file"
t0=$SECONDS
(
  while kill -0 "$LOSD_PID" 2>/dev/null; do
    rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$LOSD_PID/status" 2>/dev/null)
    done_n=$(wc -l <"$CLUSTER_DIR/jobcomp.txt" 2>/dev/null || echo 0)
    sub=$(cat "$out/submitted" 2>/dev/null || echo 0)
    echo -e "$((SECONDS - t0))\t${rss:-0}\t$sub\t$done_n" >>"$rss_file"
    sleep "$sample"
  done
) &
sampler=$!

completed() { wc -l <"$CLUSTER_DIR/jobcomp.txt" 2>/dev/null || echo 0; }
log "soak: $jobs jobs (sizes 1-8 nodes, sleep 1-3 s, limit 1 min) under '$policy', at most $queue in the system"
submitted=0
while [ $submitted -lt "$jobs" ]; do
  if [ "$max_seconds" -gt 0 ] && [ $((SECONDS - t0)) -ge "$max_seconds" ]; then
    log "soak: --max-seconds $max_seconds reached after $submitted submissions"
    break
  fi
  if [ $((submitted - $(completed))) -ge "$queue" ]; then
    sleep 0.5
    continue
  fi
  # 20 submissions at a time, in parallel (one sbatch after another cannot
  # keep 32 nodes busy with 1-4 s jobs on a loaded host).
  batch=()
  for _ in $(seq 1 20); do
    [ $submitted -lt "$jobs" ] || break
    # Mostly small jobs, a few wide ones (sizes 1,1,1,2,2,3,4,8).
    sizes=(1 1 1 2 2 3 4 8)
    submit "s$submitted" "${sizes[RANDOM % 8]}" 1 $((1 + RANDOM % 3)) >>"$out/ids" &
    batch+=($!)
    submitted=$((submitted + 1))
  done
  wait "${batch[@]}"
  echo $submitted >"$out/submitted"
  [ $((submitted % 500)) -eq 0 ] && log "soak: submitted $submitted, completed $(completed), losd RSS $(tail -n1 "$rss_file" | cut -f2) KiB"
done
echo $submitted >"$out/submitted"
mapfile -t ids <"$out/ids"
wait_all_done $((600 + queue * 5))
sleep "$sample"
kill "$sampler" 2>/dev/null
wait "$sampler" 2>/dev/null
elapsed=$((SECONDS - t0))
metrics >"$out/metrics.txt" || fail "losd's /metrics did not answer at the end"

# ---- agreement with Slurm's own records ------------------------------------
comp="$CLUSTER_DIR/jobcomp.txt"
records=$(wc -l <"$comp")
completed_ok=$(grep -c " JobState=COMPLETED " "$comp")
distinct=$(sed 's/^JobId=\([0-9]*\) .*/\1/' "$comp" | sort -u | wc -l)
plugin_starts=$(grep -c "sched/los: started JobId=" "$CLUSTER_DIR/slurmctld.log")
distinct_starts=$(grep -o "sched/los: started JobId=[0-9]*" "$CLUSTER_DIR/slurmctld.log" | sort -u | wc -l)
by_losd=$(jobs_started_by losd)
not_losd=$(grep "started=[1-9]" "$CLUSTER_DIR/slurmctld.log" | grep -vc "by=losd")
metric() { awk -v m="$1" '$1 ~ "^"m"(\\{|$)" {s += $NF} END {printf "%d\n", s}' "$out/metrics.txt"; }
losd_started=$(metric los_jobs_started_total)
stale=$(grep -E '^los_plugin_reports_total\{.*kind="(stale_decision|start_failed)"' "$out/metrics.txt" \
  | awk '{s += $NF} END {printf "%d\n", s}')
running_gauge=$(metric los_running_jobs)
pending_gauge=$(metric los_pending_jobs)

# pXX of a Prometheus histogram (cumulative buckets, summed over labels),
# interpolated linearly inside the bucket, in microseconds.
hist_quantile() {
  local name=$1 q=$2
  grep "^${name}_bucket" "$out/metrics.txt" | sed 's/.*le="\([^"]*\)"} \(.*\)/\1 \2/' \
    | awk '{c[$1] += $2} END {for (le in c) print le, c[le]}' | sed 's/^+Inf/1e300/' | sort -g \
    | awk -v q="$q" '{le[NR] = $1; c[NR] = $2} END {
        total = c[NR]; if (total == 0) {print "n/a"; exit}
        want = q * total; lo = 0; prev = 0
        for (i = 1; i <= NR; i++) {
          if (c[i] >= want) {
            if (le[i] >= 1e299) {printf "> %.0f\n", lo * 1e6; exit}
            printf "%.0f\n", (lo + (le[i] - lo) * (want - prev) / (c[i] - prev)) * 1e6; exit
          }
          lo = le[i]; prev = c[i]
        }
      }'
}
lat_count=$(metric los_decision_latency_seconds_count)
lat_p50=$(hist_quantile los_decision_latency_seconds 0.5)
lat_p99=$(hist_quantile los_decision_latency_seconds 0.99)
snap_p50=$(hist_quantile los_snapshot_handling_seconds 0.5)
snap_p99=$(hist_quantile los_snapshot_handling_seconds 0.99)
rss_first=$(awk -F'\t' 'NR == 2 {print $2}' "$rss_file")
rss_max=$(awk -F'\t' 'NR > 1 && $2 > m {m = $2} END {print m}' "$rss_file")
rss_last=$(awk -F'\t' 'NR > 1 && $2 > 0 {l = $2} END {print l}' "$rss_file")
# RSS after the first fifth of the run (warm-up done) vs. the end.
rss_warm=$(awk -F'\t' -v s="$submitted" 'NR > 1 && $4 >= s / 5 {print $2; exit}' "$rss_file")

{
  echo "jobs submitted:                 $submitted (asked $jobs)"
  echo "wall time:                      $elapsed s"
  echo "completion records:             $records ($distinct distinct jobs, $completed_ok COMPLETED)"
  echo "plugin starts (slurmctld log):  $plugin_starts ($distinct_starts distinct jobs)"
  echo "jobs started by losd's cycles:  $by_losd; cycles starting jobs not by losd: $not_losd"
  echo "losd los_jobs_started_total:    $losd_started; start decisions the plugin skipped (stale/refused reports): $stale"
  echo "losd gauges at the end:         pending $pending_gauge, running $running_gauge"
  echo "decision latency (${lat_count} steps): p50 ${lat_p50} us, p99 ${lat_p99} us"
  echo "snapshot handling:              p50 ${snap_p50} us, p99 ${snap_p99} us"
  echo "losd RSS (KiB):                 first $rss_first, after warm-up ${rss_warm:-n/a}, max $rss_max, last $rss_last"
} | tee "$out/summary.txt"

[ "$records" -eq "$submitted" ] || fail "$records completion records for $submitted jobs"
[ "$distinct" -eq "$submitted" ] || fail "$distinct distinct jobs completed, $submitted submitted"
[ "$completed_ok" -eq "$submitted" ] || fail "only $completed_ok of $submitted jobs COMPLETED"
[ "$plugin_starts" -eq "$submitted" ] && [ "$distinct_starts" -eq "$submitted" ] \
  || fail "the plugin logged $plugin_starts starts of $distinct_starts jobs for $submitted jobs"
[ "$by_losd" -eq "$submitted" ] && [ "$not_losd" -eq 0 ] || fail "not every job was started by losd's decisions"
[ "$losd_started" -eq $((submitted + stale)) ] \
  || fail "losd counted $losd_started start decisions; Slurm ran $submitted and the plugin reported $stale skipped"
[ "$running_gauge" -eq 0 ] && [ "$pending_gauge" -eq 0 ] || fail "losd still sees jobs at the end"
if command -v gnuplot >/dev/null; then
  gnuplot <<EOF 2>/dev/null || log "gnuplot failed: no plot"
set terminal svg size 720,360 font "sans,11"
set output "$out/rss.svg"
set xlabel "jobs completed"
set ylabel "losd RSS (MiB)"
set yrange [0:*]
set grid
set key off
plot "$rss_file" using 4:(\$2/1024) skip 1 with lines lw 2
EOF
fi
echo "PASS: soak of $submitted jobs: every job completed once, started once by losd; losd's counters agree (results in $out)"
