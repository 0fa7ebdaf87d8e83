#!/usr/bin/env bash
# Changes in the queue reach the next cycle, on a real 2-node cluster with
# losd (fcfs: starts in priority order). Every job needs both nodes, so they
# run one after another in the order losd decides:
#   R (running, --requeue) is requeued by `scontrol requeue`: it runs again,
#     exactly once more (AuthInfo=cred_expire=5 keeps Slurm's begin-time delay
#     of a requeued job at 6 s);
#   P4, submitted last, is moved to the top by `scontrol update Priority=`: it
#     starts before P1..P3;
#   P1, planned by losd (a predicted start in squeue --start), is cancelled:
#     it never starts and P2 starts next;
#   H is held (`scontrol hold`): it does not start while held although the
#     nodes are idle; released while n2 is drained it waits; n2 resumed from
#     DRAIN: H starts on both nodes;
#   Q2 (both nodes) waits behind a running 1-node job with Reason Resources,
#     Q3 (1 node) behind Q2 with Reason Priority; `scontrol top Q3` starts it
#     at the next cycle;
#   C (--constraint=big, n2 only, n2 busy) is refused by Slurm, backs off
#     (los_retry_s=2), D behind it starts, and C later runs on n2.
set -uo pipefail
source "$(dirname "$0")/cluster.sh"

CLUSTER_EXTRA_CONF="AuthInfo=cred_expire=5" CLUSTER_PARTITION_STATE=UP cluster_up 2 "los_fallback=none,los_retry_s=2"
losd_start fcfs

sub() { sbatch --parsable -o "$CLUSTER_DIR/out/%j.out" -N2 -t 1 "$@" | cut -d';' -f1; }
R=$(sub -J requeued --requeue --wrap "sleep 4") || fail "sbatch R"
wait_running "$R" 10
H=$(sub -J held --wrap "sleep 1") || fail "sbatch H"
scontrol hold "$H" || fail "scontrol hold $H"
P1=$(sub -J cancelled --wrap "sleep 1") || fail "sbatch P1"
P2=$(sub -J p2 --wrap "sleep 1") || fail "sbatch P2"
P3=$(sub -J p3 --wrap "sleep 1") || fail "sbatch P3"
P4=$(sub -J top --wrap "sleep 1") || fail "sbatch P4"
set_queue_order "$P1" "$P2" "$P3" "$P4"
scontrol update JobId="$P4" Priority=2000 || fail "cannot raise the priority of $P4"
# P1 is planned: losd's predicted start shows in squeue --start
deadline=$((SECONDS + 10))
until [[ "$(squeue -h --start -j "$P1" -o %S)" =~ ^[0-9]{4}- ]]; do
  [ $SECONDS -lt $deadline ] || fail "no predicted start for $P1 within 10 s: $(squeue -h --start -j "$P1" -o '%S %r')"
  sleep 0.2
done
scancel "$P1" || fail "scancel $P1"
scontrol requeue "$R" || fail "scontrol requeue $R"
# every job but H runs; H stays pending while held, nodes idle
deadline=$((SECONDS + 40))
while [ -n "$(squeue -h -t PD,R,CG -o %i | grep -vx "$H")" ]; do
  [ $SECONDS -lt $deadline ] || { squeue >&2; fail "jobs left after 40 s"; }
  sleep 0.3
done
wait_log "cycle seq=" "$(log_lines)" 15 >/dev/null
[ "$(squeue -h -j "$H" -o %T)" = PENDING ] || fail "held job $H is $(squeue -h -j "$H" -o %T)"
scontrol update NodeName=n2 State=DRAIN Reason=los-test || fail "cannot drain n2"
scontrol release "$H" || fail "scontrol release $H"
wait_log "cycle seq=" "$(log_lines)" 15 >/dev/null
sleep 1
[ "$(squeue -h -j "$H" -o %T)" = PENDING ] || fail "$H started with n2 drained"
resumed=$(date +%s)
scontrol update NodeName=n2 State=RESUME || fail "cannot resume n2"
wait_running "$H" 15
wait_all_done 20

