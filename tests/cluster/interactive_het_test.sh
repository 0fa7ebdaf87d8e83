#!/usr/bin/env bash
# srun and heterogeneous jobs on a real 16-node cluster with losd (easy):
#   - with SchedulerParameters=defer an srun allocation is started by a
#     sched/los cycle (its start is in the plugin's log), not at submission;
#   - a heterogeneous job is refused at submission (slurmctld takes them only
#     under sched/backfill), so none can pend without a reason.
set -uo pipefail
source "$(dirname "$0")/cluster.sh"

CLUSTER_PARTITION_STATE=UP cluster_up 16 "los_fallback=none"
losd_start easy

timeout 30 srun -J inter -N2 -t 1 -o "$CLUSTER_DIR/out/srun.out" true || fail "srun failed"
id=$(squeue -h -t all -n inter -o %i 2>/dev/null | head -1)
[ -n "$id" ] || id=$(sed -n 's/^JobId=\([0-9]*\) .*Name=inter .*/\1/p' "$CLUSTER_DIR/jobcomp.txt" | head -1)
[ -n "$id" ] || fail "no record of the srun job"
[ "$(started_count "$id")" -eq 1 ] || fail "srun job $id was not started by a sched/los cycle (allocated at submission?)"

# slurmctld accepts heterogeneous jobs only under sched/backfill: the
# submission is refused at once with a readable error, nothing pends forever.
out="$(sbatch -J het -N1 -t 1 --wrap "sleep 1" : -N1 -t 1 --wrap "sleep 1" 2>&1)" \
  && fail "a heterogeneous job was accepted ($out)"
grep -q "not supported" <<<"$out" || fail "het job refused with '$out'"
grep -q "rejected as sched/backfill is not configured" "$CLUSTER_DIR/slurmctld.log" || fail "no rejection logged"
[ -z "$(squeue -h -n het -o %i)" ] || fail "a het job is queued"
check_decided_by_losd
echo "PASS: srun started by a sched/los cycle; a heterogeneous job refused at submission"
