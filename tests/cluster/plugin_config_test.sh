#!/usr/bin/env bash
# sched/los configuration on a real slurmctld:
#   1. a bad sched/los parameter: slurmctld refuses to start (non-zero exit)
#      and its log names the parameter and the value;
#   2. SchedulerParameters without sched_interval=-1: the plugin warns loudly
#      at load, and jobs still run.
set -uo pipefail
source "$(dirname "$0")/cluster.sh"

# 1. bad value
CLUSTER_CONFIGURE_ONLY=1 cluster_up 2 "los_fallback=maybe"
timeout 60 slurmctld -D -i -f "$SLURM_CONF" >"$CLUSTER_DIR/slurmctld.out.log" 2>&1
rc=$?
[ $rc -ne 0 ] || fail "slurmctld started with los_fallback=maybe"
[ $rc -ne 124 ] || fail "slurmctld neither started nor exited within 60 s"
grep -q "los_fallback=maybe: expected easy, fifo or none" "$CLUSTER_DIR/slurmctld.log" \
  || fail "the log does not name the bad parameter: $(grep -i error "$CLUSTER_DIR/slurmctld.log" | head -3)"
log "bad parameter: slurmctld exited $rc, log names los_fallback=maybe"
cluster_teardown

# 2. sched_interval=-1 missing
CLUSTER_SCHED_BASE="bf_interval=30"
CLUSTER_PARTITION_STATE=UP
cluster_up 2 ""
grep -q "SchedulerParameters lacks sched_interval=-1" "$CLUSTER_DIR/slurmctld.log" \
  || fail "no warning about the missing sched_interval=-1"
[ "$(grep -c "sched/los: .*\*\*\*\*" "$CLUSTER_DIR/slurmctld.log")" -ge 2 ] || fail "the warning is not loud"
id=$(submit w 1 1 1)
wait_all_done 60
# (either scheduler may have started it: that is what the warning is about)
[ "$(jobcomp JobState "$id")" = COMPLETED ] || fail "job $id did not complete"
log "missing sched_interval=-1: warned; a job still ran"
echo "PASS: sched/los refuses bad parameters and warns without sched_interval=-1"
