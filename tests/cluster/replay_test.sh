#!/usr/bin/env bash
# los-sim replay on a real 8-node Slurm cluster under sched/los + losd (easy):
# a 12-job workload written below, 30 workload seconds per real second.
# Asserted from Slurm's records and the replay's own outputs:
#   - every job ran once and completed; the live schedule (--out) has them all,
#     with their run times (sleep R / 30, whole seconds) and submit offsets
#     kept, and never more than 8 nodes busy;
#   - the report sets "predicted: easy", "live: sched/los" and "as run: easy"
#     (the prediction with the live run times) side by side for the same 12
#     jobs, and every job starts within 2 real seconds (60 workload seconds)
#     of the completion or submission that let it start: Slurm's whole-second
#     records plus the plugin's reaction (los_poll_ms) and the launch. Those
#     latencies add up along a chain of jobs that wait for each other, so the
#     per-job distance to either prediction is printed, not bounded.
#   - an interrupted replay (SIGINT) exits 130 and leaves no job of its own
#     queued or running.
set -uo pipefail
source "$(dirname "$0")/cluster.sh"

cluster_up_decided_by losd easy 8
partition_up
sim="$LOS_BUILD_DIR/bin/los-sim"
work="$CLUSTER_DIR/replay"
mkdir -p "$work"

# id submit wait run procs cpu mem req_procs estimate ... (SWF, 8-unit machine).
# A queue forms at t=300: J5 (8 units) waits for J1-J4; J6-J12 are backfilled
# or wait behind it as EASY decides.
cat >"$work/w.swf" <<'EOF'
; MaxProcs: 8
1    0   -1  600  4 -1 -1  4  900 -1 1 1 1 1 1 -1 -1 -1
2   30   -1  300  2 -1 -1  2  600 -1 1 1 1 1 1 -1 -1 -1
3   60   -1  450  2 -1 -1  2  600 -1 1 1 1 1 1 -1 -1 -1
4  120   -1  240  1 -1 -1  1  300 -1 1 2 1 1 1 -1 -1 -1
5  300   -1  300  8 -1 -1  8  600 -1 1 2 1 1 1 -1 -1 -1
6  330   -1  120  1 -1 -1  1  240 -1 1 2 1 1 1 -1 -1 -1
7  360   -1  600  2 -1 -1  2  900 -1 1 3 1 1 1 -1 -1 -1
8  390   -1  150  1 -1 -1  1  180 -1 1 3 1 1 1 -1 -1 -1
9  420   -1  360  4 -1 -1  4  600 -1 1 3 1 1 1 -1 -1 -1
10 450   -1   90  3 -1 -1  3  120 -1 1 4 1 1 1 -1 -1 -1
11 510   -1  240  6 -1 -1  6  300 -1 1 4 1 1 1 -1 -1 -1
12 540   -1  180  2 -1 -1  2  300 -1 1 4 1 1 1 -1 -1 -1
EOF

log "replaying 12 jobs, x30"
"$sim" replay --compress 30 --poll 1 --format json --out "$work/live.swf" --prediction-out "$work/pred.swf" \
  --as-run-out "$work/as-run.swf" \
  "$work/w.swf" >"$work/report.json" 2>"$work/replay.err" ||
  fail "los-sim replay failed: $(tail -5 "$work/replay.err")"

python3 - "$work" "$CLUSTER_DIR/jobcomp.txt" <<'EOF' || fail "replay outcome check failed"
import json, re, sys
work, jobcomp = sys.argv[1], sys.argv[2]
C = 30

def swf(path):
    rows = {}
    for line in open(path):
        if line.startswith(';') or not line.strip():
            continue
        f = line.split()
        rows[int(f[0])] = dict(submit=int(f[1]), wait=int(f[2]), run=int(f[3]), size=int(f[4]), est=int(f[8]))
    return rows

trace, live, pred = swf(f"{work}/w.swf"), swf(f"{work}/live.swf"), swf(f"{work}/pred.swf")
as_run = swf(f"{work}/as-run.swf")
errors = []
if sorted(live) != sorted(trace) or sorted(pred) != sorted(trace):
    errors.append(f"job ids: trace {sorted(trace)}, live {sorted(live)}, predicted {sorted(pred)}")
