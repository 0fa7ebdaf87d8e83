#!/usr/bin/env python3
"""Builds docs/results/los.md and gnuplot scripts from los-sim JSON output.

Usage: los_report.py DATA_DIR PLOT_DIR MARKDOWN COMMIT MACHINE
       los_report.py decompose OUT.json BASELINE.swf OTHER.swf...
DATA_DIR holds TRACE-{variants,sweep}-LOAD.json, cancelled/TRACE-{drop,keep}-LOAD.json,
ablation/NAME@LOAD.json, decomposition.json, longqueue/ and heldout/ (scripts/results/los-issue14.sh's
replicated grids), written by scripts/results/los.sh.
The hand-written discussion comes from scripts/results/los_discussion.md.
"""
import collections
import glob
import json
import os
import subprocess
import sys

THESIS = {  # EASY - LOS (C = 50, no merit, Bypassed-First) differential BSLD at load 0.9, thesis §4.2
    "SDSC-SP2": "about 65 (Fig. 4.3(b))",
    "KTH-SP2": "positive, value not in the text (Fig. 4.3(c))",
}


def read_runs(f):
    """A los-sim JSON array, each policy named as on this page: the thesis's
    algorithm is spelled `los:design=thesis` since issue 14 made the hybrid the
    default, and this page (but its long-queue section) is about the thesis, so
    `:design=thesis` is left out of the names."""
    runs = json.load(f)
    for r in runs:
        r["policy"] = r["policy"].replace(":design=thesis", "")
    return runs


def load_runs(data_dir, kind):
    runs = {}
    for path in sorted(glob.glob(os.path.join(data_dir, f"*-{kind}-*.json"))):
        base = os.path.basename(path)[: -len(".json")]
        trace, _, load = base.rpartition(f"-{kind}-")
        with open(path) as f:
            runs.setdefault(trace, {})[float(load)] = read_runs(f)
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


def cancelled_section(md, data_dir):
    """Every metric with cancelled-before-start records dropped and kept."""
    runs = collections.defaultdict(dict)  # trace -> (load, mode) -> run
    for path in glob.glob(os.path.join(data_dir, "cancelled", "*.json")):
        trace, mode, load = os.path.basename(path)[: -len(".json")].rsplit("-", 2)
        with open(path) as f:
            runs[trace][(load, mode)] = read_runs(f)
    if not runs:
        return
    md.append("## Records cancelled before they ran: dropped (default) or kept\n")
    md.append("A record with run time −1 and status 5 was cancelled while it waited: it never ran. By default "
              "los-sim drops it (counted); `--keep-cancelled` keeps it as a zero-length job that waits until the "
              "simulated scheduler starts it, the reading of earlier versions of this page. "
              "docs/simulator.md gives the reasons for the default. Every metric both ways, `easy` / `los`, "
              "at the trace's own load and at 0.5, 0.7, 0.9 (`los-sim --quiet --policy easy,los [--load L] "
              "[--keep-cancelled] TRACE`):\n")
    order = lambda k: (k[0] != "own", k[0], k[1])
    cols = [("mean wait (s)", "mean_wait_s", 0), ("p90 wait (s)", "p90_wait_s", 0),
            ("max wait (s)", "max_wait_s", 0), ("mean response (s)", "mean_response_s", 0),
            ("mean slowdown", "mean_slowdown", 1), ("mean bsld", "mean_bsld", 1), ("utilization", "utilization", 3),
            ("loss of capacity", "loss_of_capacity", 3), ("fairness F", "fairness_F", 0),
            ("mean NUWT", "mean_nuwt", 2), ("mean queue", "mean_queue_length", 1)]
    for trace in sorted(runs):
        md.append(f"### {trace}\n")
        md.append("| load | cancelled | jobs (dropped) | " + " | ".join(c[0] for c in cols) + " |")
        md.append("|---|---|---|" + "---|" * len(cols))
        for key in sorted(runs[trace], key=order):
            easy, los = runs[trace][key]
            load = "own ({:.3f})".format(easy["offered_load"]) if key[0] == "own" else key[0]
            md.append(f"| {load} | {'dropped' if key[1] == 'drop' else 'kept'} | {easy['jobs']} ({easy['dropped']}) | " +
                      " | ".join(f"{fmt(easy[c], d)} / {fmt(los[c], d)}" for _, c, d in cols) + " |")
        md.append("")
        md.append("EASY minus LOS, per job [90% CI]:\n")
        md.append("| load | cancelled | wait (s) | response (s) | bounded slowdown |")
        md.append("|---|---|---|---|---|")
        for key in sorted(runs[trace], key=order):
            v = runs[trace][key][1]["vs_baseline"]
            md.append(f"| {key[0]} | {'dropped' if key[1] == 'drop' else 'kept'} | {diff_cell(v['wait_s'])} | "
                      f"{diff_cell(v['response_s'])} | {diff_cell(v['bsld'])} |")
        md.append("")


