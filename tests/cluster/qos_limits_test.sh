#!/usr/bin/env bash
# A start Slurm refuses for a QOS limit, on a real 4-node cluster with
# accounting (slurmdbd + MariaDB, AccountingStorageEnforce=...,limits,qos) and
# losd (easy): QOS "lim" allows 1 running job per user. While Q1 (lim) runs,
# Q2 (lim) is refused by Slurm's limit check, shows Slurm's Reason
# QOSMaxJobsPerUserLimit (again at the next cycle after an update cleared it,
# not only at its next try), is left out of the queue for los_retry_s (not
# retried every cycle), does not hold back B (QOS normal) behind it, and
# starts once Q1 has ended, when its back-off ends (los_interval=60: no
# periodic cycle does it).
set -uo pipefail
source "$(dirname "$0")/cluster.sh"

CLUSTER_SACCTMGR="add qos lim MaxJobsPerUser=1
modify user root set qos+=lim" CLUSTER_ACCOUNTING=1 CLUSTER_PARTITION_STATE=UP \
  cluster_up 4 "los_fallback=none,los_retry_s=8,los_interval=60"
scontrol show assoc_mgr flags=qos qos=lim | grep -q "^QOS=lim(" || fail "slurmctld does not know QOS lim"
losd_start easy

sub() { sbatch --parsable -N1 -t 1 -o "$CLUSTER_DIR/out/%j.out" "$@" | cut -d';' -f1; }
refusals() { grep -c "skipped start of JobId=$1 .*QOSMaxJobsPerUserLimit.*left out of the queue" "$CLUSTER_DIR/slurmctld.log"; }
release="$CLUSTER_DIR/out/release-q1"
# Q1 runs until the test releases it: Q2 is over the limit as long as needed
Q1=$(sub -J q1 --qos=lim --wrap "while [ ! -e $release ]; do sleep 0.2; done") || fail "sbatch Q1"
wait_running "$Q1" 15
from=$(log_lines)
Q2=$(sub -J q2 --qos=lim --wrap "sleep 1") || fail "sbatch Q2"
wait_log "skipped start of JobId=$Q2 .*QOSMaxJobsPerUserLimit.*left out of the queue" "$from" 15 >/dev/null
reason="$(squeue -h -j "$Q2" -o %r)"
[ "$reason" = QOSMaxJobsPerUserLimit ] || fail "refused Q2 pending with Reason '$reason', want QOSMaxJobsPerUserLimit"
B=$(sub -J behind --wrap "sleep 1") || fail "sbatch B"
# Q2 first: the update also clears Q2's Reason (Slurm's _update_job does)
set_queue_order "$Q2" "$B"
wait_running "$B" 15
# Q2 is left out of losd's queue for 8 s: a cycle sets Slurm's Reason again
deadline=$((SECONDS + 6))
until [ "$(squeue -h -j "$Q2" -o %r)" = QOSMaxJobsPerUserLimit ]; do
  [ $SECONDS -lt $deadline ] || fail "Q2 pending with Reason '$(squeue -h -j "$Q2" -o %r)' after the update, want QOSMaxJobsPerUserLimit"
  sleep 0.2
done
[ "$(refusals "$Q2")" -eq 1 ] || fail "Q2's Reason came back only when it was tried again"
[ "$(squeue -h -j "$Q2" -o %T)" = PENDING ] || fail "Q2 started while Q1 of the same user and QOS runs"
touch "$release"
wait_all_done 60
for id in "$Q1" "$Q2" "$B"; do echo 1 >"$CLUSTER_DIR/out/want-$id"; done
check_completed_once "$Q1" "$Q2" "$B"
assert_le "$(end_time "$Q1")" "$(start_time "$Q2")" "Q2 started before Q1 ended (MaxJobsPerUser=1)"
assert_lt "$(start_time "$B")" "$(start_time "$Q2")" "B waited behind the refused Q2"
n=$(refusals "$Q2")
cycles=$(grep -c "sched/los: cycle seq=" "$CLUSTER_DIR/slurmctld.log")
# back-off 8 s, 16 s: tried at most twice before Q1 ended, once more after
[ "$n" -le 3 ] || fail "Q2 was refused $n times in $cycles cycles: not backed off"
# once under the limit it starts when its last back-off ends (1-s records, a cycle)
last="$(grep "skipped start of JobId=$Q2 .*left out of the queue" "$CLUSTER_DIR/slurmctld.log" | tail -n1)"
retry_at=$(($(date -d "$(sed 's/^\[\([^]]*\)\..*/\1/' <<<"$last")" +%s) + $(sed 's/.*left out of the queue for \([0-9]*\) s.*/\1/' <<<"$last")))
assert_le "$(end_time "$Q1")" "$retry_at" "Q1 ended after Q2's last try: the test proves nothing"
assert_le "$(start_time "$Q2")" "$((retry_at + 3))" "Q2 did not start when its back-off ended"
check_decided_by_losd
log "Q2 refused $n times in $cycles cycles; started $(($(start_time "$Q2") - retry_at)) s after its back-off ended"
echo "PASS: a QOS-limited start showed Reason=QOSMaxJobsPerUserLimit, was refused $n times in $cycles cycles, did not block B"
