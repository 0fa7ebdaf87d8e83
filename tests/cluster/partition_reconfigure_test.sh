#!/usr/bin/env bash
# The partition is reconfigured in the middle of a run on a real 16-node
# Slurm cluster decided by losd: slurm.conf's partition line changes and
# `scontrol reconfigure` applies it, twice:
#   n[1-16] -> n[1-12]     (n13-n16 removed, jobs on them keep running)
#   n[1-12] -> n[5-16]     (n1-n4 removed, n13-n16 added back)
# After each change losd decides again, no later start uses a node outside
# the partition, starts use the added nodes; no job starts twice and every
# job completes (Slurm's own records).
set -uo pipefail
source "$(dirname "$0")/cluster.sh"
# reconfigure resets the partition to slurm.conf's State (no
# ReconfigFlags=KeepPartState): UP there from the start.
CLUSTER_PARTITION_STATE=UP

cluster_up 16 "los_fallback=none"
losd_start easy
ids=()
# wave W: 25 more jobs (the partition is UP: they queue behind each other)
wave() {
  for i in $(seq 1 25); do
    ids+=("$(submit "q$1-$i" $((1 + i % 4)) 1 $((2 + i % 3)))")
  done
}
wave 1
wait_log "by=losd .*started=[1-9]" 0 30 >/dev/null

# reconfigure NODES: the batch partition is NODES from now on.
reconfigure() {
  local from begin
  sed -i "s/^PartitionName=batch Nodes=[^ ]* /PartitionName=batch Nodes=$1 /" "$SLURM_CONF"
  grep -qF "PartitionName=batch Nodes=$1 " "$SLURM_CONF" || fail "cannot rewrite the partition line"
  from=$(log_lines)
  scontrol reconfigure || fail "scontrol reconfigure failed"
  # The change takes effect inside the request, before its "completed" line;
  # a cycle may start a job in between (on either configuration's nodes).
  begin=$(wait_log "Processing Reconfiguration Request" "$from" 30)
  from=$(wait_log "_slurm_rpc_reconfigure_controller: completed" "$from" 30)
  deadline=$((SECONDS + 30))
  until [ "$(scontrol show partition batch | sed -n 's/^ *Nodes=//p')" = "$1" ]; do
    [ $SECONDS -lt $deadline ] || fail "partition batch is not $1 after reconfigure"
    sleep 0.2
  done
  echo "$begin $from"
}
read -r first_begin first < <(reconfigure "n[1-12]") || exit 1
[ -n "$first" ] || exit 1
wave 2
# A start line after the change completed: a cycle summary right after it
# may report starts made inside the request (before its "completed" line).
wait_log "sched/los: started JobId" "$first" 60 >/dev/null
log "partition n[1-12] from log line $first; losd decided again"
read -r second_begin second < <(reconfigure "n[5-16]") || exit 1
[ -n "$second" ] || exit 1
wave 3
wait_log "sched/los: started JobId" "$second" 60 >/dev/null
log "partition n[5-16] from log line $second; losd decided again"
wait_all_done 240

check_completed_once "${ids[@]}"
check_no_overlap "${ids[@]}"
check_decided_by_losd
[ "$(jobs_started_by losd)" -eq ${#ids[@]} ] || fail "losd's cycles started $(jobs_started_by losd) jobs, not ${#ids[@]}"
# Starts after each change use only the partition's nodes of that moment,
# and after the second some start uses a node added back (n13-n16).
after_first=0 after_second=0 on_added=0
while IFS= read -r line; do
  num=${line%%:*}
  hosts="$(scontrol show hostnames "$(sed 's/.* on //' <<<"$line")")"
  if [ "$num" -gt "$second" ]; then
    ! grep -qxE "n[1-4]" <<<"$hosts" || fail "a start after the second change used n1-n4: $line"
    grep -qxE "n1[3-6]" <<<"$hosts" && on_added=$((on_added + 1))
    after_second=$((after_second + 1))
  elif [ "$num" -gt "$second_begin" ] || { [ "$num" -gt "$first_begin" ] && [ "$num" -lt "$first" ]; }; then
    continue  # during a reconfigure request: either partition is right
  elif [ "$num" -gt "$first" ]; then
    ! grep -qxE "n1[3-6]" <<<"$hosts" || fail "a start after the first change used n13-n16: $line"
    after_first=$((after_first + 1))
  fi
done < <(grep -n "sched/los: started JobId" "$CLUSTER_DIR/slurmctld.log")
[ "$after_first" -gt 0 ] && [ "$after_second" -gt 0 ] || fail "no start between or after the changes: the test proved nothing"
[ "$on_added" -gt 0 ] || fail "no start after the second change used the nodes added back"
skipped=$(grep -c "sched/los: skipped" "$CLUSTER_DIR/slurmctld.log")
echo "PASS: partition reconfigured twice mid-run: $after_first starts on n[1-12], $after_second on n[5-16] ($on_added on added nodes), $skipped stale decisions skipped, each job once"