ABLATION = [  # name, what changes, from the default (cleaned trace, kill at estimate, trace estimates, los C = 50)
    ("cleaned", "none: the default (`easy,los`, records cancelled before they ran dropped)"),
    ("archived", "the trace as archived: cancelled-before-start records kept as zero-length jobs (`--keep-cancelled`)"),
    ("no-kill", "jobs run past their estimate (`--no-kill`)"),
    ("perfect-estimates", "perfect estimates (`--perfect-estimates`)"),
    ("no-extra", "no extra units: only jobs ending by the shadow time may start (`los-basic`)"),
    ("extra-thesis", "the thesis's extra-units formula: jobs ending at the shadow time count only until the head "
                     "fits (`extra=thesis`)"),
    ("head-once", "`head=once` (the thesis's single head start) instead of `loop`"),
    ("lookahead-10", "lookahead C = 10"),
    ("lookahead-25", "lookahead C = 25"),
    ("lookahead-100", "lookahead C = 100"),
    ("lookahead-250", "lookahead C = 250"),
    ("rest-easy", "`rest=easy`: jobs past the window backfilled as EASY does"),
    ("runtime-scale", "load made by scaling run times and estimates (`--runtime-scale L / native load`) instead of "
                      "inter-arrival times"),
]


def load_ablation(data_dir):
    out = collections.defaultdict(dict)  # name -> load -> run
    for path in glob.glob(os.path.join(data_dir, "ablation", "*.json")):
        name, _, load = os.path.basename(path)[: -len(".json")].rpartition("@")
        with open(path) as f:
            out[name][float(load)] = read_runs(f)
    return out


def ablation_section(md, data_dir, variants):
    abl = load_ablation(data_dir)
    if not abl:
        return
    loads = sorted(abl["cleaned"])
    md.append("## SDSC-SP2: the gap to the thesis, by ablation\n")
    md.append("Each row changes one thing from the first: EASY minus LOS in mean bounded slowdown per job [90% CI] "
              "(`los-sim --quiet --check --load L --policy easy,los[:params] [options] SDSC-SP2`; positive: LOS "
              "better; **bold** / *italic*: the whole interval above / below 0), and EASY's mean bounded slowdown "
              "and mean queue length at the highest load. The thesis: positive at every load, about 65 at 0.9.\n")
    md.append("| change | " + " | ".join(f"{l:.1f}" for l in loads) +
              f" | EASY bsld / queue at {loads[-1]:.1f} |")
    md.append("|---|" + "---|" * (len(loads) + 1))
    for name, what in ABLATION:
        if name not in abl:
            continue
        r = abl[name]
        top = r[loads[-1]][0]
        md.append(f"| {what} | " + " | ".join(diff_cell(r[l][1]["vs_baseline"]["bsld"]) for l in loads) +
                  f" | {fmt(top['mean_bsld'])} / {fmt(top['mean_queue_length'])} |")
    md.append("")
    # The variant ranking at the highest load, under the settings that move it.
    top = loads[-1]
    settings = [("default (cleaned)", by_policy(variants["SDSC-SP2"][top]) if top in variants.get("SDSC-SP2", {})
                 else None, ""),
                ("as archived (`--keep-cancelled`)", by_policy(abl["variants-archived"][top]), ""),
                ("perfect estimates", by_policy(abl["variants-perfect"][top]), ""),
                ("`rest=easy` on every variant", by_policy(abl["variants-rest-easy"][top]), ":rest=easy")]
    names = [("`los`", "los"), ("selected-first", "los:traceback=selected-first"),
             ("maxjobs", "los-maxjobs"), ("maxsd", "los-maxsd")]

    def policy_key(base, suffix):
        if not suffix:
            return base
        name, _, params = base.partition(":")
        keys = sorted([p for p in params.split(":") if p] + [suffix.strip(":")])
        return ":".join([name] + keys)

    md.append(f"The variant ranking at {top:.1f} (thesis §4.3 at 0.9: selected-first ahead of bypassed-first by about "
              "16, Maxjobs and Max-Slowdown ahead of no merit), EASY minus each variant in mean bounded slowdown:\n")
    md.append("| setting | " + " | ".join(n for n, _ in names) + " |")
    md.append("|---|" + "---|" * len(names))
    for label, bp, suffix in settings:
        if bp is None:
            continue
        md.append(f"| {label} | " + " | ".join(diff_cell(bp[policy_key(p, suffix)]["vs_baseline"]["bsld"])
                                               if policy_key(p, suffix) in bp else "-" for _, p in names) + " |")
    md.append("")
    dec_path = os.path.join(data_dir, "decomposition.json")
    if os.path.exists(dec_path):
        with open(dec_path) as f:
            dec = json.load(f)
        md.append("Where the differences come from: SDSC-SP2 at 0.9, EASY minus the policy in bounded slowdown, "
                  "summed per job class and divided by all jobs (so the rows add up to the mean difference). Classes: "
                  "run time 0 (as archived these include the kept cancelled records), short (< 10 min) or long, "
                  "width in units, and whether the estimate is at least 5 times the run time:\n")
        runs = list(dec)
        classes = sorted({c for r in runs for c in dec[r]["classes"]},
                         key=lambda c: min(dec[r]["classes"].get(c, {"sum": 0})["sum"] for r in runs))
        md.append("| class | " + " | ".join(f"{r} (jobs)" for r in runs) + " |")
        md.append("|---|" + "---|" * len(runs))
        for c in classes:
            cells = []
            for r in runs:
                x = dec[r]["classes"].get(c)
                cells.append(f"{fmt(x['sum'])} ({x['jobs']})" if x else "-")
            md.append(f"| {c} | " + " | ".join(cells) + " |")
        md.append("| **total** | " + " | ".join(fmt(dec[r]["total"]) for r in runs) + " |")
        md.append("")
        md.append("Mean wait (s), EASY / the policy, of the jobs with run time 0 and of the others:\n")
        md.append("| jobs | " + " | ".join(runs) + " |")
        md.append("|---|" + "---|" * len(runs))
        for g in ("run time 0", "run time > 0"):
            cells = []
            for r in runs:
                x = dec[r]["mean_wait"].get(g)
                cells.append(f"{fmt(x['baseline'], 0)} / {fmt(x['policy'], 0)} ({x['jobs']} jobs)" if x else "-")
            md.append(f"| {g} | " + " | ".join(cells) + " |")
        md.append("")


