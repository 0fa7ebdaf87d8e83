#!/usr/bin/env bash
# A start Slurm refuses (a license in use) on a real 16-node cluster with
# losd (easy): the job shows Slurm's Reason (Licenses), is left out of the
# queue for los_retry_s (not retried every cycle), does not hold back the job
# behind it, and starts once the license is free. A job asking for a busy
# node (--nodelist) starts on that node once it is free.
set -uo pipefail
source "$(dirname "$0")/cluster.sh"

CLUSTER_EXTRA_CONF="Licenses=lic:1" CLUSTER_PARTITION_STATE=UP cluster_up 16 "los_fallback=none,los_retry_s=3"
losd_start easy

sub() { sbatch --parsable -o "$CLUSTER_DIR/out/%j.out" "$@" | cut -d';' -f1; }
L1=$(sub -J lic1 -L lic:1 -N1 -t 1 --wrap "sleep 8") || fail "sbatch L1"
wait_running "$L1" 10
N1=$(sub -J busy -w n16 -N1 -t 1 --wrap "sleep 8") || fail "sbatch N1"
wait_running "$N1" 10
L2=$(sub -J lic2 -L lic:1 -N1 -t 1 --wrap "sleep 1") || fail "sbatch L2"
N2=$(sub -J wantn16 -w n16 -N1 -t 1 --wrap "sleep 1") || fail "sbatch N2"
B=$(sub -J behind -N1 -t 1 --wrap "sleep 1") || fail "sbatch B"
set_queue_order "$L2" "$N2" "$B"
wait_running "$B" 10
# set_queue_order's updates clear L2's Reason (Slurm sets None); the next
# cycle says why it waits again, even while L2 is left out of the queue
deadline=$((SECONDS + 5))
until reason="$(squeue -h -j "$L2" -o %r)" && [ "$reason" = Licenses ]; do
  [ $SECONDS -lt $deadline ] || fail "L2 pending with Reason '$reason' for 5 s, want Licenses"
  sleep 0.2
done
[ "$(squeue -h -j "$L2" -o %T)" = PENDING ] || fail "L2 started while L1 holds the license"
wait_all_done 60
for id in "$L1" "$N1" "$L2" "$N2" "$B"; do echo 1 >"$CLUSTER_DIR/out/want-$id"; done
check_completed_once "$L1" "$N1" "$L2" "$N2" "$B"
assert_le "$(end_time "$L1")" "$(start_time "$L2")" "L2 started before L1 released the license"
[ "$(jobnodes "$N2")" = n16 ] || fail "N2 ran on $(jobnodes "$N2"), not n16"
assert_lt "$(start_time "$B")" "$(start_time "$L2")" "B waited behind the refused L2"
refusals=$(grep -c "skipped start of JobId=$L2 .*Licenses.*left out of the queue" "$CLUSTER_DIR/slurmctld.log")
cycles=$(grep -c "sched/los: cycle seq=" "$CLUSTER_DIR/slurmctld.log")
[ "$refusals" -ge 1 ] || fail "no refusal of L2 logged"
# L1 holds the license ~8 s; back-off 3 s, 6 s: at most 3 attempts
[ "$refusals" -le 3 ] || fail "L2 was refused $refusals times in $cycles cycles: not backed off"
check_decided_by_losd
echo "PASS: a refused start showed Reason=Licenses, was retried $refusals times in $cycles cycles, did not block B"
