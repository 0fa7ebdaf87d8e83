#!/usr/bin/env python3
"""Counts and tables for scripts/results/los-issue14.sh.

Usage: los_issue14_report.py OUT_DIR [--table]
Reads OUT_DIR/*.json (los-sim --format json, EASY first) and prints, per
policy and per group (Lublin, shared traces), how many workloads it is
significantly better / worse than EASY on / undecided (90% CI of the
easy - policy mean bounded slowdown), and its lowest mean; --table adds
one row per workload.
"""
import glob
import json
import os
import sys


def cell(d):
    mark = "**" if d["ci90_low"] > 0 else ("*" if d["ci90_high"] < 0 else "")
    return f"{mark}{d['mean']:,.1f}{mark} [{d['ci90_low']:,.1f}, {d['ci90_high']:,.1f}]"


def main():
    out = sys.argv[1]
    rows = []
    for path in sorted(glob.glob(os.path.join(out, "*.json"))):
        with open(path) as f:
            runs = json.load(f)
        rows.append((os.path.basename(path)[:-5], runs))
    policies = [r["policy"] for r in rows[0][1][1:]] if rows else []
    for group in ("lublin", "traces"):
        sel = [(n, r) for n, r in rows if n.startswith("lublin-") == (group == "lublin")]
        if not sel:
            continue
        print(f"\n{group}: {len(sel)} workloads\n")
        print("| design | better | worse | undecided | lowest mean (where) |\n|---|---|---|---|---|")
        for i, p in enumerate(policies):
            b = w = u = 0
            low = None
            for n, r in sel:
                d = r[i + 1]["vs_baseline"]["bsld"]
                if d["ci90_low"] > 0:
                    b += 1
                elif d["ci90_high"] < 0:
                    w += 1
                else:
                    u += 1
                if low is None or d["mean"] < low[0]:
                    low = (d["mean"], n)
            print(f"| `{p}` | {b} | {w} | {u} | {low[0]:,.1f} ({low[1]}) |")
        if "--table" in sys.argv:
            print("\n| workload | bsld(easy) | " + " | ".join(f"`{p}`" for p in policies) + " |")
            print("|---|---|" + "---|" * len(policies))
            for n, r in sel:
                print(f"| {n} | {r[0]['mean_bsld']:,.1f} | "
                      + " | ".join(cell(x["vs_baseline"]["bsld"]) for x in r[1:]) + " |")


if __name__ == "__main__":
    main()
