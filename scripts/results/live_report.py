#!/usr/bin/env python3
"""docs/results/live.md from the runs of scripts/results/live.sh.

live_report.py DATA_DIR COMPRESS JOBS SKIP LOAD TUNED [LOS_SIM] > live.md

With LOS_SIM, the page also says how far each policy's own prediction moves
under nudges a live run cannot avoid (live_sensitivity.py).

DATA_DIR holds SCHEDULER-rN.json (los-sim replay --format json) and the
SCHEDULER-rN.{live,pred,as-run}.swf schedules of every run.
"""
import glob
import json
import math
import os
import re
import statistics
import sys

data, compress, njobs, skip, load, tuned = sys.argv[1:7]
los_sim = sys.argv[7] if len(sys.argv) > 7 else None
C = float(compress)
ORDER = ["backfill", "backfill-tuned", "easy", "conservative", "los", "tabu"]
LABEL = {
    "backfill": "sched/backfill (default)",
    "backfill-tuned": "sched/backfill (tuned)",
    "easy": "sched/los easy",
    "conservative": "sched/los conservative",
    "los": "sched/los los",
    "tabu": "sched/los tabu",
}


def label(scheduler):
    """The page's name for a scheduler: a tabu entry with parameters runs under sched/los too."""
    return LABEL.get(scheduler, f"sched/los {scheduler}")


# Student t, 90% two-sided, by degrees of freedom.
T90 = {1: 6.314, 2: 2.920, 3: 2.353, 4: 2.132, 5: 2.015, 6: 1.943, 7: 1.895, 8: 1.860, 9: 1.833}


def swf(path):
    rows = {}
    for line in open(path):
        if line.startswith(";") or not line.strip():
            continue
        f = line.split()
        rows[int(f[0])] = dict(submit=int(f[1]), wait=int(f[2]), run=int(f[3]), size=int(f[4]), est=int(f[8]))
    return rows


def ci(values, digits):
    """mean ± 90% half-width over the repeats (the mean alone for one run)."""
    m = statistics.mean(values)
    if len(values) < 2:
        return f"{m:.{digits}f}"
    h = T90.get(len(values) - 1, 1.645) * statistics.stdev(values) / math.sqrt(len(values))
    return f"{m:.{digits}f} ± {h:.{digits}f}"


def bsld(path, tau):
    """Mean bounded slowdown of a schedule with bound tau (workload seconds)."""
    rows = swf(path).values()
    return statistics.mean(max(1.0, (r["wait"] + r["run"]) / max(r["run"], tau)) for r in rows)


def metrics(result):
    return result["mean_wait_s"], result["mean_bsld"], result["utilization"]


def latencies(base):
    """Run-time inflation per job, real seconds: the live run (Slurm's records)
    minus the trace's run time, over the jobs not ended by their limit."""
    live, pred = swf(base + ".live.swf"), swf(base + ".pred.swf")
    return [(live[i]["run"] - pred[i]["run"]) / C for i in live if live[i]["run"] < live[i]["est"]]


runs = {}
for path in sorted(glob.glob(os.path.join(data, "*-r*.json"))):
    m = re.match(r"(.+)-r(\d+)\.json$", os.path.basename(path))
    if not m:  # SCHEDULER-rN.latency.json
        continue
    doc = json.load(open(path))
    runs.setdefault(m.group(1), []).append((path[: -len(".json")], doc))
schedulers = [s for s in ORDER if s in runs] + sorted(s for s in runs if s not in ORDER)
counts = sorted({len(v) for v in runs.values()})
first = next(iter(runs.values()))[0][1] if runs else None
# los-sim replay --time-grain of the runs (runs before the option had exact).
grains = {d["replay"].get("time_grain", "exact") for v in runs.values() for _, d in v}
if len(grains) > 1:
    sys.exit(f"live_report.py: {data} mixes runs of --time-grain {' and '.join(sorted(grains))}")
grain = grains.pop() if grains else "exact"