def queue_statement(md, variants):
    """Which runs have a mean queue above 50 (the thesis's lookahead C), from the data."""
    long_queues = []
    for trace in sorted(variants):
        for load in sorted(variants[trace]):
            q = {r["policy"]: r["mean_queue_length"] for r in variants[trace][load]}
            if max(q["easy"], q["los"]) > 50:
                long_queues.append(f"{trace} at {load:.2f} (EASY {q['easy']:.1f}, `los` {q['los']:.1f})")
    md.append("**Mean queue longer than C = 50** (the thesis's lookahead; mean over scheduling steps, EASY or `los`), "
              "from the tables above: " + ("; ".join(long_queues) if long_queues else "none") + ".\n")


def job_class(run, size, estimate):
    if run == 0:
        return "run time 0"
    cls = ("short" if run < 600 else "long") + (" >32 units" if size > 32 else (" 9-32 units" if size > 8 else " ≤8 units"))
    return cls + (", estimate ≥ 5× run" if estimate >= 5 * max(run, 1) else ", estimate < 5× run")


def decompose(out_path, baseline, others, tau=10.0):
    """Per-class sums of per-job bounded-slowdown differences from los-sim --schedule-out files."""
    def read(path):
        jobs = {}
        with open(path) as f:
            for line in f:
                if line.startswith(";") or not line.strip():
                    continue
                x = line.split()
                jobs[int(x[0])] = (int(x[2]), int(x[3]), int(x[4]), int(x[8]))  # wait, run, size, estimate
        return jobs

    def bsld(wait, run):
        return max(1.0, (wait + run) / max(run, tau))

    base = read(baseline)
    result = json.load(open(out_path)) if os.path.exists(out_path) else {}
    for label, path in others:
        other = read(path)
        classes = collections.defaultdict(lambda: {"sum": 0.0, "jobs": 0})
        for job, (wait, run, size, estimate) in base.items():
            c = classes[job_class(run, size, estimate)]
            c["sum"] += (bsld(wait, run) - bsld(other[job][0], run)) / len(base)
            c["jobs"] += 1
        waits = collections.defaultdict(lambda: [0.0, 0.0, 0])  # group -> [baseline, other, jobs]
        for job, (wait, run, _, _) in base.items():
            g = waits["run time 0" if run == 0 else "run time > 0"]
            g[0] += wait
            g[1] += other[job][0]
            g[2] += 1
        result[label] = {"total": sum(c["sum"] for c in classes.values()), "classes": classes,
                         "mean_wait": {k: {"baseline": v[0] / v[2], "policy": v[1] / v[2], "jobs": v[2]}
                                       for k, v in waits.items()}}
    with open(out_path, "w") as f:
        json.dump(result, f, indent=1)


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


