#!/usr/bin/env python3
"""Builds docs/results/los.md and gnuplot scripts from los-sim JSON output.

Usage: los_report.py DATA_DIR PLOT_DIR MARKDOWN COMMIT MACHINE
DATA_DIR holds TRACE-{variants,sweep}-LOAD.json written by scripts/results/los.sh.
The hand-written discussion comes from scripts/results/los_discussion.md.
"""
import glob
import json
import os
import sys

THESIS = {  # EASY - LOS (C = 50, no merit, Bypassed-First) differential BSLD at load 0.9, thesis §4.2
    "SDSC-SP2": "about 65 (Fig. 4.3(b))",
    "KTH-SP2": "positive, value not in the text (Fig. 4.3(c))",
}


def load_runs(data_dir, kind):
    runs = {}
    for path in sorted(glob.glob(os.path.join(data_dir, f"*-{kind}-*.json"))):
        base = os.path.basename(path)[: -len(".json")]
        trace, _, load = base.rpartition(f"-{kind}-")
        with open(path) as f:
            runs.setdefault(trace, {})[float(load)] = json.load(f)
    return runs


def fmt(x, digits=1):
    return f"{x:,.{digits}f}"


def diff_cell(d):
    if d is None:
        return "-"
    mark = "**" if d["ci90_low"] > 0 else ("*" if d["ci90_high"] < 0 else "")
    return f"{mark}{fmt(d['mean'])}{mark} [{fmt(d['ci90_low'])}, {fmt(d['ci90_high'])}]"


def policies_of(runs):
    first = next(iter(runs.values()))
    return [r["policy"] for r in first]


def by_policy(run):
    return {r["policy"]: r for r in run}


METRICS = [("bsld", "mean_bsld", "bounded slowdown", 1), ("response_s", "mean_response_s", "response time (s)", 0),
           ("wait_s", "mean_wait_s", "wait time (s)", 0)]


def section(md, trace, runs, title, plot_prefix):
    loads = sorted(runs)
    pols = policies_of(runs)
    others = pols[1:]
    md.append(f"### {trace}: {title}\n")
    md.append(f"![mean bounded slowdown against load]({plot_prefix}-bsld.svg)\n")
    md.append(f"![EASY minus each policy, bounded slowdown, 90% CI]({plot_prefix}-diff-bsld.svg)\n")
    left_out = [p for p in pols if p in OFF_SCALE]
    if left_out:
        md.append("The difference plot leaves out " + ", ".join(f"`{p}`" for p in left_out) +
                  " (far off its scale); the tables below have every policy.\n")
    for key, abs_key, label, digits in METRICS:
        md.append(f"Mean {label} per policy:\n")
        md.append("| load | " + " | ".join(f"`{p}`" for p in pols) + " |")
        md.append("|---|" + "---|" * len(pols))
        for l in loads:
            bp = by_policy(runs[l])
            md.append(f"| {l:.2f} | " + " | ".join(fmt(bp[p][abs_key], digits) for p in pols) + " |")
        md.append("")
        md.append(f"EASY minus each policy, mean per-job {label} difference [90% CI] (positive: the policy is better; "
                  "**bold**: the whole interval is above 0, *italic*: below 0):\n")
        md.append("| load | " + " | ".join(f"`{p}`" for p in others) + " |")
        md.append("|---|" + "---|" * len(others))
        for l in loads:
            bp = by_policy(runs[l])
            md.append(f"| {l:.2f} | " + " | ".join(diff_cell(bp[p]["vs_baseline"][key]) for p in others) + " |")
        md.append("")
    md.append("Utilization and mean queue length (scheduling steps):\n")
    md.append("| load | " + " | ".join(f"`{p}` util / queue" for p in pols) + " |")
    md.append("|---|" + "---|" * len(pols))
    for l in loads:
        bp = by_policy(runs[l])
        md.append(f"| {l:.2f} | " + " | ".join(f"{bp[p]['utilization']:.3f} / {bp[p]['mean_queue_length']:.1f}"
                                                 for p in pols) + " |")
    md.append("")


def summary(md, runs_by_trace):
    md.append("## Summary\n")
    md.append("Counts of loads where the 90% CI of EASY minus the policy lies wholly above 0 (policy better), "
              "wholly below 0 (EASY better), or includes 0, for mean bounded slowdown:\n")
    md.append("| trace | policy | better | worse | undecided | mean difference over loads |")
    md.append("|---|---|---|---|---|---|")
    for trace, runs in runs_by_trace.items():
        for p in policies_of(runs)[1:]:
            better = worse = undecided = 0
            total = 0.0
            for l in sorted(runs):
                d = by_policy(runs[l])[p]["vs_baseline"]["bsld"]
                total += d["mean"]
                if d["ci90_low"] > 0:
                    better += 1
                elif d["ci90_high"] < 0:
                    worse += 1
                else:
                    undecided += 1
            md.append(f"| {trace} | `{p}` | {better} | {worse} | {undecided} | {fmt(total / len(runs))} |")
    md.append("")


# Left out of the difference plots (they dwarf the others; their values are in the tables).
OFF_SCALE = {"los-basic", "los:lookahead=10"}


