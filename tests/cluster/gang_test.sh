#!/usr/bin/env bash
# Gang scheduling (time slicing) by losd on a real 2-node Slurm partition,
# asserted from Slurm's own records and the jobs' own progress counters
# (docs/gang-live.md).
#
#   gang_test.sh slicing        the partition has OverSubscribe=FORCE:2
#   gang_test.sh misconfigured  it has not: losd refuses gang there
#   gang_test.sh restart        losd killed (-9) mid-run under bgs, restarted
#   gang_test.sh pect           SCOJO-PECT preempts a LONG job for the SHORT slice
#   gang_test.sh migrate        mgs migrates the job that opted in, never the other
#
# misconfigured: losd logs an ERROR naming the partition and the setting it
# needs, and schedules it with easy: A and B (each longer than a slice) run
# one after the other, never suspended, never on a node together.
#
# slicing: losd runs gang:mpl=2:slice=5. A and B both ask for the 2 nodes, a 1-minute
# time limit and ~40 s of work (a counter of 0.25 s ticks, each tick written
# with its time to the job's counter file). They alternate by 5 s slices:
#   - the slurmctld log shows sched/los suspending one and resuming or
#     starting the other, several times, each switch in one cycle;
#   - while both are in the matrix, each job's progress is about 1/MPL of
#     wall time (see PROGRESS_TOLERANCE) and they never progress together;
#   - time limits count execution time: each job runs longer than its
#     1-minute limit in wall time (suspended about half of it) and still ends
#     COMPLETED, not TIMEOUT (Slurm moves EndTime by the suspended time on
#     every resume: job_mgr.c _job_suspend_op, and job_time_limit() skips
#     suspended jobs).
#
# restart: losd runs bgs:mpl=2:slice=3 on the 2 nodes (FORCE:2). Four 1-node
# jobs, each ~10 s of work (ticks, as above: a stopped job does no work), fill
# the two rows: two execute, two are suspended. losd is killed with -9 while
# that holds (checked with squeue), the plugin has no fallback for 3 s
# (nothing changes: suspended jobs stay suspended), and losd starts again: it
# rebuilds the matrix from the plugin's resync snapshot (docs/gang-live.md).
# From Slurm's records: time slicing goes on after the restart (suspends and
# resumes logged after it), no job is lost or started twice, none is left
# suspended, every job completes, and each is resumed as often as it is
# suspended, but for a job whose script ends just as a suspend arrives (Slurm
# completes it suspended; it must have ended within 2 s of that suspend).
#
# pect: losd runs SCOJO-PECT (docs/pect.md) with classes and slices scaled to
# seconds: a job's estimate is its Slurm limit, so a 1-minute job (60 s <
# short_limit 90) is SHORT and a 3-minute one (180 s > long_limit 150) LONG;
# the LONG slice is medium_slice x 73 / 26.5 = 11 s, the SHORT slice 4 s, a
# switch 1 s. L (LONG, both nodes, 20 s of work) starts alone; S (SHORT, both
# nodes, 2 s of work) arrives while L runs and cannot be backfilled beside it.
# At the end of L's slice the plugin suspends L, S starts in the SHORT slice
# (after the switch gap) and completes, then L is resumed and completes: from
# Slurm's records, L suspended before S started, S started before L's resume,
# L resumed as often as suspended, both COMPLETED once. The partition has
# OverSubscribe=FORCE:3 (pect holds one job of each class per node).
#
# migrate: losd runs mgs:mpl=2:slice=6 on the 2 nodes (FORCE:2). A, X, B (one
# node each) and D (both) arrive together: A and X fill row 0, B goes to row
# 1 on A's node, X is replicated beside it, D waits. A opted in to migration
# (--requeue --comment=los:migratable), B did not. Once B executes and A is
# suspended (row 1's slice), X is cancelled: the only way to empty a row for
# D is to move A to X's node (option 2) or B (option 1); only A may move, so
# losd requeues A (Slurm continues it and sends SIGTERM, KillWait=2 s later
# SIGKILL) and starts it again on X's node. A's payload counts ticks and
# writes its counter to a checkpoint file on SIGTERM, and resumes from it.
# From Slurm's records and A's own log: A was requeued once (a completion
# record for the requeue, then COMPLETED), ran first on one node and finished on
# the other, its second run began from its checkpoint (> 0) and the counter
# ended at exactly its work (nothing lost, nothing counted twice beyond the
# checkpoint); B was started once, never requeued, one COMPLETED record; D
# completed once.
set -uo pipefail
variant=${1:-slicing}
case "$variant" in slicing | misconfigured | restart | pect | migrate) ;; *) echo "usage: gang_test.sh slicing|misconfigured|restart|pect|migrate" >&2; exit 2 ;; esac
source "$(dirname "$0")/cluster.sh"

