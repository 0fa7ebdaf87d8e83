#!/usr/bin/env bash
# Jobs submitted to several partitions, node ranges and task counts, on a real
# 4-node cluster with losd (easy): batch = n[1-4], a = n[1-2], b = n[3-4].
#   M2 (-p a,b) with both partitions idle: losd may decide it in both; it
#     starts exactly once.
#   M (-p a,b) while a is busy: it starts in b (on n3,n4) at once.
#   G (-N 2-4) gets 2 nodes and T (-n 3, no -N, 1 CPU a node) gets 3: the
#     sizes docs/plugin.md documents (min_nodes, or ceil(CPUs / CPUs a node)),
#     decided while jobs of a and b run on batch's nodes: every start losd
#     decides is one Slurm accepts.
#   O in partition c@d (= n[1-4]; a name that reads as a reservation view):
#     losd never hears of c@d, slurmctld logs an error naming it, and the
#     fallback (easy under los_fallback=none) starts O while losd decides.
set -uo pipefail
source "$(dirname "$0")/cluster.sh"

CLUSTER_EXTRA_CONF="PartitionName=a Nodes=n[1-2] MaxTime=INFINITE State=UP
PartitionName=b Nodes=n[3-4] MaxTime=INFINITE State=UP
PartitionName=c@d Nodes=n[1-4] MaxTime=INFINITE State=UP" CLUSTER_PARTITION_STATE=UP cluster_up 4 "los_fallback=none"
losd_start easy

sub() { sbatch --parsable -o "$CLUSTER_DIR/out/%j.out" -t 1 "$@" | cut -d';' -f1; }
M2=$(sub -J both-idle -p a,b -N2 --wrap "sleep 2") || fail "sbatch M2"
O=$(sub -J at-sign -p c@d -N1 --wrap "sleep 1") || fail "sbatch O"
wait_running "$M2" 10
wait_all_done 20
grep -q "error: sched/los: partition c@d: .*the 'easy' fallback schedules it" "$CLUSTER_DIR/slurmctld.log" \
  || fail "no error naming partition c@d in the slurmctld log"
! grep -q "c@d" "$CLUSTER_DIR/losd.log" || fail "losd saw partition c@d: $(grep "c@d" "$CLUSTER_DIR/losd.log" | head -2)"
X=$(sub -J busy-a -p a -N2 --wrap "sleep 6") || fail "sbatch X"
wait_running "$X" 10
M=$(sub -J a-or-b -p a,b -N2 --wrap "sleep 1") || fail "sbatch M"
wait_running "$M" 10
[ "$(jobnodes_now "$M")" = "n3 n4" ] || fail "M runs on $(jobnodes_now "$M"), not in b (n3 n4)"
[ "$(squeue -h -j "$M" -o %P)" = b ] || fail "M runs in partition $(squeue -h -j "$M" -o %P), not b"
G=$(sub -J range -N 2-4 --wrap "sleep 1") || fail "sbatch G"
T=$(sub -J tasks -n 3 --wrap "sleep 1") || fail "sbatch T"
wait_all_done 40

echo 2 >"$CLUSTER_DIR/out/want-$M2"; echo 2 >"$CLUSTER_DIR/out/want-$X"; echo 2 >"$CLUSTER_DIR/out/want-$M"
echo 2 >"$CLUSTER_DIR/out/want-$G"; echo 3 >"$CLUSTER_DIR/out/want-$T"; echo 1 >"$CLUSTER_DIR/out/want-$O"
check_completed_once "$M2" "$X" "$M" "$G" "$T" "$O"
assert_lt "$(start_time "$M")" "$(end_time "$X")" "M waited for partition a instead of starting in b"
check_no_overlap "$M2" "$X" "$M" "$G" "$T" "$O"
# every start losd decided held: overlapping partitions (batch over a and b)
# list each other's running jobs, so no policy starts a job on nodes it
# thinks free
! grep -q "Slurm refused the start" "$CLUSTER_DIR/slurmctld.log" \
  || fail "Slurm refused a start losd decided: $(grep "Slurm refused the start" "$CLUSTER_DIR/slurmctld.log" | head -2)"
check_decided_by_losd
echo "PASS: -p a,b started once (in b while a was busy); -N 2-4 got 2 nodes, -n 3 got 3; c@d was the fallback's"
