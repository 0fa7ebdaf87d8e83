#!/usr/bin/env python3
"""Builds docs/results/fairness-tabu.md and gnuplot scripts from los-sim output.

Usage: fairness_tabu_report.py DATA_DIR PLOT_DIR MARKDOWN COMMIT MACHINE SKIP WINDOW
DATA_DIR holds TRACE-EST-POLICY.json (los-sim --format json) and .csv
(los-sim --user-stats) written by scripts/results/fairness-tabu.sh; EST is
"perfect" (estimate := run time) or "trace" (the trace's own estimates).
The hand-written discussion comes from scripts/results/fairness_tabu_discussion.md.
"""
import csv
import datetime
import json
import math
import os
import sys

TRACES = ["SDSC-SP2", "KTH-SP2", "HPC2N", "SDSC-BLUE"]
POLICIES = ["fcfs", "aggressive", "easy", "conservative", "bf-fair", "tabu", "tabu:safe"]
PAPER_NAME = {"fcfs": "FCFS", "aggressive": "BF", "easy": "BF-EASY", "conservative": "BF-CONS",
              "bf-fair": "BF-FAIR", "tabu": "TS", "tabu:safe": "TS, safe (not in the paper)"}
CDF_CUT = 10.0


ABORT = ["tabu:abort", "tabu:abort:eval-cost=0.1"]


def file_name(trace, est, policy):
    return f"{trace}-{est}-{policy.replace(':', '_').replace('=', '_')}"


def load(data_dir, trace, est, policy):
    base = os.path.join(data_dir, file_name(trace, est, policy))
    if not os.path.exists(base + ".json"):
        return None
    with open(base + ".json") as f:
        summary = json.load(f)[0]
    users = []
    with open(base + ".csv") as f:
        for row in csv.DictReader(f):
            users.append((int(row["jobs"]), float(row["nuwt"])))
    # The paper's fairness figures leave out users who submitted one job.
    nuwt = sorted(n for jobs, n in users if jobs >= 2)
    mean = sum(nuwt) / len(nuwt) if nuwt else 0.0
    std = math.sqrt(sum((x - mean) ** 2 for x in nuwt) / len(nuwt)) if nuwt else 0.0
    return {"s": summary, "nuwt": nuwt, "nuwt_mean": mean, "nuwt_std": std, "users": len(users)}


def fmt(x, digits=0):
    return f"{x:,.{digits}f}"


