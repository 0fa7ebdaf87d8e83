#!/usr/bin/env bash
# Advanced reservations on a real 4-node cluster, decided by losd (easy) or,
# with "fallback", by the plugin's easy fallback (same snapshot): while
# reservation R1 holds n3,n4, losd never plans another job on them (a 3-node
# job without the reservation stays pending, and no start of it is even
# tried), a --reservation=R1 job starts inside it, a job outside it starts on
# the other nodes; once R1 is deleted the 3-node job starts. A job of a
# reservation that has not begun (R2) is not offered and shows Reason
# Reservation. A reservation starting in 5 minutes (R3): a job ending before
# it runs on its nodes, a longer one never starts there (not even tried) and
# shows its predicted start (squeue --start, also under the fallback) and
# Reason Resources.
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

# A future reservation: R3 holds n3,n4 from 5 minutes on. X (3 min) runs on
# n1,n2; S (1 min) ends before R3 begins and may use n3,n4; L (10 min) would
# reach into R3: it must not start there although they are idle, and waits
# for X. Its predicted start (squeue --start), by losd or by the fallback's
# own reservation, is the end of X's time limit, Reason Resources.
scontrol create reservation ReservationName=R3 StartTime=now+5minutes Duration=10 Nodes=n3,n4 Users=root >/dev/null \
  || fail "cannot create reservation R3"
X=$(sub -J filler -N2 -t 3 --wrap "sleep 120") || fail "sbatch X"
wait_running "$X" 10
[ "$(jobnodes_now "$X")" = "n1 n2" ] || fail "X runs on $(jobnodes_now "$X"), want n1 n2"
S=$(sub -J short -N2 -t 1 --wrap "sleep 2") || fail "sbatch S"
wait_running "$S" 10
[ "$(jobnodes_now "$S")" = "n3 n4" ] || fail "S (ends before R3) runs on $(jobnodes_now "$S"), want n3 n4"
L=$(sub -J long -N2 -t 10 --wrap "sleep 1") || fail "sbatch L"
until [ -z "$(squeue -h -j "$S" -o %i)" ]; do sleep 0.2; done
want_start=$(($(date -d "$(squeue -h -j "$X" -o %S)" +%s) + 180))
deadline=$((SECONDS + 15))
while :; do
  got="$(squeue -h --start -j "$L" -o '%S %r')"
  [[ "$got" =~ ^[0-9]{4}- ]] && [ "$(date -d "${got% *}" +%s)" = "$want_start" ] && [ "${got#* }" = Resources ] && break
  [ $SECONDS -lt $deadline ] || fail "L: squeue --start shows '$got', want $(date -d "@$want_start" +%FT%T) Resources"
  sleep 0.3
done
sleep 2 # a few more cycles with n3,n4 idle
[ "$(squeue -h -j "$L" -o %T)" = PENDING ] || fail "L (10 min) started on $(jobnodes_now "$L") although R3 begins in 5 min"
scancel "$X"
wait_running "$L" 15
[ "$(jobnodes_now "$L")" = "n1 n2" ] || fail "L runs on $(jobnodes_now "$L"), not outside R3 (n1 n2)"
wait_all_done 30
! grep -q "sched/los: skipped start of JobId=$L " "$CLUSTER_DIR/slurmctld.log" \
  || fail "a start of L was tried and refused: $(grep "sched/los: skipped start of JobId=$L " "$CLUSTER_DIR/slurmctld.log" | head -2)"

echo 3 >"$CLUSTER_DIR/out/want-$A"; echo 2 >"$CLUSTER_DIR/out/want-$B"; echo 2 >"$CLUSTER_DIR/out/want-$C"
echo 2 >"$CLUSTER_DIR/out/want-$S"; echo 2 >"$CLUSTER_DIR/out/want-$L"
check_completed_once "$A" "$B" "$C" "$S" "$L"
assert_le "$(end_time "$B")" "$(start_time "$A")" "A started before R1 ended"
[ "$decider" = fallback ] || check_decided_by_losd
echo "PASS: R1's nodes were used only by its job; the others waited for R1's end; R3's nodes only by a job ending before it"