out = []
w = out.append
has_backfill = any(s.startswith("backfill") for s in schedulers)
w("# Live: sched/los and Slurm's sched/backfill on a real cluster, and the simulator held to it" if has_backfill
  else f"# Live at {C:g}x: the simulator held to sched/los on a real cluster")
w("")
minutes = statistics.mean(d["results"][1]["makespan_s"] for v in runs.values() for _, d in v) / C / 60
grain_setting = "" if grain == "whole" else f"LIVE_TIME_GRAIN={grain} "
# The page's variant: none for the defaults of live.sh (60x, whole seconds).
variant = "" if C == 60 and grain == "whole" else f"-x{C:g}" + ("" if grain == "whole" else "-exact")
if not variant and has_backfill:
    command = "scripts/results/live.sh            # 6 schedulers at once, LIVE_REPEATS=2 by default"
else:
    command = (f"{grain_setting}LIVE_COMPRESS={C:g} LIVE_REPEATS={max(counts)} LIVE_PARALLEL={len(schedulers)} "
               f"LIVE_SCHEDULERS=\"{' '.join(schedulers)}\" scripts/results/live.sh")
w(f"Regenerate (as root, after a build with the plugin; about {minutes:.0f} minutes per run):")
w("")
w("```")
w(command)
w("```")
w("")
w(f"The workload: jobs {int(skip) + 1}-{int(skip) + int(njobs)} of SDSC-SP2 (`--skip {skip} --jobs {njobs}`, "
  f"after los-sim's cleaning), sizes scaled from 128 to 32 nodes, arrivals rescaled to offered load {load}, "
  f"replayed by `los-sim replay --compress {C:g} --time-grain {grain}` on a local 32-node Slurm 22.05 cluster "
  "(`tests/cluster/cluster.sh`: one slurmctld and 32 slurmd on this 2-core host, select/linear, "
  "sleep jobs). Every run submits the same 300 jobs at the same (compressed) times; Slurm's records give "
  "each job's submit, start and end, in whole seconds.")
w("")
w(f"Runs per scheduler in this page: {', '.join(map(str, counts))}. Figures are the mean over the runs "
  "± the half-width of a 90% confidence interval (Student t over the runs); a single run shows its value alone.")
w("")
w("## Compression and what it does to the jobs")
w("")
submitted = swf(runs[schedulers[0]][0][0] + ".pred.swf")
limit_minutes = {}
for j in submitted.values():
    limit_minutes[round(j["est"] / C / 60)] = limit_minutes.get(round(j["est"] / C / 60), 0) + 1
spread = ", ".join(f"{n} jobs {m} min" for m, n in sorted(limit_minutes.items())[:4])
if len(limit_minutes) > 4:
    spread += f" and {sum(n for m, n in sorted(limit_minutes.items())[4:])} jobs longer"
w(f"One real second is {C:g} workload seconds. The segment's arrivals span about "
  f"{(max(j['submit'] for j in submitted.values()) / C):.0f} real seconds "
  f"and a run lasts about {minutes:.0f} minutes. The price:")
w("")
w(f"- **Time limits.** Slurm's limits are whole minutes: a job's limit is ceil(estimate / {C:g} / 60) "
  f"minutes, i.e. a multiple of {60 * C:g} workload seconds ({60 * C / 3600:.3g} h). On this segment: "
  f"{spread}; {len(limit_minutes)} distinct limits for {len(submitted)} jobs. The live schedulers and the "
  "prediction see the same limits (los-sim replay predicts with the limits as submitted)"
  + (": the users' estimates are all but erased, and what remains to tell the policies apart is the sizes "
     "and the order. Keeping SDSC-SP2's estimates needs C <= 60, i.e. runs of about an hour for 300 jobs."
     if 60 * C >= 36000 else ": the users' estimates survive, rounded up to the next whole "
     f"{60 * C / 3600:.3g} h."))