# Reasons: Q1 (1 node) runs on n1; Q2 (both nodes) waits for it: Resources;
# Q3 (1 node) would fit n2, but fcfs keeps the order: Priority. `scontrol
# top Q3`: the next cycle starts it, before Q2.
Q1=$(sub -J q1 -N1 --wrap "sleep 6") || fail "sbatch Q1"
wait_running "$Q1" 10
Q2=$(sub -J q2 --wrap "sleep 1") || fail "sbatch Q2"
Q3=$(sub -J q3 -N1 --wrap "sleep 1") || fail "sbatch Q3"
set_queue_order "$Q2" "$Q3"
deadline=$((SECONDS + 15))
until [ "$(squeue -h -j "$Q2" -o %r)/$(squeue -h -j "$Q3" -o %r)" = Resources/Priority ]; do
  [ $SECONDS -lt $deadline ] \
    || fail "reasons of Q2/Q3 are $(squeue -h -j "$Q2" -o %r)/$(squeue -h -j "$Q3" -o %r), want Resources/Priority"
  sleep 0.3
done
[ "$(squeue -h -j "$Q3" -o %T)" = PENDING ] || fail "Q3 started past Q2 under fcfs"
scontrol top "$Q3" || fail "scontrol top $Q3"
wait_running "$Q3" 10
[ "$(squeue -h -j "$Q2" -o %T)" = PENDING ] || fail "Q2 is $(squeue -h -j "$Q2" -o %T) when Q3 was moved to the top"
wait_all_done 20

# --constraint (node features are not in the snapshot): C asks for feature
# big, which only n2 has, while n2 is busy: losd plans it on n1, Slurm
# refuses (Reason Resources), it backs off and D behind it starts on n1; once
# n2 is free C starts there.
scontrol update NodeName=n2 AvailableFeatures=big ActiveFeatures=big || fail "cannot give n2 feature big"
B=$(sub -J busy -N1 -w n2 --wrap "sleep 5") || fail "sbatch B"
wait_running "$B" 10
C=$(sub -J constrained -N1 --constraint=big --wrap "sleep 1") || fail "sbatch C"
D=$(sub -J d -N1 --wrap "sleep 1") || fail "sbatch D"
wait_running "$D" 15
[ "$(squeue -h -j "$C" -o %T/%r)" = PENDING/Resources ] || fail "C is $(squeue -h -j "$C" -o %T/%r), want PENDING/Resources"
wait_all_done 30
grep -q "sched/los: skipped start of JobId=$C .*Slurm refused the start" "$CLUSTER_DIR/slurmctld.log" \
  || fail "no refused start of C logged"
[ "$(jobnodes "$C")" = n2 ] || fail "C (--constraint=big) ran on $(jobnodes "$C"), want n2"
[ "$(jobnodes "$D")" = n1 ] || fail "D ran on $(jobnodes "$D"), want n1"
assert_le "$(start_time "$D")" "$(start_time "$C")" "D waited for C"
check_completed_once "$Q1" "$Q2" "$Q3" "$B" "$C" "$D"
assert_le "$(end_time "$Q3")" "$(start_time "$Q2")" "Q3 (scontrol top) did not start before Q2"

check_completed_once "$P2" "$P3" "$P4" "$H"
[ "$(started_count "$P1")" -eq 0 ] || fail "cancelled $P1 started"
[ "$(started_count "$R")" -eq 2 ] || fail "requeued $R started $(started_count "$R") times, want 2"
[ "$(grep "^JobId=$R " "$CLUSTER_DIR/jobcomp.txt" | grep -c "JobState=COMPLETED")" -eq 1 ] \
  || fail "requeued $R: $(grep -c "^JobId=$R .*JobState=COMPLETED" "$CLUSTER_DIR/jobcomp.txt") COMPLETED records, want 1"
assert_le "$(end_time "$P4")" "$(start_time "$P2")" "P4 (raised to the top) did not start before P2"
assert_le "$(end_time "$P2")" "$(start_time "$P3")" "P2 did not start before P3"
assert_le "$resumed" "$(start_time "$H")" "H started before n2 was resumed"
check_no_overlap "$P2" "$P3" "$P4" "$H"
check_decided_by_losd
log_starts_after P4 "$P4" P2 "$P2" P3 "$P3" R "$R" H "$H"
echo "PASS: requeue, priority change, cancel of a planned job, hold/release, a node back from DRAIN, Reasons Resources/Priority, scontrol top and --constraint were all seen"
