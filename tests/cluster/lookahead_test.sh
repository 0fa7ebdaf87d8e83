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

case "$decider" in
  losd) cluster_up 16 "los_fallback=none"; losd_start "$policy" ;;
  fallback)
    [ "$policy" = easy ] || fail "the plugin's fallback has no $policy mode"
    cluster_up 16 "los_fallback=easy" ;;
  *) fail "decider must be losd or fallback, not '$decider'" ;;
esac

k1=$(submit K1 8 2 8)
k2=$(submit K2 16 1 2)
k3=$(submit K3 5 1 4)
k4=$(submit K4 4 1 4)
k5=$(submit K5 4 1 4)
all=("$k1" "$k2" "$k3" "$k4" "$k5")
prio=1000
for id in "${all[@]}"; do
  scontrol update JobId="$id" Priority=$prio || fail "cannot set priority of $id"
  prio=$((prio - 10))
done
partition_up
wait_all_done 120

check_completed_once "${all[@]}"
check_no_overlap "${all[@]}"
s() { jobtime StartTime "$1"; }
e() { jobtime EndTime "$1"; }
together() { local d=$(($(s "$1") - $(s "$2"))); [ ${d#-} -le 1 ] || fail "$3: $1 and $2 started $d s apart"; }
log "starts (s after K1): K2 $(($(s $k2) - $(s $k1))) K3 $(($(s $k3) - $(s $k1))) K4 $(($(s $k4) - $(s $k1))) K5 $(($(s $k5) - $(s $k1)))"

case "$policy" in
  easy)
    together "$k1" "$k3" "easy: K3 is the first fit at t0"
    assert_le "$(e $k3)" "$(s $k4)" "easy: K4 waits for K3"
    together "$k4" "$k5" "easy: K4 and K5 start together"
    ;;
  los)
    together "$k1" "$k4" "los: K4 is in the best set at t0"
    together "$k1" "$k5" "los: K5 is in the best set at t0"
    assert_le "$(e $k4)" "$(s $k3)" "los: K3 waits for K4 and K5"
    ;;
  *) fail "unknown policy '$policy'" ;;
esac
for id in "$k1" "$k3" "$k4" "$k5"; do assert_le "$(e $id)" "$(s $k2)" "K2 (16 nodes) starts after job $id ends"; done
echo "PASS: lookahead workload under $policy ($decider)"