SLICE=5
MPL=2
# x 0.25 s = 37.5 s of work (about 40 s at the ~3.8 ticks/s measured, forks
# included). Enough that each job, suspended about as long as it executes while
# they share, spends well over its 1-minute limit in wall time (~2 x 40 s less
# A's few seconds alone); little enough that its execution time stays under the
# limit on a loaded machine (50 s at 3 ticks/s). With 30 s of work B's wall time
# was 58-62 s: the time-limit check below was a coin toss.
WORK_TICKS=150
# Progress over the window in which both jobs share the nodes (whole
# cycles of MPL x SLICE, at least 2, about 6 here), in seconds of dedicated
# work (A's tick rate while alone), as a fraction of the window's wall time,
# must be within 1/MPL +- this. Why 0.1: each switch lands up to ~1 s late
# (the plugin's cycle wakes at losd's wakeup, which has 1-second resolution;
# then the suspend/resume RPCs reach the slurmd's), and a stopped 0.25 s
# sleep returns at once when continued (a tick too many per switch); the
# window's edges are tick times, not switch times. Two cycles (20 s, the
# shortest window accepted) with 1 s off at each edge: 2/20 = 0.1. A job
# running through the other's slice (no suspend) would show 1.0, one
# starved 0.
PROGRESS_TOLERANCE=0.1

if [ "$variant" = misconfigured ]; then
  cluster_up 2 "los_fallback=none"
  losd_start "gang:mpl=$MPL:slice=$SLICE"
  partition_up
  # longer than a slice: gang would suspend A for B at the first boundary
  a=$(submit A 2 1 $((SLICE + 3)))
  b=$(submit B 2 1 $((SLICE + 3)))
  wait_all_done 60
  check_completed_once "$a" "$b"
  check_no_overlap "$a" "$b"
  check_decided_by_losd
  ! grep -qE "sched/los: (suspended|resumed)" "$CLUSTER_DIR/slurmctld.log" || fail "a job was suspended or resumed"
  line=$(grep "time-sharing policy refused" "$CLUSTER_DIR/losd.log" | head -1)
  [ -n "$line" ] || fail "losd logged no error about the gang policy on partition batch"
  log "losd: $line"
  grep -q "partition=batch" <<<"$line" || fail "the error does not name partition batch"
  grep -q "OverSubscribe=FORCE" <<<"$line" || fail "the error does not name the setting"
  grep -q "ERROR\|error" <<<"$line" || fail "not logged as an error"
  log "misconfigured partition: refused with an error, scheduled by easy"
  exit 0
fi

if [ "$variant" = pect ]; then
  CLUSTER_PARTITION_OPTS="OverSubscribe=FORCE:3" cluster_up 2 "los_fallback=none"
  losd_start "pect:short_limit=90:long_limit=150:medium_slice=4:short_slice=4:switch=1"
  partition_up
  # tick_job NAME MINUTES TICKS: a 2-node job doing TICKS x 0.25 s of work.
  tick_job() {
    local out
    out="$(sbatch --parsable -J "$1" -N 2 -t "$2" -o "$CLUSTER_DIR/out/%j.out" --wrap \
      "n=0; while [ \$n -lt $3 ]; do sleep 0.25; n=\$((n+1)); done" 2>&1)" || fail "sbatch $1 failed: $out"
    echo 2 >"$CLUSTER_DIR/out/want-${out%%;*}"
    echo "${out%%;*}"
  }
  from=$(log_lines)
  l=$(tick_job L 3 80)
  wait_running "$l" 30
  s=$(tick_job S 1 8)
  wait_all_done 110
  check_completed_once "$l" "$s"
  check_decided_by_losd
  tail -n +"$((from + 1))" "$CLUSTER_DIR/slurmctld.log" \
    | grep -oE "sched/los: (started|suspended|resumed) JobId=($l|$s)( |$)" | sed 's/sched\/los: //' >"$CLUSTER_DIR/switches.txt"
  log "switches: $(tr '\n' ',' <"$CLUSTER_DIR/switches.txt" | sed 's/ JobId=/ /g')"
  first() { grep -n -m1 "^$1 JobId=$2\( \|$\)" "$CLUSTER_DIR/switches.txt" | cut -d: -f1; }
  sus=$(first suspended "$l")
  st=$(first started "$s")
  res=$(grep -n "^resumed JobId=$l\( \|$\)" "$CLUSTER_DIR/switches.txt" | tail -1 | cut -d: -f1)
  [ -n "$sus" ] || fail "L ($l) was never suspended"
  [ -n "$st" ] || fail "S ($s) was never started by losd"
  [ -n "$res" ] || fail "L ($l) was never resumed"
  assert_lt "$sus" "$st" "L suspended (switch line $sus) before S started (line $st)"
  assert_lt "$st" "$res" "S started (line $st) before L's last resume (line $res)"
  ns=$(grep -c "^suspended JobId=$l" "$CLUSTER_DIR/switches.txt")
  nr=$(grep -c "^resumed JobId=$l" "$CLUSTER_DIR/switches.txt")
  [ "$ns" -eq "$nr" ] || fail "L suspended $ns times, resumed $nr times"
  ! grep -q "JobId=$s" <(grep -E "^(suspended|resumed)" "$CLUSTER_DIR/switches.txt") || fail "S was suspended (it fits in its slice)"
  log "pect: L preempted for the SHORT slice, S ran and completed, L resumed and completed"
  exit 0
