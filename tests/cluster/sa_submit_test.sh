#!/usr/bin/env bash
# sa-submit on a real 16-node Slurm cluster with sched/los and losd
# (conservative backfilling): the shape it submits, and what Slurm ran.
#
# R (12 nodes, limit 2 min, sleep 25) runs; 4 nodes are free.
#   1. -s 16x1 -s 4x2: 16 nodes can start only at R's limit end (+120 s,
#      done +180 s); 4 nodes fit now (done +120 s): 4 nodes, started beside R.
#   2. -s 4x10 -s 8x1: 4 nodes x 10 min would finish at +600 s at the
#      earliest; 8 nodes x 1 min at +120 + 60 s: 8 nodes.
#   3. --dry-run prints the choice and submits nothing.
#   4. losd down: exit 3; with --if-unavailable first, the first shape.
#   5. bad usage: exit 2 and a message naming the shape.
set -uo pipefail
source "$(dirname "$0")/cluster.sh"
sa="$LOS_BUILD_DIR/bin/sa-submit"
[ -x "$sa" ] || fail "no $sa: build first"

cluster_up 16 "los_fallback=none"
losd_start conservative
partition_up

r=$(submit R 12 2 25)
wait_running "$r" 30
# losd must have seen R running before SA reads its plan.
sleep 2
printf '#!/bin/bash\nsleep 3\n' >"$CLUSTER_DIR/job.sh"
chmod +x "$CLUSTER_DIR/job.sh"
sa_run() {
  "$sa" --socket "$CLUSTER_DIR/losd-query.sock" -p batch --sbatch-option=--parsable \
    "--sbatch-option=--output=$CLUSTER_DIR/out/%j.out" "$@" 2>>"$CLUSTER_DIR/sa-submit.log"
}

j1=$(sa_run -s 16x1 -s 4x2 -- "$CLUSTER_DIR/job.sh") || fail "sa-submit 1 failed: $(tail -5 "$CLUSTER_DIR/sa-submit.log")"
j1=${j1%%;*}
# The second one through --json: the job id and the chosen shape as a program reads them.
json=$("$sa" --json --socket "$CLUSTER_DIR/losd-query.sock" -p batch \
  "--sbatch-option=--output=$CLUSTER_DIR/out/%j.out" -s 4x10 -s 8x1 "$CLUSTER_DIR/job.sh" 2>>"$CLUSTER_DIR/sa-submit.log") \
  || fail "sa-submit 2 (--json) failed: $(tail -5 "$CLUSTER_DIR/sa-submit.log")"
j2=$(python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["job_id"])' <<<"$json") || fail "no job_id in: $json"
chosen=$(python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["shapes"][d["chosen"]]["nodes"])' <<<"$json")
[ "$chosen" = 8 ] || fail "--json says shape of $chosen nodes was chosen, want 8: $json"
log "sa-submit chose: $(grep -c '^  \* ' "$CLUSTER_DIR/sa-submit.log") shapes marked; jobs $j1 $j2"

before=$(squeue -h | wc -l)
out=$("$sa" --socket "$CLUSTER_DIR/losd-query.sock" -p batch -n -s 2x1 -s 16x5 "$CLUSTER_DIR/job.sh" 2>&1) \
  || fail "dry run failed: $out"
echo "$out" | grep -q "would run: sbatch --partition batch --nodes 2 --time 1 $CLUSTER_DIR/job.sh" \
  || fail "dry run did not print the 2-node command: $out"
[ "$(squeue -h | wc -l)" -eq "$before" ] || fail "a dry run submitted a job"

out=$("$sa" -s 8x30 2>&1); rc=$?
[ $rc -eq 2 ] || fail "no script: exit $rc, want 2"
out=$("$sa" -s 8y30 "$CLUSTER_DIR/job.sh" 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "shape '8y30'" || fail "bad shape: exit $rc ($out)"

wait_all_done 150
losd_stop
out=$("$sa" --socket "$CLUSTER_DIR/losd-query.sock" -p batch -s 2x1 -s 16x1 "$CLUSTER_DIR/job.sh" 2>&1); rc=$?
[ $rc -eq 3 ] || fail "losd down: exit $rc, want 3 ($out)"
j3=$(sa_run --if-unavailable first -s 2x1 -s 16x1 "$CLUSTER_DIR/job.sh") || fail "sa-submit with losd down and --if-unavailable first failed"
j3=${j3%%;*}
[ "$(squeue -h -j "$j3" -o %D)" = 2 ] || fail "--if-unavailable first: job $j3 does not ask for 2 nodes"
scancel "$j3"

check_completed_once "$r" "$j1" "$j2"
check_no_overlap "$r" "$j1" "$j2"
n1=$(jobnodes "$j1" | wc -l)
n2=$(jobnodes "$j2" | wc -l)
log "job $j1: $n1 nodes, job $j2: $n2 nodes; sa-submit said:"
cat "$CLUSTER_DIR/sa-submit.log" >&2
[ "$n1" -eq 4 ] || fail "sa-submit 1 chose $n1 nodes, want 4"
[ "$n2" -eq 8 ] || fail "sa-submit 2 chose $n2 nodes, want 8"
assert_lt "$(start_time "$j1")" "$(end_time "$r")" "the 4-node shape started beside R"
echo "PASS: sa-submit on a live cluster"
