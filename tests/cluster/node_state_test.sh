#!/usr/bin/env bash
# Nodes drained and set DOWN in the middle of a run on a real 16-node Slurm
# cluster: no start after that (by losd or the fallback) uses them; the jobs
# already on them finish; every job completes once (Slurm's own records).
#
#   node_state_test.sh losd|fallback
set -uo pipefail
decider=${1:?usage: node_state_test.sh losd|fallback}
source "$(dirname "$0")/cluster.sh"

cluster_up 16 "los_fallback=easy"
[ "$decider" = losd ] && losd_start easy

ids=()
for i in $(seq 1 36); do
  ids+=("$(submit "d$i" $((1 + i % 4)) 1 $((2 + i % 2)))")
done
partition_up
wait_log "sched/los: started JobId" 0 30 >/dev/null
sleep 2

# DRAIN n1-n4 (busy or not), then DOWN n16 once drained and idle.
scontrol update NodeName=n[1-4] State=DRAIN Reason=los-test || fail "cannot drain n[1-4]"
drained_at=$(wait_log "update_node: node n1 .*(DRAIN|drain)" 0 10)
scontrol update NodeName=n16 State=DRAIN Reason=los-test || fail "cannot drain n16"
deadline=$((SECONDS + 30))
until sinfo -h -n n16 -o %T | grep -qx drained; do
  [ $SECONDS -lt $deadline ] || fail "n16 did not become drained"
  sleep 0.2
done
scontrol update NodeName=n16 State=DOWN Reason=los-test || fail "cannot set n16 DOWN"
down_at=$(wait_log "update_node: node n16 .*(DOWN|down)" 0 10)
log "drained n[1-4] at log line $drained_at, n16 down at line $down_at"
wait_all_done 240

check_completed_once "${ids[@]}"
check_no_overlap "${ids[@]}"
# Every start logged after the drain avoids n1-n4; after the DOWN, n16 too.
late=0
while IFS= read -r line; do
  num=${line%%:*}
  nodes="$(sed 's/.* on //' <<<"$line")"
  hosts="$(scontrol show hostnames "$nodes")"
  if [ "$num" -gt "$drained_at" ] && grep -qxE "n[1-4]" <<<"$hosts"; then
    fail "a start after the drain used a drained node: $line"
  fi
  if [ "$num" -gt "$down_at" ] && grep -qx "n16" <<<"$hosts"; then
    fail "a start after the DOWN used n16: $line"
  fi
  [ "$num" -gt "$drained_at" ] && late=$((late + 1))
done < <(grep -n "sched/los: started JobId" "$CLUSTER_DIR/slurmctld.log")
[ $late -gt 0 ] || fail "no job started after the drain: the test proved nothing"
echo "PASS: $late starts after the drain ($decider), none on drained or down nodes"
