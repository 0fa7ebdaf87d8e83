#!/usr/bin/env bash
# losd's plugin socket file removed and recreated in the middle of a run on a
# real 8-node Slurm cluster:
#  1. the file is unlinked while losd runs: the plugin's open connection keeps
#     serving; losd binds the path again within a second or two;
#  2. losd freezes (SIGSTOP) so the plugin drops its connection and the easy
#     fallback decides; on SIGCONT the plugin reconnects through the rebound
#     path and losd decides again;
#  3. losd is killed and its (stale) socket file deleted: the fallback decides
#     while the path is absent, the reconnect attempts fail quietly (one error
#     line for the whole episode); losd starts and creates the path again: it
#     decides again.
# No job starts twice, every job completes (Slurm's own records).
set -uo pipefail
source "$(dirname "$0")/cluster.sh"

cluster_up 8 "los_fallback=easy"
losd_start easy
sock="$CLUSTER_SOCKET"
ids=()
for i in $(seq 1 60); do
  ids+=("$(submit "p$i" $((1 + i % 4)) 1 $((1 + i % 3)))")
done
partition_up
wait_log "by=losd .*started=[1-9]" 0 30 >/dev/null

# 1. unlinked under a running losd
inode=$(stat -c %i "$sock")
rm -f "$sock"
removed_at=$(log_lines)
deadline=$((SECONDS + 15))
until [ -S "$sock" ] && [ "$(stat -c %i "$sock")" != "$inode" ]; do
  [ $SECONDS -lt $deadline ] || fail "losd did not bind $sock again within 15 s"
  sleep 0.2
done
grep -q "socket file was removed under losd: bound again" "$CLUSTER_DIR/losd.log" || fail "losd did not log the rebind"
n=$(wait_log "by=losd .*started=[1-9]" "$removed_at" 60)
log "1. socket file unlinked: losd bound it again; losd still decides (log line $n)"
! tail -n +"$((removed_at + 1))" "$CLUSTER_DIR/slurmctld.log" | grep -q "unusable" \
  || fail "the plugin left losd when only the file was removed"

# 2. the plugin reconnects through the rebound path
kill -STOP "$LOSD_PID"
frozen_at=$(log_lines)
n=$(wait_log "by=easy .*started=[1-9]" "$frozen_at" 30)
kill -CONT "$LOSD_PID"
n=$(wait_log "$LOSD_HANDOVER_RE" "$n" 30)
n=$(wait_log "by=losd .*started=[1-9]" "$n" 60)
log "2. after a freeze the plugin reconnected through the rebound path (log line $n)"

# 3. losd gone and its file deleted; then back
gone_at=$(log_lines)
losd_stop
rm -f "$sock"
n=$(wait_log "by=easy .*started=[1-9]" "$gone_at" 30)
sleep 3  # several reconnect attempts (backoff up to 1 s) against the absent path
[ ! -e "$sock" ] || fail "something created $sock while losd was down"
errors=$(tail -n +"$((gone_at + 1))" "$CLUSTER_DIR/slurmctld.log" | grep -c "unusable")
[ "$errors" -eq 1 ] || fail "$errors error lines for one episode without losd (expected 1)"
back_at=$(log_lines)
losd_start easy
n=$(wait_log "$LOSD_HANDOVER_RE" "$back_at" 30)
n=$(wait_log "by=losd .*started=[1-9]" "$n" 60)
log "3. path absent: the fallback decided (one error line); losd back: it decides again (log line $n)"
wait_all_done 240

check_completed_once "${ids[@]}"
check_no_overlap "${ids[@]}"
by_losd=$(jobs_started_by losd)
by_fallback=$(jobs_started_by easy)
[ $((by_losd + by_fallback)) -eq ${#ids[@]} ] || fail "started $by_losd by losd + $by_fallback by the fallback != ${#ids[@]} jobs"
echo "PASS: socket file removed and recreated: $by_losd jobs started by losd, $by_fallback by the easy fallback, each once"
