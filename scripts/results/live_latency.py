#!/usr/bin/env python3
"""The scheduler's reaction, from slurmctld's log (millisecond times).

live_latency.py SLURMCTLD_LOG > REACTION.json

For every job start the log records (sched/los: "sched/los: started JobId=N";
sched/backfill's main scheduler: "sched: Allocate JobId=N"; its backfill pass:
"backfill: Started JobId=N"), the time since the last event before it that
can have let it start (since_last_event_s): a submission ("_slurm_rpc_submit_batch_job") or a
completion ("_job_complete: JobId=N done"). Starts in the same cycle share
their event. And event_to_next_start_s: for each such event followed by a
start within 1.5 s, the time to that start (how long an event waits for the
cycle that acts on it). Prints count, mean, p50, p90 and max in real seconds, and the
same for the submission-to-start time of the jobs started by the first cycle
after their own submission (the event was their submission).
"""
import datetime
import json
import re
import sys

events, starts, submitted = [], [], {}
for line in open(sys.argv[1], errors="replace"):
    m = re.match(r"\[(\S+)\] (.*)", line)
    if not m:
        continue
    try:
        t = datetime.datetime.fromisoformat(m.group(1)).timestamp()
    except ValueError:
        continue
    text = m.group(2)
    if (s := re.search(r"_slurm_rpc_submit_batch_job: JobId=(\d+)", text)):
        events.append((t, "submit", int(s.group(1))))
        submitted[int(s.group(1))] = t
    elif (s := re.search(r"_job_complete: JobId=(\d+) done", text)):
        events.append((t, "end", int(s.group(1))))
    elif (s := re.search(r"(?:sched/los: started|sched: Allocate|backfill: Started) JobId=(\d+)", text)):
        starts.append((t, int(s.group(1))))


def stats(v):
    if not v:
        return {"count": 0}
    v = sorted(v)
    q = lambda p: v[min(len(v) - 1, int(p * len(v)))]
    return {"count": len(v), "mean": sum(v) / len(v), "p50": q(0.5), "p90": q(0.9), "max": v[-1]}


# Event to the first start at or after it, for the events followed by a start
# within 1.5 s (the events a cycle acted on; the others let nothing start).
to_next = []
k = 0
for t, _, _ in events:
    while k < len(starts) and starts[k][0] < t:
        k += 1
    if k < len(starts) and starts[k][0] - t <= 1.5:
        to_next.append(starts[k][0] - t)
reaction, own_submit = [], []
i = 0
last = None
for t, job in starts:
    while i < len(events) and events[i][0] <= t:
        last = events[i]
        i += 1
    if last is None:
        continue
    reaction.append(t - last[0])
    if last[1] == "submit" and last[2] == job:
        own_submit.append(t - submitted[job])
print(json.dumps({"event_to_next_start_s": stats(to_next), "since_last_event_s": stats(reaction),
                  "own_submission_to_start_s": stats(own_submit)}))