w(f"- **Whole seconds.** Slurm records times in whole seconds: every live time is a multiple of {C:g} "
  "workload seconds, and any real latency (the launch of a job, the report of its end, the scheduler's "
  f"reaction) is multiplied by {C:g}."
  + (f" With `--time-grain whole` the replay rounds every submit time and run time to the nearest whole real "
     f"second ({C:g} workload seconds) before it submits, and the prediction is given the rounded jobs: what is "
     "submitted is then what Slurm's records can show, and no rounding stands between the prediction and the "
     "live run." if grain == "whole" else
     " With `--time-grain exact` (these runs) the replay submits fractional sleeps and submit times, the "
     "prediction has the trace's times, and Slurm's records round them."))
w("")
w("## Against Slurm's scheduler" if has_backfill else "## Live outcome")
w("")
text = ("Live outcome per scheduler (workload seconds). Bounded slowdown twice: with los-sim's 10 s bound, and with "
        f"a bound of one real second ({C:g} workload seconds), the resolution of Slurm's records: at this compression "
        f"a short job's recorded run time is 0 or {C:g} s, and the jobs recorded at 0 weigh heavily in the 10 s "
        "figure (see below). ")
if has_backfill:
    text += ("sched/backfill tuned: "
             f"`SchedulerParameters={tuned}` (at {C:g}x, the default bf_interval of 30 s is {30 * C / 3600:.3g} "
             f"workload hours and bf_resolution 60 s is {60 * C / 3600:.3g}; bf_window covers the longest limit). ")
text += ("The prediction column is los-sim on exactly the jobs as submitted, with the policy named"
         + (" (easy for sched/backfill, its nearest)." if has_backfill else "."))
w(text)
w("")
w(f"| scheduler | runs | mean wait (s) | bounded slowdown, 10 s | bounded slowdown, {C:g} s | utilization "
  f"| predicted mean wait | predicted bsld, 10 s | predicted bsld, {C:g} s |")
w("|---|---|---|---|---|---|---|---|---|")
for s in schedulers:
    live = [metrics(d["results"][1]) for _, d in runs[s]]
    pred = [metrics(d["results"][0]) for _, d in runs[s]]
    live_c = [bsld(base + ".live.swf", C) for base, _ in runs[s]]
    pred_c = [bsld(base + ".pred.swf", C) for base, _ in runs[s]]
    w(f"| {label(s)} | {len(live)} | {ci([x[0] for x in live], 0)} | {ci([x[1] for x in live], 2)} | "
      f"{ci(live_c, 2)} | {ci([x[2] for x in live], 3)} | {ci([x[0] for x in pred], 0)} | "
      f"{ci([x[1] for x in pred], 2)} | {ci(pred_c, 2)} |")
w("")
w("## The simulator held to the live run")
w("")
w("Error of the live run against the prediction, in percent (live minus predicted, over predicted), split in "
  "two by the \"as run\" prediction (the same policy on the same jobs with the run times the jobs had live, "
  "end minus start as Slurm recorded them): *as run vs predicted* is what the longer live run times alone "
  "change; *live vs as run* is what is left, the live scheduler's own doing (its reaction to events, its "
  "decisions).")
w("")
w("| scheduler | policy predicted | wait: live vs predicted | wait: as run vs predicted | wait: live vs as run "
  f"| bsld (10 s): live vs predicted | bsld (10 s): live vs as run | bsld ({C:g} s): live vs predicted "
  "| jobs recorded with run 0 | killed at limit |")