fi

if [ "$variant" = migrate ]; then
  MSLICE=6
  MTICKS=40 # x 0.25 s = 10 s of work for A
  CLUSTER_PARTITION_OPTS="OverSubscribe=FORCE:$MPL" cluster_up 2 "los_fallback=none"
  losd_start "mgs:mpl=$MPL:slice=$MSLICE"
  out_dir="$CLUSTER_DIR/out"
  # A: checkpoints its counter on SIGTERM (the requeue), resumes from it
  out="$(sbatch --parsable -J A -N 1 -t 3 --requeue --comment=los:migratable --open-mode=append -o "$out_dir/%j.out" --wrap "
ck=$out_dir/ckpt-A; n=\$(cat \$ck 2>/dev/null || echo 0)
echo \"start \$SLURMD_NODENAME \$n\" >>$out_dir/log-A
trap 'echo \$n >\$ck; echo \"checkpoint \$SLURMD_NODENAME \$n\" >>$out_dir/log-A; exit 0' TERM
while [ \$n -lt $MTICKS ]; do sleep 0.25; n=\$((n+1)); done
echo \"done \$SLURMD_NODENAME \$n\" >>$out_dir/log-A" 2>&1)" || fail "sbatch A failed: $out"
  a=${out%%;*}
  x=$(submit X 1 3 120)
  # B: requeue-able (JobRequeue) but without the marker: it did not opt in
  b=$(submit B 1 3 12)
  d=$(submit D 2 3 3)
  set_queue_order "$a" "$x" "$b" "$d"
  partition_up
  # row 1's slice: B executes on A's node, A is suspended
  deadline=$((SECONDS + 40))
  until [ "$(squeue -h -j "$a" -o %T)" = SUSPENDED ] && [ "$(squeue -h -j "$b" -o %T)" = RUNNING ]; do
    [ $SECONDS -lt $deadline ] || fail "never saw A suspended and B running: $(squeue -h -o '%i:%j:%t:%N' | tr '\n' ' ')"
    sleep 0.2
  done
  first_node=$(squeue -h -j "$a" -o %N)
  x_node=$(squeue -h -j "$x" -o %N)
  log "A ($a) suspended on $first_node, B ($b) running, X ($x) on $x_node: cancelling X"
  scancel "$x"
  wait_all_done 90
  log "A's log: $(tr '\n' ';' <"$out_dir/log-A"); its output: $(tr '\n' ';' <"$out_dir/$a.out")"
  check_decided_by_losd
  check_completed_once "$b" "$d"
  # --- A: requeued once by LOS, finished on X's node, work preserved -------
  grep -q "sched/los: requeued JobId=$a for migration" "$CLUSTER_DIR/slurmctld.log" || fail "A was not requeued for migration"
  [ "$(grep -c "sched/los: requeued JobId=" "$CLUSTER_DIR/slurmctld.log")" -eq 1 ] || fail "more than one requeue"
  [ "$(jobcomp_count "$a")" -eq 2 ] || fail "A has $(jobcomp_count "$a") completion records, not 2 (requeued, completed)"
  # the requeue's record (jobcomp/filetxt writes the state after the requeue: PENDING), on the first node
  first_rec=$(grep "^JobId=$a " "$CLUSTER_DIR/jobcomp.txt" | head -1)
  grep -q " JobState=PENDING " <<<"$first_rec" || fail "A's first record is not its requeue: $first_rec"
  grep -q " NodeList=$first_node " <<<"$first_rec" || fail "A's first run was not on $first_node: $first_rec"
  [ "$(jobcomp JobState "$a")" = COMPLETED ] || fail "A ended $(jobcomp JobState "$a")"
  [ "$(started_count "$a")" -eq 2 ] || fail "A started $(started_count "$a") times, not twice"
  last_node=$(jobcomp NodeList "$a")
  [ "$last_node" != "$first_node" ] || fail "A finished on $last_node, where it started"
  [ "$last_node" = "$x_node" ] || fail "A finished on $last_node, not on X's node $x_node"
  python3 - "$out_dir/log-A" "$MTICKS" "$first_node" "$last_node" <<'PY' || fail "A's work was not preserved (see $out_dir/log-A)"