first = min(t["submit"] for t in trace.values())
for i, t in trace.items():
    l = live.get(i)
    if l is None:
        continue
    if l["wait"] < 0:
        errors.append(f"job {i}: negative wait {l['wait']}")
    # sleep R/C real seconds, recorded in whole seconds, plus the launch.
    if not (t["run"] - C <= l["run"] <= t["run"] + 3 * C):
        errors.append(f"job {i}: ran {l['run']} workload s live, {t['run']} in the trace")
    if abs((l["submit"]) - (t["submit"] - first)) > 2 * C:
        errors.append(f"job {i}: submitted at {l['submit']}, due at {t['submit'] - first}")
    if l["size"] != t["size"]:
        errors.append(f"job {i}: {l['size']} nodes live, {t['size']} in the trace")
    p = pred[i]
    if p["submit"] != l["submit"]:
        errors.append(f"job {i}: predicted for submit {p['submit']}, live submit {l['submit']}")
    a = as_run[i]
    if a["run"] != l["run"]:
        errors.append(f"job {i}: ran {l['run']} live, {a['run']} in the as-run prediction")
    start = l["submit"] + l["wait"]
    dstart, dstart_as_run = start - (p["submit"] + p["wait"]), start - (a["submit"] + a["wait"])
    # What freed it: the last end at or before its start (or its submission).
    freed = max([l["submit"]] + [o["submit"] + o["wait"] + o["run"] for o in live.values()
                                 if o["submit"] + o["wait"] + o["run"] <= start])
    print(f"job {i}: live start {start}, predicted {dstart:+d}, as run {dstart_as_run:+d}, after its freeing {start - freed}")
    if start - freed > 2 * C:
        errors.append(f"job {i}: started {start - freed} workload s after the end or submission that freed it")
# Never more than 8 nodes busy in the live schedule.
points = sorted({l["submit"] + l["wait"] for l in live.values()})
for at in points:
    busy = sum(l["size"] for l in live.values() if l["submit"] + l["wait"] <= at < l["submit"] + l["wait"] + l["run"])
    if busy > 8:
        errors.append(f"{busy} nodes busy at {at}")
doc = json.load(open(f"{work}/report.json"))
names = [r["policy"] for r in doc["results"]]
if names != ["predicted: easy", "live: sched/los", "as run: easy"]:
    errors.append(f"report columns {names}")
# Slurm's own records: 12 replay jobs, each completed once.
states = [re.search(r"JobState=(\S+)", l).group(1) for l in open(jobcomp) if re.search(r"Name=los-replay-", l)]
if len(states) != 12 or set(states) != {"COMPLETED"}:
    errors.append(f"Slurm's completion records of the replay: {states}")
print("error percent:", doc["replay"]["error_percent"], "vs as run:", doc["replay"]["error_percent_vs_as_run"])
if errors:
    print("\n".join(errors))
    sys.exit(1)
EOF

log "interrupting a second replay"
"$sim" replay --compress 30 --poll 1 --name los-replay-int "$work/w.swf" >"$work/int.out" 2>"$work/int.err" &
replay_pid=$!
deadline=$((SECONDS + 30))
until [ "$(squeue -h -n "los-replay-int-$replay_pid" -o %i | wc -l)" -ge 2 ]; do
  [ $SECONDS -lt $deadline ] || fail "the second replay submitted nothing in 30 s: $(cat "$work/int.err")"
  sleep 0.5
done
kill -INT "$replay_pid"
wait "$replay_pid"
rc=$?
[ "$rc" -eq 130 ] || fail "interrupted replay exited $rc, not 130: $(tail -3 "$work/int.err")"
deadline=$((SECONDS + 15))
until [ "$(squeue -h -n "los-replay-int-$replay_pid" -t PD,R,CG,S -o %i | wc -l)" -eq 0 ]; do
  [ $SECONDS -lt $deadline ] || fail "jobs of the interrupted replay still queued: $(squeue -h -n "los-replay-int-$replay_pid")"
  sleep 0.5
done
grep -q "interrupted" "$work/int.err" || fail "the interrupted replay did not say so: $(cat "$work/int.err")"
echo "PASS: los-sim replay on a live cluster"
