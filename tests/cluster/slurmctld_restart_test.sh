#!/usr/bin/env bash
# slurmctld restarts in the middle of a run on a real 8-node Slurm cluster
# decided by losd alone (no fallback): slurmctld saves its state on SIGTERM
# and recovers it; the reloaded plugin connects to losd again, whose first
# snapshot from it is a resync; losd decides again. No job is lost, none
# starts twice, every job completes (Slurm's own records).
set -uo pipefail
source "$(dirname "$0")/cluster.sh"
# slurm.conf's partition state, not the saved one, holds after a restart.
CLUSTER_PARTITION_STATE=UP

cluster_up 8 "los_fallback=none"
losd_start easy

ids=()
for i in $(seq 1 30); do
  ids+=("$(submit "c$i" $((1 + i % 4)) 1 $((1 + i % 3)))")
done
wait_log "by=losd .*started=[1-9]" 0 30 >/dev/null
started_before=$(jobs_started_by losd)
slurmctld_restart
# The loaded-again line is the last one; losd's decisions after it.
restarted_at=$(grep -n "sched/los: loaded" "$CLUSTER_DIR/slurmctld.log" | tail -n1 | cut -d: -f1)
n=$(wait_log "by=losd .*started=[1-9]" "$restarted_at" 60)
log "after the restart losd started jobs again (log line $n; $started_before started before it)"
wait_all_done 240

check_completed_once "${ids[@]}"
check_no_overlap "${ids[@]}"
check_decided_by_losd
[ "$(jobs_started_by losd)" -eq ${#ids[@]} ] || fail "losd's cycles started $(jobs_started_by losd) jobs, not ${#ids[@]}"
[ "$started_before" -lt ${#ids[@]} ] || fail "every job started before the restart: the test proved nothing"
# losd saw a second plugin handshake (after which its next snapshot rebuilds
# every partition's view: handlers.cpp).
[ "$(grep -c "plugin handshake" "$CLUSTER_DIR/losd.log")" -ge 2 ] || fail "losd did not see the restarted plugin's handshake"
echo "PASS: slurmctld restarted mid-run: $started_before jobs started before, $((${#ids[@]} - started_before)) after, each once, all by losd"