def gnuplot(plot_dir, name, trace, runs, title):
    loads = sorted(runs)
    pols = policies_of(runs)
    dat = os.path.join(plot_dir, f"{name}.dat")
    with open(dat, "w") as f:
        f.write("# load " + " ".join(f"{p}_bsld {p}_diff {p}_lo {p}_hi" for p in pols) + "\n")
        for l in loads:
            bp = by_policy(runs[l])
            row = [f"{l:.2f}"]
            for p in pols:
                d = bp[p]["vs_baseline"]
                b = d["bsld"] if d else {"mean": 0, "ci90_low": 0, "ci90_high": 0}
                row += [f"{bp[p]['mean_bsld']:.4f}", f"{b['mean']:.4f}", f"{b['ci90_low']:.4f}", f"{b['ci90_high']:.4f}"]
            f.write(" ".join(row) + "\n")
    common = ("set terminal svg size 800,560 dynamic font 'Helvetica,12'\nset key below\nset grid\n"
              "set xlabel 'offered load'\n")
    with open(os.path.join(plot_dir, f"{name}-bsld.gp"), "w") as f:
        f.write(common + f"set output '{name}-bsld.svg'\nset title '{trace}: {title}, mean bounded slowdown (tau 10 s)'\n"
                "set ylabel 'mean bounded slowdown (log scale)'\nset logscale y\n")
        f.write("plot " + ", \\\n  ".join(f"'{name}.dat' using 1:{2 + 4 * i} with linespoints title '{p}'"
                                          for i, p in enumerate(pols)) + "\n")
    with open(os.path.join(plot_dir, f"{name}-diff-bsld.gp"), "w") as f:
        f.write(common + f"set output '{name}-diff-bsld.svg'\nset title '{trace}: EASY minus policy, bounded slowdown, 90% CI'\n"
                "set ylabel 'mean per-job difference (positive: policy better)'\nset xzeroaxis lt -1\n"
                "set offsets 0.01, 0.01, 0, 0\n")
        parts = []
        for i, p in enumerate(pols[1:], start=1):
            if p in OFF_SCALE:
                continue
            c = 2 + 4 * i
            parts.append(f"'{name}.dat' using ($1+{(i - (len(pols)) / 2) * 0.003:.4f}):{c + 1}:{c + 2}:{c + 3} "
                         f"with yerrorlines title '{p}'")
        f.write("plot " + ", \\\n  ".join(parts) + "\n")


def main():
    data_dir, plot_dir, markdown, commit, machine = sys.argv[1:6]
    variants = load_runs(data_dir, "variants")
    sweep = load_runs(data_dir, "sweep")
    if not variants:
        sys.exit(f"los_report.py: no results in {data_dir}")
    for p in glob.glob(os.path.join(plot_dir, "*.gp")) + glob.glob(os.path.join(plot_dir, "*.dat")):
        os.remove(p)
    any_run = next(iter(next(iter(variants.values())).values()))[0]
    md = ["# LOS against EASY on KTH-SP2 and SDSC-SP2", "",
          "Generated by `scripts/results/los.sh` (do not edit by hand; the discussion at the end comes from "
          "`scripts/results/los_discussion.md`).", "",
          f"- commit `{commit}`, machine: {machine}",
          "- simulator: `los-sim --check --load L --policy easy,... --format json TRACE` (every run passed the invariant checker)",
          f"- jobs killed at their estimate; bounded slowdown with tau = {any_run['bsld_tau_s']:.0f} s; "
          "confidence intervals: 20 batch means of the per-job paired differences (common random numbers), 90%",
          "- load: inter-arrival times scaled so that the offered load sum(size x runtime) / (units x span) is L",
          "- EASY and LOS use the same reservation rule: the head's extra units count every job that ends at its "
          "shadow time (the profile). LOS default `head=loop`: heads start while they fit, as in EASY.",
          ""]
    for trace in sorted(variants):
        r0 = next(iter(variants[trace].values()))[0]
        md.append(f"- {trace}: `{os.path.basename(r0['workload'])}`, {r0['units']} units, {r0['jobs']} jobs "
                  f"({r0['dropped']} dropped by cleaning), thesis EASY - LOS at 0.9: {THESIS.get(trace, '-')}")
    md.append("")
    summary(md, variants)
    md.append("## EASY against each LOS variant (C = 50)\n")
    for trace in sorted(variants):
        name = f"{trace}-variants"
        gnuplot(plot_dir, name, trace, variants[trace], "variants")
        section(md, trace, variants[trace], "variants", f"los/{name}")
    if sweep:
        md.append("## Lookahead sweep (`los`, C in {10, 25, 50, 100, 250})\n")
        summary(md, sweep)
        for trace in sorted(sweep):
            name = f"{trace}-lookahead"
            gnuplot(plot_dir, name, trace, sweep[trace], "lookahead")
            section(md, trace, sweep[trace], "lookahead sweep", f"los/{name}")
    discussion = os.path.join(os.path.dirname(os.path.abspath(__file__)), "los_discussion.md")
    if os.path.exists(discussion):
        with open(discussion) as f:
            md.append(f.read())
    with open(markdown, "w") as f:
        f.write("\n".join(md) + "\n")


if __name__ == "__main__":
    main()