import sys
lines = [l.split() for l in open(sys.argv[1])]
ticks, first, last = int(sys.argv[2]), sys.argv[3], sys.argv[4]
kinds = [l[0] for l in lines]
if kinds != ["start", "checkpoint", "start", "done"]:
    sys.exit(f"A's log is {kinds}, not start, checkpoint, start, done")
(_, n1, c0), (_, n2, c1), (_, n3, c2), (_, n4, c3) = lines
if n1 != first or n2 != first or n3 != last or n4 != last:
    sys.exit(f"nodes {n1} {n2} {n3} {n4}: expected {first} then {last}")
if int(c0) != 0 or int(c1) <= 0 or int(c2) != int(c1) or int(c3) != ticks:
    sys.exit(f"counter {c0} -> checkpoint {c1} -> restart at {c2} -> done {c3} (work {ticks})")
print(f"A: {c1} ticks on {first}, checkpointed, resumed at {c2} on {last}, done at {c3}", file=sys.stderr)
PY
  # --- B: never requeued, never migrated -----------------------------------
  ! grep -q "requeued JobId=$b\b" "$CLUSTER_DIR/slurmctld.log" || fail "B was requeued"
  ! grep -qE "skipped requeue of JobId=$b " "$CLUSTER_DIR/slurmctld.log" || fail "losd asked to requeue B"
  [ "$(jobcomp JobState "$b")" = COMPLETED ] || fail "B ended $(jobcomp JobState "$b")"
  log "migration OK: A requeued once and finished on $last_node from its checkpoint; B untouched (one start, one record)"
  exit 0
fi

# Job $1 was resumed as often as sched/los suspended it, or once less when
# its script ended just as the last suspend arrived: a slice boundary can meet
# its last tick, and Slurm then accepts the suspend and completes the
# suspended job (CI saw it once). Such a job's record says COMPLETED (checked
# by the caller) and it ended within 2 s of that suspend; a job suspended
# with work left would never complete.
check_resumed_as_suspended() {
  local id=$1 s r last suspended_at ended_at
  s=$(grep -c "sched/los: suspended JobId=$id$" "$CLUSTER_DIR/slurmctld.log")
  r=$(grep -c "sched/los: resumed JobId=$id$" "$CLUSTER_DIR/slurmctld.log")
  [ "$s" -eq "$r" ] && return 0
  [ "$s" -eq $((r + 1)) ] || fail "job $id suspended $s times, resumed $r times"
  last=$(grep -E "sched/los: (suspended|resumed) JobId=$id$" "$CLUSTER_DIR/slurmctld.log" | tail -1)
  [[ "$last" == *"suspended JobId=$id" ]] || fail "job $id: its last switch is not the unmatched suspend: $last"
  suspended_at=$(date -d "$(sed 's/^\[\([^]]*\)\..*/\1/' <<<"$last")" +%s)
  ended_at=$(end_time "$id")
  assert_le $((ended_at - suspended_at)) 2 "job $id ended $((ended_at - suspended_at)) s after its last suspend, never resumed"
  log "job $id completed as it was suspended ($s suspends, $r resumes)"
}

