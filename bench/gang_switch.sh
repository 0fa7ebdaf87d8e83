#!/usr/bin/env bash
# The context-switch cost of live gang scheduling: how long a slice boundary
# leaves the nodes without an executing job. A real slurmctld and NODES
# slurmd (tests/cluster/cluster.sh) with a partition of OverSubscribe=FORCE:2,
# losd running gang:mpl=2:slice=SLICE, two jobs on all the nodes whose tasks
# write the time every 10 ms (python3). From the slurmctld log (millisecond
# time stamps of sched/los's "suspended"/"resumed" lines) and the ticks:
#   stop  = the outgoing job's last tick - the suspend line's time
#   go    = the incoming job's first tick - the resume line's time
#   gap   = incoming first tick - outgoing last tick (no job executes):
#           (switches that resume a job; the first slice of B starts it,
#           which launches it and is not counted)
#           the stall a switch costs, which losd's model charges as
#           cs = gap / slice x 100 (% of the slice, GangOptions::cs_percent)
#
#   bench/gang_switch.sh            # as root, after a build with the plugin
#   NODES=4 SLICE=5 RUN=60 bench/gang_switch.sh
#
# Prints one table (median, min, max over the switches); docs/benchmarks.md
# records the runs.
set -uo pipefail
NODES=${NODES:-2}
SLICE=${SLICE:-5}
RUN=${RUN:-60} # seconds of the two jobs sharing the nodes
cd "$(dirname "$0")/.."
source tests/cluster/cluster.sh

CLUSTER_PARTITION_OPTS="OverSubscribe=FORCE:2" cluster_up "$NODES" "los_fallback=none"
losd_start "gang:mpl=2:slice=$SLICE"
partition_up

ticker() {
  local name=$1 out
  # one task per node (srun): every node's ticks go to one file per node
  out="$(sbatch --parsable -J "$name" -N "$NODES" --ntasks-per-node=1 -t 10 -o "$CLUSTER_DIR/out/%j.out" --wrap \
    "srun python3 -c 'import time,os,sys
end = time.time() + $RUN + 2 * $SLICE
f = open(\"$CLUSTER_DIR/out/tick-$name-\" + os.environ[\"SLURMD_NODENAME\"], \"w\", buffering=1)
while time.time() < end:
    f.write(\"%.4f\\n\" % time.time()); time.sleep(0.01)
'" 2>&1)" || fail "sbatch $name failed: $out"
  echo "${out%%;*}"
}
from=$(log_lines)
a=$(ticker A)
wait_running "$a" 30
b=$(ticker B)
wait_all_done $((2 * RUN + 60))

python3 - "$CLUSTER_DIR" "$a" "$b" "$SLICE" "$from" <<'PY'
import glob, re, statistics, sys
from datetime import datetime
d, a, b, sl, start = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), int(sys.argv[5])
names = {a: "A", b: "B"}
ev = []
for i, line in enumerate(open(f"{d}/slurmctld.log")):
    if i < start:
        continue
    m = re.match(r"\[(\S+)\] sched/los: (suspended|resumed|started) JobId=(\d+)", line)
    if m and m.group(3) in names:
        ev.append((datetime.fromisoformat(m.group(1)).timestamp(), m.group(2), names[m.group(3)]))
ticks = {}
for job in "AB":
    for path in glob.glob(f"{d}/out/tick-{job}-*"):
        ticks.setdefault(job, []).append(sorted(float(x) for x in open(path) if x.strip()))
stops, gos, gaps = [], [], []
for i, (t, what, job) in enumerate(ev):
    if what != "suspended" or i + 1 >= len(ev):
        continue
    t2, what2, job2 = ev[i + 1]
    # a start launches the job (batch script, srun): not a context switch
    if what2 != "resumed" or job2 == job:
        continue
    # per node: the outgoing job's last tick before its resume, the incoming one's first after t2
    for k in range(len(ticks[job])):
        out_ticks = [x for x in ticks[job][k] if t - 1 <= x < t + sl / 2]
        in_ticks = [x for x in ticks[job2][k] if t2 - 0.5 <= x < t2 + sl / 2]
        if not out_ticks or not in_ticks:
            continue
        stops.append(out_ticks[-1] - t)
        gos.append(in_ticks[0] - t2)
        gaps.append(in_ticks[0] - out_ticks[-1])
def row(name, v):
    v = [x * 1000 for x in v]
    return f"| {name} | {statistics.median(v):.0f} ms | {min(v):.0f} ms | {max(v):.0f} ms |"
if not gaps:
    sys.exit("no switch measured")
print(f"switches measured: {len(gaps)} (node x boundary), slice {sl:.0f} s")
print("| | median | min | max |\n|---|---|---|---|")
print(row("suspend line -> outgoing job's last tick (stop)", stops))
print(row("resume line -> incoming job's first tick (go)", gos))
print(row("no job executing (gap)", gaps))
print(f"gap as cs (% of a {sl:.0f} s slice): median {statistics.median(gaps) / sl * 100:.2f} %, "
      f"max {max(gaps) / sl * 100:.2f} %")
PY
