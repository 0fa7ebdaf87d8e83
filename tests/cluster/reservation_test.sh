#!/usr/bin/env bash
# Advanced reservations on a real 4-node cluster, decided by losd (easy) or,
# with "fallback", by the plugin's easy fallback (same snapshot): while
# reservation R1 holds n3,n4, losd never plans another job on them (a 3-node
# job without the reservation stays pending, and no start of it is even
# tried), a --reservation=R1 job starts inside it, a job outside it starts on
# the other nodes; once R1 is deleted the 3-node job starts. A job of a
# reservation that has not begun (R2) is not offered and shows Reason
# Reservation.
#
#   reservation_test.sh losd|fallback
set -uo pipefail
source "$(dirname "$0")/cluster.sh"

decider=${1:-losd}
CLUSTER_PARTITION_STATE=UP cluster_up_decided_by "$decider" easy 4

scontrol create reservation ReservationName=R1 StartTime=now Duration=10 Nodes=n3,n4 Users=root >/dev/null \
  || fail "cannot create reservation R1"
scontrol create reservation ReservationName=R2 StartTime=now+1hour Duration=10 Nodes=n1 Users=root >/dev/null \
  || fail "cannot create reservation R2"
sub() { sbatch --parsable -o "$CLUSTER_DIR/out/%j.out" "$@" | cut -d';' -f1; }
F=$(sub -J later --reservation=R2 -N1 -t 1 --wrap "sleep 1") || fail "sbatch F"
B=$(sub -J inresv --reservation=R1 -N2 -t 1 --wrap "sleep 5") || fail "sbatch B"
C=$(sub -J outside -N2 -t 1 --wrap "sleep 5") || fail "sbatch C"
A=$(sub -J big -N3 -t 1 --wrap "sleep 1") || fail "sbatch A"
wait_running "$B" 10
wait_running "$C" 10
[ "$(jobnodes_now "$B")" = "n3 n4" ] || fail "B (--reservation=R1) runs on $(jobnodes_now "$B"), not in R1 (n3 n4)"
[ "$(jobnodes_now "$C")" = "n1 n2" ] || fail "C runs on $(jobnodes_now "$C"), not outside R1 (n1 n2)"
# a few cycles with R1 active and idle nodes in it once B ends: A must not start
until [ -z "$(squeue -h -j "$B" -o %i)" ]; do sleep 0.2; done
wait_log "cycle seq=" "$(log_lines)" 10 >/dev/null
sleep 2
[ "$(squeue -h -j "$A" -o %T)" = PENDING ] || fail "A started while R1 holds n3,n4"
! grep -q "sched/los: .*JobId=$A " "$CLUSTER_DIR/slurmctld.log" \
  || fail "a start of A was tried while R1 is active: $(grep "sched/los: .*JobId=$A " "$CLUSTER_DIR/slurmctld.log" | head -2)"
reason="$(squeue -h -j "$F" -o %r)"
[ "$reason" = Reservation ] || fail "F (--reservation=R2, R2 in an hour) pending with Reason '$reason', want Reservation"
! grep -q "sched/los: .*JobId=$F " "$CLUSTER_DIR/slurmctld.log" || fail "a start of F was tried before R2 began"
scancel "$F"
scontrol delete ReservationName=R1 || fail "cannot delete R1"
wait_all_done 40

echo 3 >"$CLUSTER_DIR/out/want-$A"; echo 2 >"$CLUSTER_DIR/out/want-$B"; echo 2 >"$CLUSTER_DIR/out/want-$C"
check_completed_once "$A" "$B" "$C"
assert_le "$(end_time "$B")" "$(start_time "$A")" "A started before R1 ended"
[ "$decider" = fallback ] || check_decided_by_losd
echo "PASS: R1's nodes were used only by its job; the others waited for R1's end"
