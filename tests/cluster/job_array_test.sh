#!/usr/bin/env bash
# Job arrays and predicted starts on a real 16-node Slurm cluster with losd
# (easy):
#   - every task of an array starts as its own job, each exactly once, and
#     the array's throttle (%2) holds: never more than 2 of its tasks at once;
#   - scancel of one running task and of a whole array leaves the others
#     running to completion;
#   - every pending job shows losd's predicted start in squeue --start (equal
#     to `losctl starts`) and a Reason (Resources or Priority), not N/A/None.
set -uo pipefail
source "$(dirname "$0")/cluster.sh"

CLUSTER_PARTITION_STATE=UP cluster_up 16 "los_fallback=none"
losd_start easy
LOSCTL=("$LOS_BUILD_DIR/bin/losctl" --socket "$CLUSTER_DIR/losd-query.sock")

sub() { sbatch --parsable -o "$CLUSTER_DIR/out/%A_%a.out" "$@" | cut -d';' -f1; }


# 1. A throttled array: 6 tasks of 4 nodes, at most 2 at once.
A=$(sub -J thr -a 0-5%2 -N4 -t 1 --wrap "sleep 4") || fail "sbatch A"
# 2. Two arrays of 1-node tasks: one task of K and the whole of X cancelled mid-run.
K=$(sub -J keep -a 0-3 -N1 -t 2 --wrap "sleep 12") || fail "sbatch K"
X=$(sub -J cancel -a 0-2 -N1 -t 2 --wrap "sleep 40") || fail "sbatch X"
deadline=$((SECONDS + 20))
until [ "$(squeue -h -r -t R -j "$K,$X" -o %i | wc -l)" -eq 7 ]; do
  [ $SECONDS -lt $deadline ] || { squeue -r >&2; fail "the 7 tasks of arrays $K and $X did not all start"; }
  sleep 0.3
done
log "all tasks of $K and $X running"
scancel "${K}_1" || fail "scancel ${K}_1"
scancel "$X" || fail "scancel $X"

# 3. Pending jobs behind the running ones: predicted starts and reasons.
W=$(sub -J wide -N16 -t 1 --wrap "sleep 1") || fail "sbatch W"
V=$(sub -J small -a 0-1 -N1 -t 1 --wrap "sleep 1") || fail "sbatch V"
ok=0
for _ in $(seq 1 30); do
  sleep 0.5
  sq="$(squeue -h -t PD -o '%i %S %r' | sort)"
  ls="$("${LOSCTL[@]}" starts 2>&1)" || continue
  sq2="$(squeue -h -t PD -o '%i %S %r' | sort)"
  echo "--- squeue:"$'\n'"$sq"$'\n'"--- losctl:"$'\n'"$ls" >>"$CLUSTER_DIR/starts-compare.log"
  [ "$sq" = "$sq2" ] || continue
  # every pending job: a start time and a reason sched/los set
  grep -qE " (N/A|None)" <<<"$sq" && continue
  grep -q "^$W " <<<"$sq" || continue
  # squeue's StartTime of each pending job losd plans (Reason Resources or
  # Priority; an array: one of its tasks) = losctl's; the others (a throttled
  # array's tasks losd is not offered) show Slurm's own reason
  good=1 matched=0
  while read -r id start reason; do
    case "$reason" in
      Resources | Priority) ;;
      JobArrayTaskLimit) continue ;;
      *) good=0; break ;;
    esac
    base=${id%%_*}
    awk -v b="$base" -v t="$start" 'NR > 1 && $1 % 4294967296 == b && $6 == t { f = 1 } END { exit !f }' <<<"$ls" \
      || { good=0; break; }
    matched=$((matched + 1))
  done <<<"$sq"
  [ $matched -ge 1 ] || good=0
  [ $good = 1 ] && { ok=1; break; }
done
echo "$sq" >&2
echo "$ls" >&2
[ $ok = 1 ] || fail "squeue --start never showed a start and reason for every pending job matching losctl starts"
wait_all_done 120

# Records: every task completed once; the cancelled ones cancelled.
ids_of() { grep -E "^JobId=[0-9]+ .*Name=$1 " "$CLUSTER_DIR/jobcomp.txt" | sed 's/^JobId=\([0-9]*\) .*/\1/'; }
a_ids=($(ids_of thr))
[ ${#a_ids[@]} -eq 6 ] || fail "array $A: ${#a_ids[@]} completion records, want 6"
for id in "${a_ids[@]}"; do echo 4 >"$CLUSTER_DIR/out/want-$id"; done
check_completed_once "${a_ids[@]}"
check_no_overlap "${a_ids[@]}"
# the throttle: at no task's start were more than 2 tasks of A running
for a in "${a_ids[@]}"; do
  s=$(start_time "$a") n=0
  for b in "${a_ids[@]}"; do
    [ "$(start_time "$b")" -le "$s" ] && [ "$(end_time "$b")" -gt "$s" ] && n=$((n + 1))
  done
  [ $n -le 2 ] || fail "$n tasks of throttled array $A ran at once (at the start of $a)"
done
k_ids=($(ids_of keep))
[ ${#k_ids[@]} -eq 4 ] || fail "array $K: ${#k_ids[@]} completion records, want 4"
[ "$(grep -E "Name=keep .*JobState=CANCELLED" "$CLUSTER_DIR/jobcomp.txt" | wc -l)" -eq 1 ] \
  || fail "array $K: not exactly one task cancelled"
[ "$(grep -E "Name=keep .*JobState=COMPLETED" "$CLUSTER_DIR/jobcomp.txt" | wc -l)" -eq 3 ] \
  || fail "array $K: the 3 tasks not cancelled did not all complete"
[ "$(grep -E "Name=cancel .*JobState=CANCELLED" "$CLUSTER_DIR/jobcomp.txt" | wc -l)" -eq 3 ] \
  || fail "array $X: not all 3 tasks cancelled"
[ "$(grep -E "Name=(wide|small) .*JobState=COMPLETED" "$CLUSTER_DIR/jobcomp.txt" | wc -l)" -eq 3 ] \
  || fail "W and the tasks of V did not complete"
check_decided_by_losd
echo "PASS: arrays split into tasks (throttle held, cancels left the rest), predicted starts = losctl starts"
