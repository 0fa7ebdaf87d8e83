#!/usr/bin/env python3
"""Counts and tables for scripts/results/los-issue14.sh.

Usage: los_issue14_report.py OUT_DIR [--table]
Reads OUT_DIR/*.json (los-sim --format json, EASY first) and prints, per
policy and per group (Lublin, shared traces), how many workloads it is
significantly better / worse than EASY on / undecided (90% CI of the
easy - policy mean bounded slowdown), and its lowest mean; --table adds
one row per workload. Replicated runs (NAME+jN.json from los-issue14.sh with REPLICATES, or
NAME+DELTA.json with DELTAS) are counted one by one, and then per workload
across replicates: the mean of the replicates' means with a 90% Student-t CI
over them, counted per group (lublin, cirne, traces). VERSUS=POLICY (env)
adds, where POLICY is better than the baseline across replicates, every other
policy against POLICY.
"""
import glob
import json
import math
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
    for group in ("lublin", "cirne", "traces"):
        sel = [(n, r) for n, r in rows if group_name(n) == group]
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
    replicated(out)


# t(0.95, df): the half-width factor of a two-sided 90% interval.
T95 = {1: 6.314, 2: 2.920, 3: 2.353, 4: 2.132, 5: 2.015, 6: 1.943, 7: 1.895, 8: 1.860, 9: 1.833, 10: 1.812,
       11: 1.796, 12: 1.782, 13: 1.771, 14: 1.761, 15: 1.753, 16: 1.746, 17: 1.740, 18: 1.734, 19: 1.729,
       20: 1.725, 24: 1.711, 29: 1.699, 39: 1.685}


def t95(df):
    return T95[max(k for k in T95 if k <= df)]


def across(xs):
    """Mean of the replicates' values and its 90% Student-t interval."""
    m = sum(xs) / len(xs)
    half = t95(len(xs) - 1) * math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1) / len(xs))
    return {"mean": m, "ci90_low": m - half, "ci90_high": m + half}


def verdict(d):
    return 0 if d["ci90_low"] > 0 else (1 if d["ci90_high"] < 0 else 2)


def group_name(name):
    return next((g for g in ("lublin", "cirne") if name.startswith(g + "-")), "traces")


def replicated(out):
    groups = {}
    for path in sorted(glob.glob(os.path.join(out, "*+*.json"))):
        name = os.path.basename(path)[:-5].rsplit("+", 1)[0]
        with open(path) as f:
            groups.setdefault(name, []).append(json.load(f))
    if not groups:
        return
    policies = [r["policy"] for r in next(iter(groups.values()))[0][1:]]
    print(f"\nacross replicates (mean of the replicates' easy - policy means, 90% t CI over them)\n")
    print("| workload | replicates | " + " | ".join(f"`{p}`" for p in policies) + " |")
    print("|---|---|" + "---|" * len(policies))
    counts = {}
    for name, runs in sorted(groups.items()):
        cells = []
        for i, p in enumerate(policies):
            d = across([r[i + 1]["vs_baseline"]["bsld"]["mean"] for r in runs])
            counts.setdefault(group_name(name), {}).setdefault(p, [0, 0, 0])[verdict(d)] += 1
            cells.append(cell(d))
        print(f"| {name} | {len(runs)} | " + " | ".join(cells) + " |")
    print("\n| design | workloads | better | worse | undecided (across replicates) |\n|---|---|---|---|---|")
    for g, by_policy in counts.items():
        for p in policies:
            c = by_policy[p]
            print(f"| `{p}` | {g} ({sum(c)}) | {c[0]} | {c[1]} | {c[2]} |")
    own_thesis(groups, policies)
    versus = os.environ.get("VERSUS")
    if versus and versus in policies:
        against(groups, policies, versus)


# Each hybrid spelling and the thesis algorithms it must not fall behind where
# they beat the baseline (issue 14: "stay at least as good as today's los where
# today's already wins", and the same for the merit variants; the hybrid
# los-maxsd is los).
OWN_THESIS = [("los", "los:design=thesis"), ("los", "los-maxsd:design=thesis"),
              ("los-maxjobs", "los-maxjobs:design=thesis")]


def own_thesis(groups, policies):
    pairs = [(h, t) for h, t in OWN_THESIS if h in policies and t in policies]
    if not pairs:
        return
    print("\neach hybrid variant against its own thesis algorithm, on the workloads where that algorithm is better "
          "than the baseline (thesis - hybrid, 90% t CI across replicates)\n")
    print("| hybrid | thesis algorithm | workloads | better | worse | undecided | worse on |\n|---|---|---|---|---|---|---|")
    for hybrid, thesis in pairs:
        h, t = policies.index(hybrid) + 1, policies.index(thesis) + 1
        by_group = {}
        for name, runs in sorted(groups.items()):
            if verdict(across([r[t]["vs_baseline"]["bsld"]["mean"] for r in runs])) != 0:
                continue
            d = across([r[t]["mean_bsld"] - r[h]["mean_bsld"] for r in runs])
            c = by_group.setdefault(group_name(name), [0, 0, 0, []])
            c[verdict(d)] += 1
            if verdict(d) == 1:
                c[3].append(name)
        for g, c in by_group.items():
            worse = ", ".join(c[3][:4]) + (f" and {len(c[3]) - 4} more" if len(c[3]) > 4 else "")
            print(f"| `{hybrid}` | `{thesis}` | {g} ({sum(c[:3])}) | {c[0]} | {c[1]} | {c[2]} | {worse or '—'} |")


def against(groups, policies, ref):
    """Where `ref` is significantly better than the baseline across replicates,
    every other policy against `ref` (ref - policy mean bounded slowdown)."""
    k = policies.index(ref) + 1
    print(f"\nagainst `{ref}` where it is better than the baseline (ref - policy, 90% t CI across replicates)\n")
    wins = [n for n, runs in sorted(groups.items())
            if verdict(across([r[k]["vs_baseline"]["bsld"]["mean"] for r in runs])) == 0]
    if not wins:
        print(f"`{ref}` is better than the baseline on none of these workloads.")
        return
    others = [p for p in policies if p != ref]
    print("| workload | " + " | ".join(f"`{p}`" for p in others) + " |")
    print("|---|" + "---|" * len(others))
    counts = {p: [0, 0, 0] for p in others}
    for name in wins:
        runs = groups[name]
        cells = []
        for p in others:
            i = policies.index(p) + 1
            d = across([r[k]["mean_bsld"] - r[i]["mean_bsld"] for r in runs])
            counts[p][verdict(d)] += 1
            cells.append(cell(d))
        print(f"| {name} | " + " | ".join(cells) + " |")
    print(f"\n| design | better than `{ref}` | worse | undecided |\n|---|---|---|---|")
    for p in others:
        print(f"| `{p}` | {counts[p][0]} | {counts[p][1]} | {counts[p][2]} |")


if __name__ == "__main__":
    main()