if [ "$variant" = restart ]; then
  RSLICE=3
  RTICKS=40 # x 0.25 s = 10 s of work
  CLUSTER_PARTITION_OPTS="OverSubscribe=FORCE:$MPL" cluster_up 2 "los_fallback=none"
  losd_start "bgs:mpl=$MPL:slice=$RSLICE"
  ids=()
  for i in 1 2 3 4; do
    out="$(sbatch --parsable -J "R$i" -N 1 -t 2 -o "$CLUSTER_DIR/out/%j.out" --wrap \
      "n=0; while [ \$n -lt $RTICKS ]; do sleep 0.25; n=\$((n+1)); done" 2>&1)" || fail "sbatch R$i failed: $out"
    echo 1 >"$CLUSTER_DIR/out/want-${out%%;*}"
    ids+=("${out%%;*}")
  done
  partition_up
  # the first boundary: two jobs suspended for the other two
  wait_log "sched/los: suspended JobId=" 0 30 >/dev/null
  sleep 1
  # kill while some execute and some are suspended (a boundary is 3 s away)
  deadline=$((SECONDS + 10))
  while :; do
    nr=$(squeue -h -t R -o %i | wc -l)
    ns=$(squeue -h -t S -o %i | wc -l)
    [ "$nr" -ge 1 ] && [ "$ns" -ge 1 ] && break
    [ $SECONDS -lt $deadline ] || fail "never saw jobs executing and suspended at once (R=$nr S=$ns)"
    sleep 0.1
  done
  losd_stop
  killed_at=$(log_lines)
  log "losd killed with $nr jobs executing and $ns suspended: $(squeue -h -o '%i:%t' | tr '\n' ' ')"
  sleep 3
  restart_at=$(log_lines)
  [ "$(squeue -h -t S -o %i | wc -l)" -eq "$ns" ] || fail "the suspended jobs changed while losd was down"
  losd_start "bgs:mpl=$MPL:slice=$RSLICE"
  # time slicing goes on after the restart: a suspend and a resume logged by
  # the plugin after it (the suspended jobs are not left where they were)
  n=$(wait_log "sched/los: resumed JobId=" "$restart_at" 30)
  n=$(wait_log "sched/los: suspended JobId=" "$restart_at" 30)
  wait_all_done 90
  check_completed_once "${ids[@]}"
  check_decided_by_losd
  [ "$(squeue -h -o %i | wc -l)" -eq 0 ] || fail "jobs left in the queue: $(squeue -h -o '%i:%t' | tr '\n' ' ')"
  after=$(tail -n +"$((restart_at + 1))" "$CLUSTER_DIR/slurmctld.log" | grep -cE "sched/los: (suspended|resumed) JobId=")
  down=$(sed -n "$((killed_at + 1)),${restart_at}p" "$CLUSTER_DIR/slurmctld.log" | grep -cE "sched/los: (started|suspended|resumed) JobId=")
  assert_le 2 "$after" "suspends + resumes after the restart"
  [ "$down" -eq 0 ] || fail "$down starts/suspends/resumes while losd was down (no fallback)"
  for id in "${ids[@]}"; do check_resumed_as_suspended "$id"; done
  log "switches after the restart: $after; every job completed once, started once, resumed as often as suspended (or ended at the suspend)"
  log "gang restart OK"
  exit 0
fi

CLUSTER_PARTITION_OPTS="OverSubscribe=FORCE:$MPL" cluster_up 2 "los_fallback=none"
losd_start "gang:mpl=$MPL:slice=$SLICE"
partition_up

# counter_job NAME: a 2-node job with a 1-minute limit that does WORK_TICKS
# ticks; prints its id.
counter_job() {
  local name=$1 out
  out="$(sbatch --parsable -J "$name" -N 2 -t 1 -o "$CLUSTER_DIR/out/%j.out" --wrap \
    "n=0; while [ \$n -lt $WORK_TICKS ]; do sleep 0.25; n=\$((n+1)); echo \"\$(date +%s.%N) \$n\" >>$CLUSTER_DIR/out/count-$name; done" \
    2>&1)" || fail "sbatch $name failed: $out"
  echo 2 >"$CLUSTER_DIR/out/want-${out%%;*}"
  echo "${out%%;*}"
}

from=$(log_lines)
a=$(counter_job A)
wait_running "$a" 30
b=$(counter_job B)
wait_all_done 150

check_completed_once "$a" "$b"
check_decided_by_losd

