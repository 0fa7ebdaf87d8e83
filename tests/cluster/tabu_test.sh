#!/usr/bin/env bash
# Tabu search deciding on a real 16-node Slurm cluster (sched/los + losd),
# asserted from Slurm's own records (jobcomp/filetxt start and end times).
#
#   tabu_test.sh tabu|tabu-safe|conservative
#
# losd runs the policy with a search every 5 s (tabu:period=5), so the first
# search comes within seconds instead of the default 300 s.
#
# R (16 nodes, limit 1 min, sleep 15) runs first. Then, in this order,
#   A 16 nodes  limit 4  sleep 6
#   B 16 nodes  limit 1  sleep 3
#   C 16 nodes  limit 1  sleep 3
# The conservative plan (limits as estimates): A at R's limit end (+60 s),
# B at +300, C at +360. The search tries A behind B and C: B at +60, C at
# +120, A at +180 cuts the planned waits from 720 to 360 s and the slowdowns
# from 14.25 to 6.75 (one user: F stays 0), so the move is kept. When R ends
# early, B starts, then C, then A.
#   tabu:          B and C start before A.
#   tabu:safe:     A was promised +60; the move would start it later: refused,
#                  A starts first, as under conservative.
#   conservative:  A first.
set -uo pipefail
variant=${1:?usage: tabu_test.sh tabu|tabu-safe|conservative}
case "$variant" in
  tabu) policy="tabu:period=5" ;;
  tabu-safe) policy="tabu:period=5:safe" ;;
  conservative) policy="conservative" ;;
  *) echo "usage: tabu_test.sh tabu|tabu-safe|conservative" >&2; exit 2 ;;
esac
source "$(dirname "$0")/cluster.sh"

cluster_up 16 "los_fallback=none"
losd_start "$policy"
partition_up

r=$(submit R 16 1 15)
wait_running "$r" 30
a=$(submit A 16 4 6)
b=$(submit B 16 1 3)
c=$(submit C 16 1 3)
all=("$r" "$a" "$b" "$c")
wait_all_done 120

check_completed_once "${all[@]}"
check_no_overlap "${all[@]}"

log_starts_after R "$r" A "$a" B "$b" C "$c"
assert_le "$(end_time $r)" "$(start_time $a)" "A starts after R"
case "$variant" in
  tabu)
    assert_le "$(end_time $b)" "$(start_time $c)" "tabu: C after B"
    assert_le "$(end_time $c)" "$(start_time $a)" "tabu: the search moved A behind B and C"
    ;;
  tabu-safe|conservative)
    assert_le "$(end_time $a)" "$(start_time $b)" "$variant: A (promised first) starts before B"
    assert_le "$(end_time $b)" "$(start_time $c)" "$variant: C after B"
    ;;
esac
check_decided_by_losd
echo "PASS: $variant on a live cluster"