def table(runs, policies):
    lines = ["| policy | paper | mean wait (s) | mean response (s) | mean BSD (τ = 1 s) | max wait (s) | "
             "mean NUWT | std NUWT | users ≥ 2 jobs | F (all users) | sim. time (s) |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for p in policies:
        r = runs.get(p)
        if r is None:
            lines.append(f"| {p} | {PAPER_NAME.get(p, '')} | missing |  |  |  |  |  |  |  |  |")
            continue
        s = r["s"]
        lines.append(f"| {p} | {PAPER_NAME.get(p, '')} | {fmt(s['mean_wait_s'])} | {fmt(s['mean_response_s'])} | "
                     f"{fmt(s['mean_bsld'], 2)} | {fmt(s['max_wait_s'])} | {fmt(r['nuwt_mean'], 3)} | "
                     f"{fmt(r['nuwt_std'], 3)} | {len(r['nuwt'])} | {fmt(s['fairness_F'], 1)} | {fmt(s['wall_s'], 1)} |")
    return lines


def yes(b):
    return "yes" if b else "**no**"


def claims(trace, runs):
    """The paper's ordinal claims (spec section 7) checked on one trace."""
    need = ["fcfs", "aggressive", "easy", "conservative", "bf-fair", "tabu"]
    if any(runs.get(p) is None for p in need):
        return ["(runs missing)"]
    m = {p: runs[p]["s"] for p in need}
    wt = {p: m[p]["mean_wait_s"] for p in need}
    rt = {p: m[p]["mean_response_s"] for p in need}
    bsd = {p: m[p]["mean_bsld"] for p in need}
    nm = {p: runs[p]["nuwt_mean"] for p in need}
    ns = {p: runs[p]["nuwt_std"] for p in need}
    bfs = ["aggressive", "easy", "bf-fair"]
    out = [
        f"| TS better than BF-CONS in wait, response and BSD | {yes(wt['tabu'] < wt['conservative'] and rt['tabu'] < rt['conservative'] and bsd['tabu'] < bsd['conservative'])} | "
        f"wait {fmt(wt['tabu'])} vs {fmt(wt['conservative'])}, BSD {fmt(bsd['tabu'], 2)} vs {fmt(bsd['conservative'], 2)} |",
        f"| TS best of all in wait (and so response) | {yes(all(wt['tabu'] <= wt[p] for p in need))} | "
        f"best other: {min((p for p in need if p != 'tabu'), key=lambda p: wt[p])} {fmt(min(wt[p] for p in need if p != 'tabu'))} |",
        f"| TS best of all in BSD | {yes(all(bsd['tabu'] <= bsd[p] for p in need))} | "
        f"best other: {min((p for p in need if p != 'tabu'), key=lambda p: bsd[p])} {fmt(min(bsd[p] for p in need if p != 'tabu'), 2)} |",
        f"| FCFS worst in wait | {yes(all(wt['fcfs'] >= wt[p] for p in need))} | FCFS {fmt(wt['fcfs'])} |",
        f"| BF or BF-EASY better than BF-CONS in wait | {yes(min(wt['aggressive'], wt['easy']) < wt['conservative'])} | "
        f"BF {fmt(wt['aggressive'])}, BF-EASY {fmt(wt['easy'])}, BF-CONS {fmt(wt['conservative'])} |",
        f"| BF-CONS BSD at most BF's and BF-EASY's | {yes(bsd['conservative'] <= min(bsd['aggressive'], bsd['easy']))} | "
        f"BF {fmt(bsd['aggressive'], 2)}, BF-EASY {fmt(bsd['easy'], 2)}, BF-CONS {fmt(bsd['conservative'], 2)} |",
        f"| BF-FAIR fairer than BF, BF-EASY, BF-CONS (mean and std NUWT) | "
        f"{yes(all(nm['bf-fair'] < nm[p] and ns['bf-fair'] < ns[p] for p in ['aggressive', 'easy', 'conservative']))} | "
        f"mean {fmt(nm['bf-fair'], 3)} vs {', '.join(fmt(nm[p], 3) for p in ['aggressive', 'easy', 'conservative'])} |",
        f"| TS at least as fair as BF-FAIR (mean and std NUWT) | {yes(nm['tabu'] <= nm['bf-fair'] and ns['tabu'] <= ns['bf-fair'])} | "
        f"mean {fmt(nm['tabu'], 3)} vs {fmt(nm['bf-fair'], 3)}, std {fmt(ns['tabu'], 3)} vs {fmt(ns['bf-fair'], 3)} |",
        f"| TS fairer than BF-CONS (mean and std NUWT) | {yes(nm['tabu'] < nm['conservative'] and ns['tabu'] < ns['conservative'])} | "
        f"mean {fmt(nm['tabu'], 3)} vs {fmt(nm['conservative'], 3)}, std {fmt(ns['tabu'], 3)} vs {fmt(ns['conservative'], 3)} |",
    ]
    if trace == "SDSC-SP2":
        others = [wt["aggressive"], wt["easy"]]
        out.append(f"| SDSC-SP2: BF-FAIR wait noticeably worse than BF and BF-EASY | {yes(wt['bf-fair'] > max(others))} | "
                   f"BF-FAIR {fmt(wt['bf-fair'])} vs {fmt(wt['aggressive'])}, {fmt(wt['easy'])} |")
    return out


def cdf_plot(plot_dir, trace, runs):
    dat = f"{trace}-nuwt-cdf.dat"
    with open(os.path.join(plot_dir, dat), "w") as f:
        f.write(f"# NUWT CDF, users with >= 2 jobs, {trace}, perfect estimates; one block per policy\n")
        for p in POLICIES:
            r = runs.get(p)
            if r is None:
                continue
            f.write(f"# {p}\n")
            n = len(r["nuwt"])
            f.write(f"0 {sum(1 for x in r['nuwt'] if x <= 0) / n:.6f}\n")
            for i, x in enumerate(r["nuwt"]):
                if x > CDF_CUT:
                    break
                f.write(f"{x:.6g} {(i + 1) / n:.6f}\n")
            f.write(f"{CDF_CUT} {sum(1 for x in r['nuwt'] if x <= CDF_CUT) / n:.6f}\n\n\n")
    present = [p for p in POLICIES if runs.get(p) is not None]
    # tabu:safe often coincides with conservative: dashed, so both show.
    plots = ", ".join(f"'{dat}' index {i} with steps lw 2 {'dt 2 ' if p == 'tabu:safe' else ''}title '{p}'"
                      for i, p in enumerate(present))
    with open(os.path.join(plot_dir, f"{trace}-nuwt-cdf.gp"), "w") as f:
        f.write(f"""set terminal svg size 860,480 dynamic font 'sans,12'
set output '{trace}-nuwt-cdf.svg'
set title '{trace}: per-user normalized wait (users with >= 2 jobs), perfect estimates'
set xlabel 'NUWT (total wait / total run time x size)'
set ylabel 'fraction of users with NUWT <= x'
set xrange [0:{CDF_CUT}]
set yrange [0:1]
set key outside right top
set grid
plot {plots}
""")


def main():
    data_dir, plot_dir, md_path, commit, machine, skip, window = sys.argv[1:8]
    if int(window) == 0:
        scope = "whole traces" if int(skip) == 0 else f"each trace after its first {int(skip):,} jobs"
    else:
        scope = f"the first {int(window):,} jobs of each trace" if int(skip) == 0 else \
            f"{int(window):,} jobs of each trace after the first {int(skip):,}"
    perfect = {t: {p: load(data_dir, t, "perfect", p) for p in POLICIES + ABORT} for t in TRACES}
    trace_est = {t: {p: load(data_dir, t, "trace", p) for p in ["conservative", "tabu", "tabu:safe"]}
                 for t in ["SDSC-SP2", "KTH-SP2"]}
    discussion_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fairness_tabu_discussion.md")
    discussion = open(discussion_path).read() if os.path.exists(discussion_path) else ""

    md = ["# Fairness and tabu search: the fairness paper's comparison",
          "",
          "Generated by `scripts/results/fairness-tabu.sh` (do not edit by hand; the discussion comes from "
          "`scripts/results/fairness_tabu_discussion.md`).",
          f"Commit `{commit}`, {datetime.date.today().isoformat()}, {machine}.",
          "",
          f"Setup, as in the paper (Klusáček & Rudová; spec `../shared/specs/fairness-tabu.md`): "
          f"{scope}{'' if scope == 'whole traces' else ' (the paper simulates whole traces)'} "
          f"(cleaned as `docs/simulator.md` says, but records cancelled before they ran kept as zero-length jobs: `--keep-cancelled`), perfect estimates (`--perfect-estimates`: estimate := run time), "
          "bounded slowdown with τ = 1 s (`--bsld-tau 1`), one run per policy and trace, every run under the "
          "invariant checker (`--check`). `tabu` runs with its defaults: a search every 300 s of simulated time, "
          "2 × (waiting jobs) iterations, tabu list of 10, seed 1, weights 1, F as in the paper. "
          "NUWT = total wait / total (run time × size) per user; the NUWT mean, standard deviation (population) "
          "and CDF leave out users with a single job, as the paper does; F is over all users.",
          ""]
    for t in TRACES:
        runs = perfect[t]
        any_run = next((r for r in runs.values() if r is not None), None)
        head = f"{any_run['s']['jobs']:,} jobs, {any_run['s']['units']} processors, offered load {any_run['s']['offered_load']:.2f}" if any_run else "no runs"
        md += [f"## {t} ({head})", ""]
        md += table(runs, POLICIES)
        md += ["", f"![NUWT CDF on {t}](fairness-tabu/{t}-nuwt-cdf.svg)", ""]
        md += ["The paper's claims on this trace:", "", "| claim | holds here | figures |", "|---|---|---|"]
        md += claims(t, runs)
        md += [""]
        cdf_plot(plot_dir, t, runs)

    md += ["## What safe mode costs", "",
           "`tabu:safe` rejects any move that would start the moved job later than its first reservation. "
           "With perfect estimates the conservative plan has no slack, so almost every improving move delays "
           "someone; with the traces' own estimates jobs end early and compression opens room that the search "
           "can fill without breaking a promise. Wait, response and BSD:", "",
           "| trace | estimates | conservative | tabu | tabu:safe | safe keeps of tabu's wait gain |",
           "|---|---|---|---|---|---:|"]
    for t, est, runs in [(t, "perfect", perfect[t]) for t in TRACES] + [(t, "trace", trace_est[t]) for t in trace_est]:
        c, s, u = runs.get("conservative"), runs.get("tabu"), runs.get("tabu:safe")
        if not (c and s and u):
            continue
        cell = lambda r: f"{fmt(r['s']['mean_wait_s'])} / {fmt(r['s']['mean_response_s'])} / {fmt(r['s']['mean_bsld'], 2)}"
        gain = c["s"]["mean_wait_s"] - s["s"]["mean_wait_s"]
        if gain > 0:
            kept = (c["s"]["mean_wait_s"] - u["s"]["mean_wait_s"]) / gain * 100
            kept_cell = f"{kept:.1f} %"
        else:
            kept_cell = "— (tabu waits longer than conservative)"
        md.append(f"| {t} | {est} | {cell(c)} | {cell(s)} | {cell(u)} | {kept_cell} |")
    md += ["", "Simulation times (wall clock, shared machine) are in the tables above (`sim. time`).", ""]
    md += ["## The paper's abort rule", "",
           "The paper stops a search as soon as a job arrives or ends (spec 4.1). `tabu:abort` models it in "
           "simulated time (docs/policies.md): each search iteration costs `eval-cost` simulated seconds "
           "(default 0.01 s), a search is capped by `time-limit` (2 s, now simulated), an arrival or end before "
           "it is done stops it with the iterations that fitted, and its result takes effect when it ends or is "
           "stopped (whole seconds, at least 1 s after it began). `tabu` (the default) searches in zero simulated "
           "time with its whole budget of 2 × (waiting jobs) iterations. Perfect estimates; "
           "wait and max wait in seconds, NUWT over users with ≥ 2 jobs:", "",
           "| trace | policy | mean wait | max wait | mean BSD | mean NUWT | std NUWT | F (all users) |",
           "|---|---|---:|---:|---:|---:|---:|---:|"]
    for t in TRACES:
        for p in ["tabu"] + ABORT + ["bf-fair"]:
            r = perfect[t].get(p)
            if r is None:
                md.append(f"| {t} | {p} | missing |  |  |  |  |  |")
                continue
            s = r["s"]
            md.append(f"| {t} | {p} | {fmt(s['mean_wait_s'])} | {fmt(s['max_wait_s'])} | {fmt(s['mean_bsld'], 2)} | "
                      f"{fmt(r['nuwt_mean'], 3)} | {fmt(r['nuwt_std'], 3)} | {fmt(s['fairness_F'], 1)} |")
    md += [""]
    if discussion:
        md += [discussion.rstrip(), ""]
    with open(md_path, "w") as f:
        f.write("\n".join(md))


if __name__ == "__main__":
    main()
