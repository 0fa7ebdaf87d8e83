#!/usr/bin/env python3
"""How far a policy's own prediction moves under perturbations a live run cannot avoid.

Usage: live_sensitivity.py LOS_SIM DATA_DIR COMPRESSION

For every sched/los run in DATA_DIR (SCHEDULER-rN.json and SCHEDULER-rN.pred.swf,
written by scripts/results/live.sh), los-sim runs the run's predicted policy again
on the predicted schedule's jobs (the jobs as submitted) three ways:
  - as they are (the base);
  - every submit time moved later by 0 or 1 workload second (three seeds): far
    less than a live event's latency (about 0.15 real s, i.e. 0.15 x C);
  - every run time rounded to whole real seconds (a multiple of C workload
    seconds), as Slurm's whole-second job records give them back.
Prints a Markdown table: per scheduler, the mean and largest absolute change of
the mean wait and the mean bounded slowdown (10 s bound) against the base, in
percent. A policy whose prediction moves by more than 10 % under such nudges
cannot be held to 10 % by a single live run.
"""
import glob
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile


def perturbed(src, dst, mode, seed, compress):
    rng = random.Random(seed)
    with open(src) as f, open(dst, "w") as out:
        for line in f:
            if line.startswith(";") or not line.strip():
                out.write(line)
                continue
            fields = line.split()
            if mode == "submit":
                fields[1] = str(int(fields[1]) + rng.randint(0, 1))
            elif mode == "round":
                run = int(fields[3])
                run = compress * round(run / compress)
                limit = int(fields[8])
                if limit > 0:
                    run = min(run, limit)
                fields[3] = str(run)
            out.write(" ".join(fields) + "\n")


def simulate(sim, policy, swf):
    out = subprocess.run([sim, "--quiet", "--policy", policy, "--format", "json", swf],
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"live_sensitivity.py: los-sim failed on {swf} ({policy}): {out.stderr.strip()}")
    r = json.loads(out.stdout)[0]
    return r["mean_wait_s"], r["mean_bsld"]


def change(new, base):
    return 100.0 * (new - base) / base if base else 0.0


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.strip().split("\n\n")[1])
    sim, data, compress = sys.argv[1], sys.argv[2], int(float(sys.argv[3]))
    runs = {}  # scheduler -> [(policy, pred.swf)]
    for path in sorted(glob.glob(os.path.join(data, "*-r*.json"))):
        m = re.match(r"(.+)-r(\d+)\.json$", os.path.basename(path))
        if not m or m.group(1).startswith("backfill"):
            continue
        pred = path[: -len(".json")] + ".pred.swf"
        if not os.path.exists(pred):
            continue
        with open(path) as f:
            policy = json.load(f)["replay"]["prediction_policy"]
        runs.setdefault(m.group(1), []).append((policy, pred))
    if not runs:
        return
    print("| scheduler | policy | runs | submits +0/1 s: wait, mean / largest abs. change | bsld, mean / largest abs. change "
          f"| run times to whole real seconds ({compress} s): wait change | bsld change |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for sched, items in runs.items():
            nudged_w, nudged_b, round_w, round_b = [], [], [], []
            for policy, pred in items:
                base_w, base_b = simulate(sim, policy, pred)
                for seed in (1, 2, 3):
                    f = os.path.join(tmp, f"submit-{seed}.swf")
                    perturbed(pred, f, "submit", seed, compress)
                    w, b = simulate(sim, policy, f)
                    nudged_w.append(abs(change(w, base_w)))
                    nudged_b.append(abs(change(b, base_b)))
                f = os.path.join(tmp, "round.swf")
                perturbed(pred, f, "round", 0, compress)
                w, b = simulate(sim, policy, f)
                round_w.append(change(w, base_w))
                round_b.append(change(b, base_b))
            policies = sorted({p for p, _ in items})
            print(f"| {sched} | {', '.join(policies)} | {len(items)} "
                  f"| {statistics.mean(nudged_w):.1f} / {max(nudged_w):.1f} % "
                  f"| {statistics.mean(nudged_b):.1f} / {max(nudged_b):.1f} % "
                  f"| {min(round_w):+.1f} to {max(round_w):+.1f} % | {min(round_b):+.1f} to {max(round_b):+.1f} % |")


if __name__ == "__main__":
    main()
