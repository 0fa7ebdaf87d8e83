#!/usr/bin/env bash
# Start order and node counts of a scripted workload on a real 16-node Slurm
# cluster under sched/los, asserted from Slurm's own records (jobcomp/filetxt
# start and end times, node lists).
#
#   start_order_test.sh fifo|easy|conservative|los losd|fallback
#
# "losd": losd decides with that policy. "fallback": no losd runs and the
# plugin's own fallback (los_fallback=fifo|easy) decides.
#
# The workload (16 nodes, limits in minutes, sleeps in seconds), all queued
# before the partition opens so the first cycle sees the whole queue:
#   J1  8 nodes  limit 2  sleep 8
#   J2 12 nodes  limit 1  sleep 3
#   J3 14 nodes  limit 1  sleep 3
#   J4  4 nodes  limit 4  sleep 12
#   J5  2 nodes  limit 1  sleep 2
# At t0 J1 starts (8 free left). J2 cannot: EASY reserves it at J1's limit end
# (t=120) with 16-12 = 4 extra nodes.
#   FIFO:  only J1; then J2 after J1, J3 after J2, J4 and J5 after J3.
#   EASY:  J4 backfills (ends at 240 > 120 but fits the 4 extra nodes), J5
#          backfills (ends at 60 <= 120): J1, J4, J5 at t0; J2 when J1 ends
#          (beside J4: 16-4 = 12 free); J3 (14) only after J4 ends.
#   LOS:   the same as EASY here: the head J1 fits and starts; behind the
#          blocked J2 the candidates that fit now are J4 and J5 (J3 needs
#          14), and the set {J4, J5} fits now (6 <= 8) and in the extra nodes
#          (J4's 4 <= 4): both start. When J1 ends, J2 (head) fits and starts.
#   CONSERVATIVE: reservations J2 [120,180), J3 [180,240): J4 needs 4 nodes
#          for 240 s but [180,240) leaves 2 -> it waits; J5 ([0,60), 2 nodes)
#          starts: J1, J5 at t0; when J1 ends early, compression starts J2,
#          J3 follows J2, J4 follows J3.
set -uo pipefail
policy=${1:?usage: start_order_test.sh fifo|easy|conservative|los losd|fallback}
decider=${2:?usage: start_order_test.sh fifo|easy|conservative|los losd|fallback}
source "$(dirname "$0")/cluster.sh"

cluster_up_decided_by "$decider" "$policy" 16

j1=$(submit J1 8 2 8)
j2=$(submit J2 12 1 3)
j3=$(submit J3 14 1 3)
j4=$(submit J4 4 4 12)
j5=$(submit J5 2 1 2)
all=("$j1" "$j2" "$j3" "$j4" "$j5")
set_queue_order "${all[@]}"
partition_up
wait_all_done 180

check_completed_once "${all[@]}"
check_no_overlap "${all[@]}"

log_starts_after J1 "$j1" J2 "$j2" J3 "$j3" J4 "$j4" J5 "$j5"

case "$policy" in
  fifo)
    assert_le "$(end_time $j1)" "$(start_time $j2)" "fifo: J2 starts after J1 ends"
    assert_le "$(end_time $j2)" "$(start_time $j3)" "fifo: J3 starts after J2 ends"
    assert_le "$(end_time $j3)" "$(start_time $j4)" "fifo: J4 starts after J3 ends"
    assert_le "$(end_time $j3)" "$(start_time $j5)" "fifo: J5 starts after J3 ends"
    assert_started_together "$j4" "$j5" "fifo: J4 and J5 start together"
    ;;
  easy|los)
    assert_started_together "$j1" "$j4" "easy: J4 backfills at t0 on the extra nodes"
    assert_started_together "$j1" "$j5" "easy: J5 backfills at t0 (ends before the reservation)"
    assert_le "$(end_time $j1)" "$(start_time $j2)" "easy: J2 starts after J1 ends"
    assert_lt "$(start_time $j2)" "$(end_time $j4)" "easy: J2 starts beside the still running J4"
    assert_le "$(end_time $j4)" "$(start_time $j3)" "easy: J3 needs J4's nodes"
    ;;
  conservative)
    assert_started_together "$j1" "$j5" "conservative: J5 starts at t0"
    assert_le "$(end_time $j1)" "$(start_time $j2)" "conservative: J2 starts after J1 ends"
    assert_le "$(end_time $j2)" "$(start_time $j3)" "conservative: J3 starts after J2 ends"
    assert_le "$(end_time $j3)" "$(start_time $j4)" "conservative: J4 waits for J3's reservation"
    ;;
  *) fail "unknown policy '$policy'" ;;
esac

if [ "$decider" = losd ]; then
  check_decided_by_losd
else
  grep -q "by=$policy .*started=[1-9]" "$CLUSTER_DIR/slurmctld.log" || fail "no job was started by the $policy fallback"
fi
echo "PASS: start order under $policy ($decider)"