def long_queue_section(md, data_dir):
    """EASY against the hybrid LOS and the thesis's on long-queue workloads (issue 14)."""
    longq = os.path.join(data_dir, "longqueue")
    if not glob.glob(os.path.join(longq, "*.json")):
        return
    here = os.path.dirname(os.path.abspath(__file__))

    def report(directory, versus):
        return subprocess.run([sys.executable, os.path.join(here, "los_issue14_report.py"), directory],
                              capture_output=True, text=True, check=True, env=dict(os.environ, VERSUS=versus)).stdout

    def replicated_part(text):  # the tables across replicates, not the single runs'
        return text[text.index("across replicates"):]

    md.append("## Long queues: the hybrid design against EASY and the thesis (issue 14)\n")
    md.append("`los` is the hybrid design (docs/los.md, \"The hybrid design\"): while the ended jobs ran less "
              "than 0.9 of their estimates on average, on a queue longer than the window EASY's step whose ties the "
              "selection re-decides by expected slowdown, the thesis's selection on a shorter one; while they ran "
              "their estimates, the thesis's selection on every step (`rules=long-inexact`; `los:rules=long` is the "
              "first rule alone); in both, EASY over the jobs past the window (`rest=easy`). "
              "`los:design=thesis` is the thesis's algorithm (everywhere else on this page `los`). "
              "Every workload runs ten times, each a replicate with its submit times jittered "
              "(`los-sim --jitter 60 --jitter-seed N`, N = 1 … 10; docs/simulator.md, \"Replicates\"); a cell is "
              "the mean over the replicates of EASY − policy mean bounded slowdown with a 90 % Student-t interval "
              "over them (**bold**: the policy is better, *italic*: worse). Workloads: "
              "`model:lublin:jobs=100000:nodes=N:seed=S[:estimates=modal]` (N = 1,024 and 8,192 units, seeds 1–3, "
              "exact and modal user estimates), `model:cirne:jobs=100000:nodes=N:seed=S` (a second model, held out "
              "from the design work), at offered loads 0.85, 0.9 and 0.95, and every shared trace at 0.5 … 0.95 "
              "(`scripts/results/los-issue14.sh lublin|cirne|traces` with `REPLICATES`). The rows named by a "
              "parameter are the hybrid with one part changed, the ablation of its parts.\n")
    md.append(replicated_part(report(longq, "los:design=thesis")))
    heldout = os.path.join(data_dir, "heldout")
    if glob.glob(os.path.join(heldout, "*.json")):
        md.append("\n### Held out: Lublin seeds 4–6\n")
        md.append("The same comparison on the Lublin workloads with seeds 4–6, which the design work never ran "
                  "(`SEEDS=\"4 5 6\" scripts/results/los-issue14.sh lublin`):\n")
        md.append(replicated_part(report(heldout, "los:design=thesis")))


def main():
    if sys.argv[1] == "decompose":
        out, baseline, rest = sys.argv[2], sys.argv[3], sys.argv[4:]
        decompose(out, baseline, [(rest[i], rest[i + 1]) for i in range(0, len(rest), 2)])
        return
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
          "- trace cleaning as docs/simulator.md describes; records cancelled before they ran (run time -1, status 5) "
          "are dropped; the section on them below has every metric with them kept as well",
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
    queue_statement(md, variants)
    if sweep:
        md.append("## Lookahead sweep (`los`, C in {10, 25, 50, 100, 250})\n")
        summary(md, sweep)
        for trace in sorted(sweep):
            name = f"{trace}-lookahead"
            gnuplot(plot_dir, name, trace, sweep[trace], "lookahead")
            section(md, trace, sweep[trace], "lookahead sweep", f"los/{name}")
    cancelled_section(md, data_dir)
    ablation_section(md, data_dir, variants)
    long_queue_section(md, data_dir)
    discussion = os.path.join(os.path.dirname(os.path.abspath(__file__)), "los_discussion.md")
    if os.path.exists(discussion):
        with open(discussion) as f:
            md.append(f.read())
    with open(markdown, "w") as f:
        f.write("\n".join(md) + "\n")


if __name__ == "__main__":
    main()