# --- Slurm's records: the suspend/resume pattern --------------------------
tail -n +"$((from + 1))" "$CLUSTER_DIR/slurmctld.log" \
  | grep -oE "sched/los: (started|suspended|resumed) JobId=($a|$b)( |$)" | sed 's/sched\/los: //' >"$CLUSTER_DIR/switches.txt"
log "switches: $(tr '\n' ',' <"$CLUSTER_DIR/switches.txt" | sed 's/ JobId=/ /g')"
sa=$(grep -c "suspended JobId=$a" "$CLUSTER_DIR/switches.txt")
sb=$(grep -c "suspended JobId=$b" "$CLUSTER_DIR/switches.txt")
ra=$(grep -c "resumed JobId=$a" "$CLUSTER_DIR/switches.txt")
assert_le 2 "$sa" "A was suspended at least twice (~40 s of work, 5 s slices, B sharing the nodes)"
assert_le 1 "$sb" "B was suspended at least once"
assert_le 2 "$ra" "A was resumed at least twice"
# Every suspend of one job is followed by the start or resume of the other
# (the switch of one slice boundary), never by a second suspend.
python3 - "$CLUSTER_DIR/switches.txt" "$a" "$b" <<'PY' || fail "the switches do not alternate (see $CLUSTER_DIR/switches.txt)"
import sys
lines = [l.split() for l in open(sys.argv[1])]
a, b = sys.argv[2], sys.argv[3]
for i, (what, job) in enumerate(lines):
    job = job.split("=")[1]
    if what != "suspended":
        continue
    other = b if job == a else a
    nxt = lines[i + 1] if i + 1 < len(lines) else None
    if nxt is None or nxt[0] not in ("started", "resumed") or nxt[1] != "JobId=" + other:
        sys.exit(f"suspend of {job} at line {i + 1} not followed by the other job's start/resume: {nxt}")
PY

# --- the jobs' own progress: 1/MPL each while they share ------------------
python3 - "$CLUSTER_DIR/out/count-A" "$CLUSTER_DIR/out/count-B" "$MPL" "$PROGRESS_TOLERANCE" "$SLICE" <<'PY' || fail "progress is not 1/MPL of wall time"
import sys
def ticks(path):
    return [float(l.split()[0]) for l in open(path)]
ta, tb = ticks(sys.argv[1]), ticks(sys.argv[2])
mpl, tol, sl = int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
# A's dedicated rate: its ticks alone on the nodes, before B's first slice
# (a tick is 0.25 s of sleep plus two forks: a little slower than 4 a second)
solo = [t for t in ta if t < tb[0]]
if len(solo) < 8:
    sys.exit(f"A ticked only {len(solo)} times before B started: no dedicated rate")
rate = (len(solo) - 1) / (solo[-1] - solo[0])
# the window both share: from B's first tick to the first job's last, cut to whole cycles
lo, hi = tb[0], min(ta[-1], tb[-1])
cycle = mpl * sl
cycles = int((hi - lo) // cycle)
if cycles < 2:
    sys.exit(f"the jobs shared the nodes only {hi - lo:.1f} s, less than two cycles of {cycle} s")
hi = lo + cycles * cycle
wall = hi - lo
fa = sum(1 for t in ta if lo < t <= hi) / rate / wall
fb = sum(1 for t in tb if lo < t <= hi) / rate / wall
# both progressing in the same second: the slices overlap
sa = {int(t) for t in ta if lo < t <= hi}
sb = {int(t) for t in tb if lo < t <= hi}
both = len(sa & sb)
print(f"dedicated rate {rate:.2f} ticks/s; window {wall:.0f} s ({cycles} cycles of {cycle:.0f} s): "
      f"A progressed {fa:.3f}, B {fb:.3f} of wall time (1/MPL = {1 / mpl:.3f} +- {tol}); "
      f"seconds in which both progressed: {both} (switches in the window: {2 * cycles})", file=sys.stderr)
ok = abs(fa - 1 / mpl) <= tol and abs(fb - 1 / mpl) <= tol and both <= 2 * cycles + 1
sys.exit(0 if ok else 1)
PY

# --- time limits count execution time -------------------------------------
for id in "$a" "$b"; do
  wall=$(($(end_time "$id") - $(start_time "$id")))
  log "job $id: limit 60 s, wall time from start to end $wall s, state $(jobcomp JobState "$id")"
  assert_lt 60 "$wall" "job $id ran longer than its 1-minute limit in wall time (it was suspended about half of it)"
done
log "gang time slicing OK"