w("|---|---|---|---|---|---|---|---|---|---|")
for s in schedulers:
    docs = [d for _, d in runs[s]]
    def err(d, a, b, k):
        va, vb = d["results"][a][k], d["results"][b][k]
        return 100.0 * (va - vb) / vb if vb else 0.0
    wp = [err(d, 1, 0, "mean_wait_s") for d in docs]
    wa = [err(d, 2, 0, "mean_wait_s") for d in docs]
    wl = [err(d, 1, 2, "mean_wait_s") for d in docs]
    bp = [err(d, 1, 0, "mean_bsld") for d in docs]
    bl = [err(d, 1, 2, "mean_bsld") for d in docs]
    killed = [d["replay"]["killed_at_limit"] for d in docs]
    bc = [100.0 * (bsld(b + ".live.swf", C) - bsld(b + ".pred.swf", C)) / bsld(b + ".pred.swf", C) for b, _ in runs[s]]
    zero = [sum(1 for r in swf(b + ".live.swf").values() if r["run"] == 0) for b, _ in runs[s]]
    w(f"| {label(s)} | {docs[0]['replay']['prediction_policy']} | {ci(wp, 1)} | {ci(wa, 1)} | {ci(wl, 1)} | "
      f"{ci(bp, 1)} | {ci(bl, 1)} | {ci(bc, 1)} | {ci(zero, 1)} | {ci(killed, 1)} |")
w("")
w("### Where the error comes from: the latencies, measured")
w("")
w("In **real** seconds (x %g for workload seconds). *Run-time inflation*, from each run's live schedule "
  "(Slurm's job records): a job's recorded end minus start minus its sleep, over the jobs not ended by their "
  "limit: the launch (slurmctld to slurmd to slurmstepd to the batch shell to sleep) and the report of the end, "
  "blurred by the whole-second records (the difference of two whole-second times is off by up to 1 s either "
  "way; short sleeps often record 0). *Event to start*, from slurmctld's log (millisecond times, "
  "`scripts/results/live_latency.py`): for every submission or completion followed by a job start within "
  "1.5 s, the time to that start: how long an event waits for the cycle that acts on it." % C)
w("")
w("| scheduler | run-time inflation mean (s) | inflation p90 (s) | event to start: runs | mean (s) | p50 (s) | p90 (s) |")
w("|---|---|---|---|---|---|---|")
for s in schedulers:
    inf, lat = [], []
    for base, _ in runs[s]:
        inf += latencies(base)
        if os.path.exists(base + ".latency.json"):
            lat.append(json.load(open(base + ".latency.json"))["event_to_next_start_s"])
    q = lambda v, p: sorted(v)[min(len(v) - 1, int(p * len(v)))]
    if lat:
        n = sum(x["count"] for x in lat)
        mean = sum(x["mean"] * x["count"] for x in lat) / n
        lat_cells = f"{len(lat)} | {mean:.2f} | {statistics.mean(x['p50'] for x in lat):.2f} | " \
                    f"{statistics.mean(x['p90'] for x in lat):.2f}"
    else:
        lat_cells = "0 | | |"
    w(f"| {label(s)} | {statistics.mean(inf):.2f} | {q(inf, 0.9):.0f} | {lat_cells} |")
w("")
if los_sim:
    import subprocess
    table = subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                         "live_sensitivity.py"), los_sim, data, compress],
                           capture_output=True, text=True, check=True).stdout.rstrip("\n")
    if table:
        w("### How far each prediction moves when its events move a little")
        w("")
        w("The same policy again on the jobs of each run's prediction (`scripts/results/live_sensitivity.py`): "
          "with every submit time moved later by 0 or 1 workload second (three seeds; a live event waits about "
          f"0.15 real s, i.e. 0.15 x {C:g} workload seconds, for its cycle), and with every run time rounded to the "
          f"nearest whole real second ({C:g} workload seconds), as Slurm's records give run times back. Change of "
          "the mean wait and of the mean bounded slowdown (10 s bound) against the prediction itself, in percent. "
          "A policy whose prediction moves by more than 10 % under such nudges cannot be held to 10 % by one live "
          "run, whatever the live path does."
          + (" These runs submitted whole-second run times (`--time-grain whole`), so the rounding column "
             "changes nothing here." if grain == "whole" else ""))
        w("")
        w(table)
        w("")
discussion = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                          f"live_discussion{variant}.md")
if os.path.exists(discussion):
    out.append(open(discussion).read().rstrip("\n"))
print("\n".join(out))
