#!/usr/bin/env bash
# losd dies in the middle of a run on a real 16-node Slurm cluster: jobs keep
# starting by the plugin's easy fallback; losd restarts: it decides again.
# Then losd freezes (SIGSTOP: connected but silent): the plugin times out,
# the fallback takes over; losd thaws (SIGCONT): it decides again. No job
# starts twice and every job completes (Slurm's own records).
#
#   losd_restart_test.sh [JOBS]   (default 70, as CI runs it; the results
#                                  page's run has 500)
set -uo pipefail
jobs=${1:-70}
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "usage: losd_restart_test.sh [JOBS]" >&2; exit 2; }
source "$(dirname "$0")/cluster.sh"

cluster_up 16 "los_fallback=easy"
losd_start easy

ids=()
for i in $(seq 1 "$jobs"); do
  ids+=("$(submit "r$i" $((1 + i % 6)) $((1 + i % 2)) $((1 + i % 3)))")
done
partition_up

wait_log "by=losd .*started=[1-9]" 0 30 >/dev/null
losd_stop
killed_at=$(log_lines)
n=$(wait_log "by=easy .*started=[1-9]" "$killed_at" 30)
log "after the kill the easy fallback started jobs (log line $n)"
sleep 4  # let the fallback run the cluster for a while
before_restart=$(log_lines)
losd_start easy
n=$(wait_log "$LOSD_HANDOVER_RE" "$before_restart" 30)
n=$(wait_log "by=losd .*started=[1-9]" "$n" 60)
log "after the restart losd started jobs again (log line $n)"
kill -STOP "$LOSD_PID"
frozen_at=$(log_lines)
n=$(wait_log "by=easy .*started=[1-9]" "$frozen_at" 30)
log "losd frozen: the easy fallback started jobs (log line $n)"
sed -n "$((frozen_at + 1)),${n}p" "$CLUSTER_DIR/slurmctld.log" | grep -q "no answer from losd within the timeout" \
  || fail "the switch to the fallback did not name the timeout"
sleep 3
thawed_at=$(log_lines)
kill -CONT "$LOSD_PID"
n=$(wait_log "$LOSD_HANDOVER_RE" "$thawed_at" 30)
n=$(wait_log "by=losd .*started=[1-9]" "$n" 60)
log "losd thawed: it started jobs again (log line $n)"
wait_all_done $((240 + jobs))

check_completed_once "${ids[@]}"
check_no_overlap "${ids[@]}"
by_losd=$(jobs_started_by losd)
by_fallback=$(jobs_started_by easy)
[ "$by_fallback" -ge 2 ] || fail "only $by_fallback jobs started by the fallback while losd was down"
[ $((by_losd + by_fallback)) -eq ${#ids[@]} ] || fail "started $by_losd by losd + $by_fallback by the fallback != ${#ids[@]} jobs"
echo "PASS: losd killed, restarted, frozen and thawed mid-run: $by_losd jobs started by losd, $by_fallback by the easy fallback, each once"
