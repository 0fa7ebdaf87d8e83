#!/usr/bin/env bash
# EASY against LOS on a real 16-node Slurm cluster: a workload where EASY's
# first fit and LOS's best set differ, asserted from Slurm's own records.
#
#   lookahead_test.sh easy|los losd|fallback      (fallback: easy only)
#
# The workload (16 nodes, limits in minutes, sleeps in seconds):
#   K1  8 nodes  limit 2  sleep 8    starts at t0 (8 free left)
#   K2 16 nodes  limit 1  sleep 2    blocked head: shadow = K1's limit end (120 s), extra 0
#   K3  5 nodes  limit 1  sleep 4    all three end (by their limits, 60 s) before the shadow
#   K4  4 nodes  limit 1  sleep 4
#   K5  4 nodes  limit 1  sleep 4
#   EASY: first fit: K3 starts at t0 (3 free left: K4, K5 do not fit); K4
#         and K5 start together when K3 ends; K2 after all of them.
#   LOS:  the set using the most nodes now: {K4, K5} = 8 beats {K3} = 5:
#         K4 and K5 start at t0; K3 when they end; K2 after all of them.
set -uo pipefail
policy=${1:?usage: lookahead_test.sh easy|los losd|fallback}
decider=${2:?usage: lookahead_test.sh easy|los losd|fallback}
source "$(dirname "$0")/cluster.sh"

[ "$decider" = fallback ] && [ "$policy" != easy ] && fail "the plugin's fallback has no $policy mode"
cluster_up_decided_by "$decider" "$policy" 16

k1=$(submit K1 8 2 8)
k2=$(submit K2 16 1 2)
k3=$(submit K3 5 1 4)
k4=$(submit K4 4 1 4)
k5=$(submit K5 4 1 4)
all=("$k1" "$k2" "$k3" "$k4" "$k5")
set_queue_order "${all[@]}"
partition_up
wait_all_done 120

check_completed_once "${all[@]}"
check_no_overlap "${all[@]}"
log_starts_after K1 "$k1" K2 "$k2" K3 "$k3" K4 "$k4" K5 "$k5"

case "$policy" in
  easy)
    assert_started_together "$k1" "$k3" "easy: K3 is the first fit at t0"
    assert_le "$(end_time $k3)" "$(start_time $k4)" "easy: K4 waits for K3"
    assert_started_together "$k4" "$k5" "easy: K4 and K5 start together"
    ;;
  los)
    assert_started_together "$k1" "$k4" "los: K4 is in the best set at t0"
    assert_started_together "$k1" "$k5" "los: K5 is in the best set at t0"
    assert_le "$(end_time $k4)" "$(start_time $k3)" "los: K3 waits for K4 and K5"
    ;;
  *) fail "unknown policy '$policy'" ;;
esac
for id in "$k1" "$k3" "$k4" "$k5"; do
  assert_le "$(end_time $id)" "$(start_time $k2)" "K2 (16 nodes) starts after job $id ends"
done
echo "PASS: lookahead workload under $policy ($decider)"
