#!/usr/bin/env python3
"""Builds docs/results/gang-migration.md from the los-sim JSON of
scripts/results/gang-migration.sh (one file w<k>.json per workload k, and for
Fig. 6 the simulated schedules w<k>.swf). `--self-test` runs the report's own checks."""
import json
import math
import platform
import subprocess
import sys
from datetime import datetime, timezone
from fractions import Fraction
from pathlib import Path

SLOWDOWN_LIMIT = 20.0
FACTORS = [round(1 + 0.1 * k, 1) for k in range(9)]

# The paper's Table 1 (MPL 5, migration cost 0, Q unlimited): rho, s per workload.
PAPER_T1 = {
    "bgs": [(0.55, 2.5), (0.61, 3.2), (0.66, 3.8), (0.72, 6.5), (0.77, 8.0), (0.83, 11.9), (0.89, 22.4), (0.94, 34.9), (0.96, 67.9)],
    "mbgs": [(0.55, 2.1), (0.61, 2.5), (0.66, 2.9), (0.72, 3.7), (0.77, 5.1), (0.83, 7.6), (0.88, 11.0), (0.94, 20.9), (0.98, 56.8)],
    "gang": [(0.55, 3.9), (0.61, 7.0), (0.66, 18.8), (0.72, 44.8), (0.78, 125.6), (0.83, 405.6), (0.86, 1738.0), (0.86, 4147.7), (0.86, 5941.5)],
    "mgs": [(0.55, 2.6), (0.61, 4.0), (0.66, 6.9), (0.72, 13.5), (0.77, 29.4), (0.83, 54.4), (0.88, 134.2), (0.94, 399.3), (0.97, 1609.9)],
}
# Table 1's printed "% s better" columns (seed ../shared/seeds/002_*, Table 1; spec §5.4), as printed: they
# come from the paper's unrounded slowdowns, so they differ from what the rounded s values above give.
PAPER_T1_BETTER = {
    "bgs": [19.2, 23.9, 24.8, 43.1, 36.6, 36.2, 50.8, 40.2, 16.4],
    "gang": [33.7, 42.5, 63.4, 69.9, 76.6, 86.6, 92.3, 90.4, 72.9],
}
# The paper's maximum utilization at slowdown <= 20 (Fig. 9(a), 0 % context switch; MBGS from §5.7).
PAPER_MAX = {"BF": "0.76", "GS-5": "0.67", "BGS-2": "0.82", "BGS-5": "0.87", "MBGS-5 (C=0)": "0.94"}


# A policy's name lists only parameters that differ from their defaults
# (docs/policies.md, "Parameter reference"); these are the gang family's.
DEFAULTS = {"mpl": "5", "cs": "0"}
MIGRATION_DEFAULTS = {"c": "10", "q": "64"}


def parse(name):
    head, *rest = name.split(":")
    params = dict(DEFAULTS) if head in ("gang", "bgs", "mgs", "mbgs") else {}
    if head in ("mgs", "mbgs"):
        params.update(MIGRATION_DEFAULTS)
    for p in rest:
        key, _, value = p.partition("=")
        params[key] = value or "true"
    return head, params


def estimate_class(run_time, estimate):
    """Fig. 6's estimate-quality class (spec §3.6): i (0..9) with run time / estimate in (i·10 %, (i+1)·10 %];
    None outside (0, 1]. Exact arithmetic (Fraction), so a ratio of exactly 10 % is class 0."""
    run_time, estimate = Fraction(run_time), Fraction(estimate)
    if run_time <= 0 or estimate <= 0 or run_time > estimate:
        return None
    return math.ceil(10 * run_time / estimate) - 1


def schedule_jobs(path):
    """(wait, run time, estimate) of every job of a los-sim --schedule-out SWF file (fields 3, 4 and 9)."""
    jobs = []
    for line in Path(path).read_text().splitlines():
        f = line.split()
        if f and not line.startswith(";"):
            jobs.append((Fraction(f[2]), Fraction(f[3]), Fraction(f[8])))
    return jobs


def bsld(wait, run_time, tau=10):
    """The bounded slowdown los-sim reports as mean_bsld: max(t_r, τ) / max(t_e, τ)."""
    return max(wait + run_time, tau) / max(run_time, tau)


def self_test():
    """Checks of the class bounds and the slowdown formula; run by gang-migration.sh before the simulations."""
    assert estimate_class(1, 10) == 0 and estimate_class(11, 100) == 1 and estimate_class(10, 100) == 0
    assert estimate_class(99, 100) == 9 and estimate_class(100, 100) == 9 and estimate_class(91, 100) == 9
    assert estimate_class(90, 100) == 8 and estimate_class(1, 100000) == 0
    assert estimate_class(0, 100) is None and estimate_class(101, 100) is None and estimate_class(5, 0) is None
    assert estimate_class("0.5", "5") == 0 and estimate_class("0.51", "5") == 1
    assert bsld(0, 5) == 1 and bsld(15, 5) == 2 and bsld(100, 100) == 2 and bsld(0, 100) == 1
    assert parse_stats("bgs:plan_factor=2:stats stats: reservations=3 compress_s=40") == \
        ("bgs:plan_factor=2:stats", {"reservations": 3, "compress_s": 40})


def load(directory):
    runs = {}  # (technique, mpl, cs, c, q) -> [metrics per workload]
    offered = [None] * 9
    for k in range(9):
        for r in json.loads((Path(directory) / f"w{k}.json").read_text()):
            head, p = parse(r["policy"])
            if p.get("plan") == "rebuild":  # plan=keep is the default and not in the name
                head += "/rebuild"
            key = (head, int(p.get("mpl", 1)), p.get("cs", "-"), p.get("c", "-"), p.get("q", "-"))
            runs.setdefault(key, [None] * 9)[k] = r
            offered[k] = r["offered_load"]
    return runs, offered


def max_util(series):
    """Utilization where the slowdown curve (in workload order) first crosses the limit, by linear interpolation."""
    pts = [(r["utilization"], r["mean_bsld"]) for r in series]
    for i, (rho, s) in enumerate(pts):
        if s > SLOWDOWN_LIMIT:
            if i == 0:
                return f"< {rho:.2f}"
            r0, s0 = pts[i - 1]
            return f"{r0 + (rho - r0) * (SLOWDOWN_LIMIT - s0) / (s - s0):.2f}"
    return f">= {pts[-1][0]:.2f} (never above {SLOWDOWN_LIMIT:g})"


def fmt_s(x):
    return f"{x:.1f}" if x < 1000 else f"{x:,.0f}"


def fmt_w(x):
    return f"{x:,.0f}"


def better(a, b):
    return 100.0 * (a - b) / a if a > 0 else 0.0


def workload_report(w, runs, offered, title, level):
    """Tables and checks for one stand-in workload; configurations not run are left out."""
    h = "#" * level
    bfk = ("conservative", 1, "-", "-", "-")
    g5, b5 = ("gang", 5, "0", "-", "-"), ("bgs", 5, "0", "-", "-")
    m5, mb5 = ("mgs", 5, "0", "0", "-1"), ("mbgs", 5, "0", "0", "-1")
    have = lambda key: key in runs and all(r is not None for r in runs[key])
    bf = runs[bfk]
    w(f"{h} {title}")
    w("")
    w("Offered loads of workloads 0..8: " + ", ".join(f"{x:.3f}" for x in offered) + ".")
    w("")

    w(f"{h}# Table 1: effect of migration (MPL 5, context switch 0 %, C = 0, Q unlimited)")
    w("")
    w("Each cell: ours (paper). s = average slowdown; % = (s without − s with) / s without; the paper's "
      "percentages are the ones Table 1 prints (computed from its unrounded slowdowns).")
    w("")
    w("| workload (run time ×) | BGS ρ | BGS s | MBGS ρ | MBGS s | % s better | GS ρ | GS s | MGS ρ | MGS s | % s better |")
    w("|---|---|---|---|---|---|---|---|---|---|---|")
    t1 = {"gang": runs[g5], "bgs": runs[b5], "mgs": runs[m5], "mbgs": runs[mb5]}
    for k, f in enumerate(FACTORS):
        cells = [f"{k} ({f:.1f})"]
        for a, b in (("bgs", "mbgs"), ("gang", "mgs")):
            ra, rb = t1[a][k], t1[b][k]
            pa, pb = PAPER_T1[a][k], PAPER_T1[b][k]
            cells += [f"{ra['utilization']:.2f} ({pa[0]:.2f})", f"{fmt_s(ra['mean_bsld'])} ({pa[1]:g})",
                      f"{rb['utilization']:.2f} ({pb[0]:.2f})", f"{fmt_s(rb['mean_bsld'])} ({pb[1]:g})",
                      f"{better(ra['mean_bsld'], rb['mean_bsld']):.1f} % ({PAPER_T1_BETTER[a][k]:.1f} %)"]
        w("| " + " | ".join(cells) + " |")
    w("")
    w("Average wait (s) and loss of capacity κ in the same runs, with BF for reference:")
    w("")
    w("| workload | BF wait | GS wait | BGS wait | MGS wait | MBGS wait | BF κ | GS κ | BGS κ | MGS κ | MBGS κ |")
    w("|---|---|---|---|---|---|---|---|---|---|---|")
    for k, f in enumerate(FACTORS):
        rs = [bf[k], t1["gang"][k], t1["bgs"][k], t1["mgs"][k], t1["mbgs"][k]]
        w(f"| {k} ({f:.1f}) | " + " | ".join(fmt_w(r["mean_wait_s"]) for r in rs) + " | "
          + " | ".join(f"{r['loss_of_capacity']:.3f}" for r in rs) + " |")
    w("")

    w(f"{h}# Maximum utilization at average slowdown ≤ 20")
    w("")
    w("| technique | cs 0 % | cs 1 % | cs 2 % | cs 5 % | paper (cs 0 %) |")
    w("|---|---|---|---|---|---|")
    cell = lambda key: max_util(runs[key]) if have(key) else "—"
    w(f"| BF | {max_util(bf)} | — | — | — | {PAPER_MAX['BF']} |")
    for head, name in (("gang", "GS"), ("bgs", "BGS")):
        for mpl in (2, 3, 5):
            cells = [cell((head, mpl, cs, "-", "-")) for cs in ("0", "1", "2", "5")]
            w(f"| {name}-{mpl} | " + " | ".join(cells) + f" | {PAPER_MAX.get(f'{name}-{mpl}', '—')} |")
    for head, name in (("mgs", "MGS"), ("mbgs", "MBGS")):
        for c, q in (("0", "-1"), ("10", "64")):
            key = (head, 5, "0", c, q)
            if not have(key):
                continue
            paper = PAPER_MAX.get(f"{name}-5 (C=0)", "—") if c == "0" else "—"
            w(f"| {name}-5 C={c} s Q={'inf' if q == '-1' else q} | {cell(key)} | — | — | — | {paper} |")
    w("")

    w(f"{h}# Per technique and workload: utilization ρ, average slowdown s, average wait w (s)")
    w("")
    w("BF (conservative backfilling, space sharing):")
    w("")
    w("| workload | ρ | s | w |")
    w("|---|---|---|---|")
    for k, f in enumerate(FACTORS):
        r = bf[k]
        w(f"| {k} ({f:.1f}) | {r['utilization']:.3f} | {fmt_s(r['mean_bsld'])} | {fmt_w(r['mean_wait_s'])} |")
    w("")
    for head, name in (("gang", "GS"), ("bgs", "BGS")):
        for cs in ("0", "1", "2", "5"):
            if not have((head, 2, cs, "-", "-")):
                continue
            w(f"{name}, context switch {cs} % of the slice ({int(cs) * 2} s):")
            w("")
            w("| workload | MPL 2 ρ | s | w | MPL 3 ρ | s | w | MPL 5 ρ | s | w |")
            w("|---|---|---|---|---|---|---|---|---|---|")
            for k, f in enumerate(FACTORS):
                cells = []
                for mpl in (2, 3, 5):
                    r = runs[(head, mpl, cs, "-", "-")][k]
                    cells += [f"{r['utilization']:.3f}", fmt_s(r["mean_bsld"]), fmt_w(r["mean_wait_s"])]
                w(f"| {k} ({f:.1f}) | " + " | ".join(cells) + " |")
            w("")
    mig = [(hd, c, q) for hd, c, q in (("mgs", "0", "-1"), ("mbgs", "0", "-1"), ("mgs", "10", "64"), ("mbgs", "10", "64"))
           if have((hd, 5, "0", c, q))]
    w("MGS and MBGS, MPL 5, context switch 0 %:")
    w("")
    w("| workload | " + " | ".join(f"{hd.upper()} C={c} Q={'inf' if q == '-1' else q} ρ | s | w" for hd, c, q in mig) + " |")
    w("|---|" + "---|---|---|" * len(mig))
    for k, f in enumerate(FACTORS):
        cells = []
        for hd, c, q in mig:
            r = runs[(hd, 5, "0", c, q)][k]
            cells += [f"{r['utilization']:.3f}", fmt_s(r["mean_bsld"]), fmt_w(r["mean_wait_s"])]
        w(f"| {k} ({f:.1f}) | " + " | ".join(cells) + " |")
    w("")

    plan_report(w, runs, h)

    def count(pred):
        return sum(1 for k in range(9) if pred(k))

    s = lambda key, k: runs[key][k]["mean_bsld"]
    wt = lambda key, k: runs[key][k]["mean_wait_s"]
    w(f"{h}# The paper's qualitative claims, checked on these runs")
    w("")
    w("Counts are over the 9 workloads unless stated.")
    w("")
    w(f"* Migration lowers slowdown (Table 1): MBGS < BGS in {count(lambda k: s(mb5, k) < s(b5, k))}/9, "
      f"MGS < GS in {count(lambda k: s(m5, k) < s(g5, k))}/9.")
    gains_g = [better(s(g5, k), s(m5, k)) for k in range(9)]
    gains_b = [better(s(b5, k), s(mb5, k)) for k in range(9)]
    w(f"* Migration helps GS more than BGS: GS→MGS gain larger than BGS→MBGS gain in "
      f"{sum(1 for a, b in zip(gains_g, gains_b) if a > b)}/9 (largest GS gain {max(gains_g):.0f} % at workload "
      f"{gains_g.index(max(gains_g))}, largest BGS gain {max(gains_b):.0f} % at workload {gains_b.index(max(gains_b))}).")
    w(f"* Order on slowdown MBGS < BGS < MGS < GS (MPL 5, 0 %, C = 0): holds in "
      f"{count(lambda k: s(mb5, k) < s(b5, k) < s(m5, k) < s(g5, k))}/9; on wait: "
      f"{count(lambda k: wt(mb5, k) < wt(b5, k) < wt(m5, k) < wt(g5, k))}/9.")
    css = [cs for cs in ("0", "1", "2", "5") if have(("bgs", 2, cs, "-", "-"))]
    n_bgs_gs = sum(1 for mpl in (2, 3, 5) for cs in css for k in range(9)
                   if s(("bgs", mpl, cs, "-", "-"), k) < s(("gang", mpl, cs, "-", "-"), k))
    w(f"* BGS beats GS of the same MPL and overhead on slowdown: {n_bgs_gs}/{27 * len(css)} (MPL × overhead × workload).")
    for cs in css:
        n = sum(1 for mpl in (2, 3, 5) for k in range(9) if s(("bgs", mpl, cs, "-", "-"), k) < s(bfk, k))
        w(f"* BGS beats BF on slowdown at {cs} % context switch: {n}/27 (MPL 2, 3, 5 × workload).")
    mono = count(lambda k: s(("bgs", 5, "0", "-", "-"), k) <= s(("bgs", 3, "0", "-", "-"), k) <= s(("bgs", 2, "0", "-", "-"), k))
    mono_g = count(lambda k: s(("gang", 5, "0", "-", "-"), k) <= s(("gang", 3, "0", "-", "-"), k) <= s(("gang", 2, "0", "-", "-"), k))
    w(f"* Slowdown improves monotonically with MPL at 0 %: BGS in {mono}/9, GS in {mono_g}/9.")
    w(f"* BF beats GS-2 and GS-3 on slowdown (0 %): GS-2 in {count(lambda k: s(bfk, k) < s(('gang', 2, '0', '-', '-'), k))}/9, "
      f"GS-3 in {count(lambda k: s(bfk, k) < s(('gang', 3, '0', '-', '-'), k))}/9; BF beats GS-5 in "
      f"{count(lambda k: s(bfk, k) < s(g5, k))}/9.")
    sat = {name: max(r["utilization"] for r in runs[key]) for name, key in
           (("GS-5", g5), ("BGS-5", b5), ("MGS-5", m5), ("MBGS-5", mb5), ("BF", bfk))}
    w("* Highest utilization reached (paper: GS 0.86, BGS 0.96, MGS 0.97, MBGS 0.98, BF 0.95): "
      + ", ".join(f"{k} {v:.3f}" for k, v in sat.items()) + ".")
    w("")


def plan_report(w, runs, h):
    """BGS and MBGS (MPL 5, 0 %, C = 0) with plan=keep (the policy's default) and plan=rebuild (the spec's)."""
    pairs = [(("bgs", 5, "0", "-", "-"), ("bgs/rebuild", 5, "0", "-", "-"), "BGS"),
             (("mbgs", 5, "0", "0", "-1"), ("mbgs/rebuild", 5, "0", "0", "-1"), "MBGS")]
    pairs = [p for p in pairs if p[0] in runs and p[1] in runs]
    if not pairs:
        return
    w(f"{h}# plan=keep against plan=rebuild (MPL 5, context switch 0 %, C = 0, Q unlimited)")
    w("")
    w("keep (the policy's default): reservations kept across events and compressed, as conservative backfilling "
      "does; rebuild (the spec's default): every event drops the reservations and re-plans the queue in FCFS order "
      "from the remaining estimates. s = average slowdown, w = average wait (s); Δ = rebuild − keep.")
    w("")
    w("| workload | " + " | ".join(f"{n} keep s | {n} rebuild s | Δ s | {n} keep w | {n} rebuild w" for _, _, n in pairs)
      + " |")
    w("|---|" + "---|---|---|---|---|" * len(pairs))
    for k, f in enumerate(FACTORS):
        cells = []
        for a, b, _ in pairs:
            ra, rb = runs[a][k], runs[b][k]
            cells += [fmt_s(ra["mean_bsld"]), fmt_s(rb["mean_bsld"]), f"{rb['mean_bsld'] - ra['mean_bsld']:+.1f}",
                      fmt_w(ra["mean_wait_s"]), fmt_w(rb["mean_wait_s"])]
        w(f"| {k} ({f:.1f}) | " + " | ".join(cells) + " |")
    for a, b, n in pairs:
        lower = sum(1 for k in range(9) if runs[b][k]["mean_bsld"] < runs[a][k]["mean_bsld"])
        mean_a = sum(r["mean_bsld"] for r in runs[a]) / 9
        mean_b = sum(r["mean_bsld"] for r in runs[b]) / 9
        w("")
        w(f"{n}: rebuild has the lower slowdown in {lower}/9 workloads; mean over the 9 workloads: keep "
          f"{mean_a:.1f}, rebuild {mean_b:.1f}.")
    w("")


def fig6_report(w, out_dir):
    """Fig. 6: BF at Φ = 0.2, average slowdown and wait of all jobs and of estimate-quality classes 0 and 9."""
    d = Path(out_dir) / "phi0.2-fig6"
    if not (d / "w8.swf").exists():
        return
    rows = []
    for k in range(9):
        jobs = schedule_jobs(d / f"w{k}.swf")
        result = json.loads((d / f"w{k}.json").read_text())[0]
        # The schedule must be the run the JSON describes: the same means, or the classes mean nothing.
        mean_w = sum(j[0] for j in jobs) / len(jobs)
        mean_s = sum(bsld(*j[:2]) for j in jobs) / len(jobs)
        if abs(float(mean_w) - result["mean_wait_s"]) > 1e-3 * max(1.0, result["mean_wait_s"]) \
                or abs(float(mean_s) - result["mean_bsld"]) > 1e-6 * max(1.0, result["mean_bsld"]):
            sys.exit(f"gang_migration_report.py: {d}/w{k}.swf does not match w{k}.json "
                     f"(wait {float(mean_w)} vs {result['mean_wait_s']}, slowdown {float(mean_s)} vs {result['mean_bsld']})")
        classes = {}
        for j in jobs:
            classes.setdefault(estimate_class(j[1], j[2]), []).append(j)
        stats = {"all": jobs, 0: classes.get(0, []), 9: classes.get(9, [])}
        rows.append((result, {c: (len(js), float(sum(bsld(*j[:2]) for j in js) / len(js)) if js else math.nan,
                                  float(sum(j[0] for j in js) / len(js)) if js else math.nan)
                              for c, js in stats.items()}, len(classes.get(None, []))))
    w("### Fig. 6: BF at Φ = 0.2 by estimate quality")
    w("")
    w("Conservative backfilling at Φ = 0.2, from the simulated schedules (`--schedule-out`). Class i holds the jobs "
      "with run time / estimate in (i·10 %, (i+1)·10 %] (spec §3.6): class 0 the worst estimators, class 9 the best "
      "(it includes the Φ share of exact estimates). s = average slowdown, w = average wait (s); n = jobs in the "
      "class (of 10,000). Fig. 6(b) is the wait; Fig. 6(a), not described in the paper's text, is taken to be "
      "the slowdown.")
    w("")
    w("| workload | ρ | all s | class 0 s | class 9 s | all w | class 0 w | class 9 w | class 0 n | class 9 n |")
    w("|---|---|---|---|---|---|---|---|---|---|")
    for k, f in enumerate(FACTORS):
        r, st, _ = rows[k]
        w(f"| {k} ({f:.1f}) | {r['utilization']:.3f} | " + " | ".join(fmt_s(st[c][1]) for c in ("all", 0, 9)) + " | "
          + " | ".join(fmt_w(st[c][2]) for c in ("all", 0, 9)) + f" | {st[0][0]} | {st[9][0]} |")
    w("")
    count = lambda pred: sum(1 for _, st, _ in rows if pred(st))
    outside = sorted({n for _, _, n in rows})
    w(f"Paper (Fig. 6(b)): good estimators get lower average waits. Here class 9 waits less than class 0 in "
      f"{count(lambda st: st[9][2] < st[0][2])}/9 workloads and less than all jobs in "
      f"{count(lambda st: st[9][2] < st['all'][2])}/9; on slowdown class 9 is below class 0 in "
      f"{count(lambda st: st[9][1] < st[0][1])}/9 and below all jobs in {count(lambda st: st[9][1] < st['all'][1])}/9. "
      f"Jobs in no class (run time 0): {', '.join(map(str, outside))} per workload.")
    w("")


FIG14_Q = ["0", "8", "16", "32", "64", "128", "-1"]
# Fig. 8 ablation: BGS-5's row hold is plan_factor x estimate; "0" is the default, MPL (= 5).
FIG8_FACTORS = ["1", "2", "4", "0", "6", "10"]


def parse_stats(line):
    """The policy name and counters of one `<policy> stats: key=value ...` line (bgs's stats parameter)."""
    name, _, rest = line.partition(" stats: ")
    return name, {k: int(v) for k, v in (kv.split("=") for kv in rest.split())}


def fig8_plan_report(w, out_dir):
    """The Fig. 8 ablation: BGS-5 with the row hold at plan_factor x estimate, at Φ = 0.2 and 1."""
    grids = {}
    for phi in ("0.2", "1.0"):
        d = Path(out_dir) / f"phi{phi}-fig8plan"
        if not (d / "w8.json").exists():
            return
        grid = {}  # plan_factor -> [(result, counters)] per workload
        for k in range(9):
            counters = dict(parse_stats(l) for l in (d / f"w{k}.stats").read_text().splitlines() if " stats: " in l)
            for r in json.loads((d / f"w{k}.json").read_text()):
                _, p = parse(r["policy"])
                grid.setdefault(p.get("plan_factor", "0"), []).append((r, counters[r["policy"]]))
        grids[phi] = grid
    label = lambda f: "MPL (5)" if f == "0" else f
    w("### Fig. 8 ablation: what BGS-5 plans with")
    w("")
    w("BGS plans every job with MPL × estimate (spec §2.4: a job gets at least one slice in every cycle of at most "
      "MPL rows, so that bounds its wall time): a waiting job's reservation and a running job's hold on its row. "
      "The `plan_factor` parameter replaces MPL by another factor k (k × estimate; 0, the default, is MPL). Here "
      "BGS-5 (context switch 0 %) runs at Φ = 0.2 and Φ = 1 with k = 1, 2, 4, 6, 10 besides MPL = 5 on the same jobs "
      "as Fig. 8. A job that outlives its hold is held for one more cycle (MPL × slice = 1000 s) and its row "
      "re-planned. Average slowdown s per workload:")
    w("")
    for title, key, fmt in ((None, "mean_bsld", fmt_s), ("Average wait (s):", "mean_wait_s", fmt_w)):
        if title:
            w(title)
            w("")
        w("| workload | " + " | ".join(f"Φ={phi} k={label(f)}" for phi in grids for f in FIG8_FACTORS) + " |")
        w("|---|" + "---|" * (len(grids) * len(FIG8_FACTORS)))
        for k, fac in enumerate(FACTORS):
            w(f"| {k} ({fac:.1f}) | " + " | ".join(fmt(grids[phi][f][k][0][key]) for phi in grids
                                                   for f in FIG8_FACTORS) + " |")
        w("")
    w("What the plan did at workload 5 (run time ×1.5), from the policy's counters (`stats`): early ends = jobs "
      "that ended before their hold ran out, slack = the hold they left (sum, 10⁶ s); compression = reservations "
      "moved earlier when capacity freed, and by how much (sum, 10⁶ s); overruns = jobs still running when their "
      "hold ran out, the one-cycle extensions that followed, and the reservations those re-plans moved later; Δs = slowdown minus that of k = MPL at the same Φ, "
      "job by job, with los-sim's paired 90 % confidence interval (batch means; the jobs are the same, so the pairs "
      "are exact; across Φ only the estimates differ, and los-sim cannot pair two workloads, so Φ = 0.2 against "
      "Φ = 1 is compared on the means).")
    w("")
    w("| Φ | k | s | Δs (90 % CI) | w | reservations | early ends | slack | compression moves | moved earlier | "
      "overrun jobs | extensions | moved later |")
    w("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for phi in grids:
        for f in FIG8_FACTORS:
            r, c = grids[phi][f][5]
            d = (r.get("vs_baseline") or {}).get("bsld")  # baseline minus this policy: negated for Δs
            ci = f"{-d['mean']:+.1f} ({-d['ci90_high']:+.1f}, {-d['ci90_low']:+.1f})" if d else "—"
            w(f"| {phi} | {label(f)} | {fmt_s(r['mean_bsld'])} | {ci} | {fmt_w(r['mean_wait_s'])} | "
              f"{c['reservations']:,} | {c['ended_early']:,} | {c['early_slack_s'] / 1e6:,.0f} | "
              f"{c['compress_moves']:,} | {c['compress_s'] / 1e6:,.1f} | {c['overrun_jobs']:,} | "
              f"{c['overrun_extensions']:,} | {c['replan_delays']:,} |")
    w("")
    s = lambda phi, f, k: grids[phi][f][k][0]["mean_bsld"]
    wt = lambda phi, f, k: grids[phi][f][k][0]["mean_wait_s"]
    worst = sum(1 for k in range(9) if s("1.0", "0", k) == max(s("1.0", f, k) for f in FIG8_FACTORS))
    # vs_baseline is baseline (k = MPL) minus this policy: Δs < 0 throughout the interval when its low end is > 0.
    sig = lambda f: sum(1 for k in range(9) if grids["1.0"][f][k][0]["vs_baseline"]["bsld"]["ci90_low"] > 0)
    below = lambda f: sum(1 for k in range(9) if s("1.0", f, k) < s("0.2", "0", k))
    w_below = lambda f: sum(1 for k in range(9) if wt("1.0", f, k) < wt("0.2", "0", k))
    spread = lambda phi, k: max(s(phi, f, k) for f in FIG8_FACTORS) / min(s(phi, f, k) for f in FIG8_FACTORS)
    w(f"Counts over the 9 workloads: at Φ = 1, k = MPL has the highest slowdown of the six factors in {worst}/9; "
      f"against k = MPL the paired 90 % interval of Δs lies below 0 in {sig('1')}/9 for k = 1, {sig('2')}/9 for k = 2, "
      f"{sig('6')}/9 for k = 6 and {sig('10')}/9 for k = 10. Φ = 1 with k = 10 (the hold twice MPL × estimate) is "
      f"below Φ = 0.2 with k = MPL on slowdown in {below('10')}/9 and on wait in {w_below('10')}/9; with k = 1 in "
      f"{below('1')}/9 and {w_below('1')}/9. Largest / smallest slowdown over the six factors, median over the "
      f"workloads: Φ = 0.2 {sorted(spread('0.2', k) for k in range(9))[4]:.2f}, "
      f"Φ = 1 {sorted(spread('1.0', k) for k in range(9))[4]:.2f}.")
    w("")


def fig14_report(w, out_dir, phi_runs):
    """Fig. 14: MGS and MBGS (MPL 5, context switch 0) against Q at C = 10 and 30 s, workloads 2 and 5, Φ = 0.2."""
    d = Path(out_dir) / "phi0.2-fig14"
    if not (d / "w5.json").exists():
        return
    runs = {}  # (workload, technique, c, q) -> result
    for k in (2, 5):
        for r in json.loads((d / f"w{k}.json").read_text()):
            head, p = parse(r["policy"])
            runs[(k, head, p["c"], p["q"])] = r
    lines = [(k, head, c) for k in (2, 5) for head in ("mgs", "mbgs") for c in ("10", "30")]
    qname = lambda q: "∞" if q == "-1" else q
    w("### Fig. 14: MGS and MBGS against Q (MPL 5, context switch 0 %, Φ = 0.2)")
    w("")
    w("Q = the most tasks migrated per slice; Q = 0 is no migration, ∞ is unlimited. The Q grid 0, 8, 16, 32, 64, "
      "128, ∞ is our choice: the paper names only 0 and 64. Migration cost C = 10 s and 30 s (5 % and 15 % of the "
      "200 s slice), workloads 2 and 5 as in the paper. Columns are named policy/C as in the paper's legend; "
      "s = average slowdown, w = average wait (s).")
    w("")
    same = []
    for k in (2, 5):
        w(f"Workload {k} (run time ×{FACTORS[k]:.1f}, offered load {runs[(k, 'mgs', '10', '0')]['offered_load']:.3f}):")
        w("")
        w("| Q | " + " | ".join(f"{head.upper()}/{c} s | w" for _, head, c in lines if _ == k) + " |")
        w("|---|" + "---|---|" * 4)
        for q in FIG14_Q:
            w(f"| {qname(q)} | " + " | ".join(f"{fmt_s(runs[(k, head, c, q)]['mean_bsld'])} | "
                                              f"{fmt_w(runs[(k, head, c, q)]['mean_wait_s'])}"
                                              for kk, head, c in lines if kk == k) + " |")
        w("")
        # Q = 0 must be the migration-free policy: the same run as GS-5 / BGS-5 of the Φ = 0.2 grid.
        for head, base in (("mgs", "gang"), ("mbgs", "bgs")):
            ref = phi_runs.get((base, 5, "0", "-", "-"))
            if ref is not None:
                same += [runs[(k, head, c, "0")]["mean_bsld"] == ref[k]["mean_bsld"]
                         and runs[(k, head, c, "0")]["mean_wait_s"] == ref[k]["mean_wait_s"] for c in ("10", "30")]
    s = lambda line, q: runs[(line[0], line[1], line[2], q)]["mean_bsld"]
    wt = lambda line, q: runs[(line[0], line[1], line[2], q)]["mean_wait_s"]
    n = len(lines)
    mgs_lines = [ln for ln in lines if ln[1] == "mgs"]
    mono = lambda f, line: all(f(line, a) >= f(line, b) for a, b in zip(FIG14_Q, FIG14_Q[1:]))
    steps_up = sum(1 for ln in lines for a, b in zip(FIG14_Q, FIG14_Q[1:]) if s(ln, b) > s(ln, a))
    c30 = [ln for ln in lines if ln[2] == "30"]
    def share(f, ln):
        """The part of the line's largest gain over Q = 0 that Q = 64 already has (NaN if no Q gains)."""
        best = min(f(ln, q) for q in FIG14_Q)
        return (f(ln, "0") - f(ln, "64")) / (f(ln, "0") - best) if best < f(ln, "0") else math.nan
    shares, shares_w = [share(s, ln) for ln in lines], [share(wt, ln) for ln in lines]
    pct = lambda x: "—" if math.isnan(x) else f"{100 * x:.0f} %"
    name = lambda ln: f"{ln[1].upper()}/{ln[2]} w{ln[0]}"
    w("The paper's claims, counted over the 8 lines (MGS and MBGS × C = 10, 30 s × workloads 2, 5):")
    w("")
    if same:
        w(f"* Q = 0 reproduces GS-5 / BGS-5 of the Φ = 0.2 grid exactly (slowdown and wait) in {sum(same)}/{len(same)} "
          "cases (a check of the runs, not a claim).")
    w(f"* Migration helps even at Q = 64 (slowdown at Q = 64 below Q = 0): {sum(1 for ln in lines if s(ln, '64') < s(ln, '0'))}/{n} "
      f"lines, MGS {sum(1 for ln in mgs_lines if s(ln, '64') < s(ln, '0'))}/{len(mgs_lines)}; on wait "
      f"{sum(1 for ln in lines if wt(ln, '64') < wt(ln, '0'))}/{n}.")
    w(f"* Migration still helps at C = 30 s: slowdown below Q = 0 at {sum(1 for ln in c30 for q in FIG14_Q[1:] if s(ln, q) < s(ln, '0'))}"
      f"/{len(c30) * (len(FIG14_Q) - 1)} of the (line, Q > 0) points at C = 30 s; wait below at "
      f"{sum(1 for ln in c30 for q in FIG14_Q[1:] if wt(ln, q) < wt(ln, '0'))}/{len(c30) * (len(FIG14_Q) - 1)}.")
    w(f"* Slowdown and wait improve monotonically with Q (never worse at a larger Q): slowdown in "
      f"{sum(1 for ln in lines if mono(s, ln))}/{n} lines, wait in {sum(1 for ln in lines if mono(wt, ln))}/{n}; "
      f"{steps_up} of the {n * (len(FIG14_Q) - 1)} steps to the next larger Q raise the slowdown.")
    w(f"* Most of the benefit by Q = 64 (share = (s at Q 0 − s at Q 64) / (s at Q 0 − lowest s on the line), "
      f"\"most\" taken as ≥ 50 %; — = no Q gains): on slowdown {sum(1 for x in shares if x >= 0.5)}/{n} lines ("
      + ", ".join(f"{name(ln)} {pct(x)}" for ln, x in zip(lines, shares)) + f"); on wait "
      f"{sum(1 for x in shares_w if x >= 0.5)}/{n} (" + ", ".join(f"{name(ln)} {pct(x)}" for ln, x in zip(lines, shares_w))
      + ").")
    w("")


def phi_report(w, out_dir):
    """The paper's figures that use the Phi model of overestimation, as tables."""
    grids = {}
    for phi in ("0.2", "0.5", "1.0"):
        d = Path(out_dir) / f"phi{phi}"
        if (d / "w8.json").exists():
            grids[phi] = load(d)
    if "0.2" not in grids:
        return
    w("## A-Φ — the paper's Φ model of overestimation (Lublin generator, run times ×5)")
    w("")
    w("The workload: the jobs of `los-sim generate lublin:jobs=10000:nodes=256:seed=1:estimates=phi:phi=Φ` "
      "(the project's Lublin–Feitelson generator, 10,000 jobs with sizes 1–256; docs/workload-models.md), "
      "written to a file and simulated with `--nodes 320`: run times ×5 and loads as in A, on 320 nodes. (Until "
      "2026-11-25 the model was given to los-sim directly with `--nodes 320`, which it ignored for a model with "
      "its own `nodes=`: those runs were on 256 nodes. los-sim now refuses the pair.) Every job's estimate is f × its run time with the paper's "
      "overestimation factor f: f = 1 for a fraction Φ of jobs, and run time / estimate uniform on (0, 1) for "
      "the rest (paper §2.2; spec §4.3). Jobs are killed at their estimate, which with f ≥ 1 never cuts a run. "
      "The jobs (submit times, sizes, run times) are the same for every Φ; only the estimates differ. Φ = 1 is "
      "perfect estimates. The paper's figures are curves; these are their points.")
    w("")
    sweep = [phi for phi in ("0.2", "0.5", "1.0") if phi in grids]
    for fig, key, name in (("Fig. 5: BF (conservative backfilling) under the Φ model", ("conservative", 1, "-", "-", "-"), "BF"),
                           ("Fig. 8: BGS-5 (context switch 0 %) under the Φ model", ("bgs", 5, "0", "-", "-"), "BGS-5")):
        w(f"### {fig}")
        w("")
        w("| workload | " + " | ".join(f"Φ={phi} ρ | s | w" for phi in sweep) + " |")
        w("|---|" + "---|---|---|" * len(sweep))
        for k, f in enumerate(FACTORS):
            cells = []
            for phi in sweep:
                r = grids[phi][0][key][k]
                cells += [f"{r['utilization']:.3f}", fmt_s(r["mean_bsld"]), fmt_w(r["mean_wait_s"])]
            w(f"| {k} ({f:.1f}) | " + " | ".join(cells) + " |")
        w("")
        lower = sum(1 for k in range(9) if grids["0.2"][0][key][k]["mean_bsld"] < grids[sweep[-1]][0][key][k]["mean_bsld"])
        lower_w = sum(1 for k in range(9) if grids["0.2"][0][key][k]["mean_wait_s"] < grids[sweep[-1]][0][key][k]["mean_wait_s"])
        w(f"{name}: Φ = 0.2 has a lower slowdown than Φ = {sweep[-1]} in {lower}/9 workloads and a lower wait in "
          f"{lower_w}/9 (paper, Fig. 5: overestimation lowers slowdown up to ρ 0.90 and costs a little wait; "
          "Fig. 8: wait differences insignificant, slowdown differences nonmonotonic above 0.85).")
        w("")
        if name == "BF":
            fig6_report(w, out_dir)
        else:
            fig8_plan_report(w, out_dir)
    runs = grids["0.2"][0]
    fig14_report(w, out_dir, runs)
    mig = [("gang", 5, "0", "-", "-", "GS"), ("bgs", 5, "0", "-", "-", "BGS"), ("mgs", 5, "0", "10", "64", "MGS"),
           ("mbgs", 5, "0", "10", "64", "MBGS")]
    if all(m[:5] in runs for m in mig):
        w("### Fig. 15: GS, BGS, MGS, MBGS at MPL 5, Φ = 0.2, migration cost 10 s, Q = 64")
        w("")
        w("| workload | " + " | ".join(f"{m[5]} ρ | κ | s | w" for m in mig) + " |")
        w("|---|" + "---|---|---|---|" * len(mig))
        for k, f in enumerate(FACTORS):
            cells = []
            for m in mig:
                r = runs[m[:5]][k]
                cells += [f"{r['utilization']:.3f}", f"{r['loss_of_capacity']:.3f}", fmt_s(r["mean_bsld"]),
                          fmt_w(r["mean_wait_s"])]
            w(f"| {k} ({f:.1f}) | " + " | ".join(cells) + " |")
        w("")
        s = lambda m, k: runs[m[:5]][k]["mean_bsld"]
        best = sum(1 for k in range(9) if s(mig[3], k) < min(s(mig[0], k), s(mig[1], k), s(mig[2], k)))
        worst = sum(1 for k in range(9) if s(mig[0], k) > max(s(mig[1], k), s(mig[2], k), s(mig[3], k)))
        w(f"Paper: MBGS best and GS worst on every metric at every load. Here on slowdown: MBGS best in {best}/9, "
          f"GS worst in {worst}/9.")
        w("")
    w("The rest of the paper's Φ = 0.2 figures (Table 1, Figs. 9–12: GS-2/3/5, BF, BGS-2/3/5 at 0 % context "
      "switch) on this workload:")
    w("")
    workload_report(w, runs, grids["0.2"][1], "A-Φ, Φ = 0.2", 3)


def main():
    if sys.argv[1:] == ["--self-test"]:
        self_test()
        return
    out_dir, elapsed, command = sys.argv[1], sys.argv[2], sys.argv[3]
    figs_elapsed = f" (Figs. 6 and 14: {sys.argv[4]} s" if len(sys.argv) > 4 else ""
    figs_elapsed += (f", Fig. 8 ablation: {sys.argv[5]} s)" if len(sys.argv) > 5 else ")") if figs_elapsed else ""
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    except OSError:
        commit = "?"
    cpu = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    o = []
    w = o.append
    w("# Gang scheduling, backfilling and migration: GS, BGS, MGS, MBGS on 320-node stand-ins")
    w("")
    w("Generated by `scripts/results/gang-migration.sh` — do not edit by hand; rerun it. "
      f"Commit {commit}, {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, {elapsed} s{figs_elapsed} on {platform.node()} "
      f"({cpu}, two simulations at a time).")
    w("")
    w(f"Command: `{command}`. Paper: Zhang, Franke, Moreira, Sivasubramaniam, *An Analysis of Space- and "
      "Time-Sharing Techniques for Parallel Job Scheduling*; spec `../shared/specs/gang-migration.md`.")
    w("")
    w("## Setup")
    w("")
    w("The paper's workload is synthetic (a Hyper-Erlang fit to ASCI Blue-Pacific: 10,000 jobs, sizes 1–256 on "
      "320 nodes, 30 % of jobs larger than 32 nodes holding > 80 % of the work, median run time 680 s) and its "
      "parameters are not published, so it cannot be rebuilt. Two documented stand-ins bracket it, both on "
      "**320 nodes** with arrivals rescaled once so that workload 0 offers a load of **0.55** (the paper's "
      "baseline); workload k (k = 0..8) multiplies run times (and estimates) by **F = 1 + 0.1k** with arrivals "
      "fixed, as the paper does (los-sim `--runtime-scale F' --load 0.55F`: the load rescaling then stretches "
      "arrivals by the same factor for every F).")
    w("")
    w("* **A — `lublin_256`** (shared trace): 10,000 jobs generated by the Lublin-Feitelson model for 256 nodes, "
      "sizes 1–256 as in the paper; run times ×5 (F' = 5F) so that the median run time is 685 s. No user "
      "estimates: estimate = run time (the paper's Φ = 1). 12 % of jobs are large and hold 82 % of the work; run "
      "times are far more variable than the paper's (up to 9 days after ×5). Harder than the paper's workload: "
      "even BF has slowdown 60 at load 0.55. Full grid.")
    w("* **B — `KTH-SP2`** (shared trace), first 10,000 jobs, real user estimates, median run time 630 s, sizes "
      "1–100 (the machine had 100 nodes), F' = F. Easier than the paper's workload: its jobs are small next to "
      "320 nodes. Reduced grid (context switch 0 % only, no C = 10 s runs) to keep the command short.")
    w("* **A-Φ — the project's Lublin generator with the paper's Φ estimates** (section at the end): the same model "
      "family as A, run times ×5, estimates from the paper's Φ model at Φ = 0.2 (reduced grid plus the Fig. 15 "
      "runs) and Φ = 0.5 and 1 (BF and BGS-5: Figs. 5 and 8); at Φ = 0.2 also BF by estimate-quality class "
      "(Fig. 6) and MGS/MBGS against the migration limit Q at C = 10 and 30 s (Fig. 14).")
    w("")
    w("Policies: BF = `conservative`; GS = `gang`, BGS = `bgs` at MPL 2, 3, 5 and context-switch overhead 0, 1, 2, "
      "5 % of the 200 s slice (charged to every switch-in, first starts included); MGS = `mgs`, MBGS = `mbgs` at "
      "MPL 5 with migration cost C = 0 and Q unlimited (the paper's Table 1) and with C = 10 s, Q = 64 tasks per "
      "slice (the paper's Fig. 15 setting), context switch 0 %. BGS and MBGS use `plan=keep` (the policies' default) "
      "unless named `plan=rebuild`; both are reported at MPL 5, 0 %, C = 0.")
    w("")
    w("Model: slice model S of the spec (§1.3.1): events recompute the matrix at once, the slice keeps its row and "
      "remaining length. Start time = first execution. Slowdown s = max(t_r, 10 s) / max(t_e, 10 s) (los-sim's "
      "`mean_bsld` with τ = 10 s is the same formula). Utilization ρ = Σ n·t_e / (last end × 320), first arrival "
      "at 0. Loss of capacity κ = ∫ δ(t)·(empty columns of the active row + columns paying overhead) dt / "
      "(last end × 320), δ(t) = some job waits outside the matrix. Max utilization at slowdown ≤ 20: where the "
      "slowdown-vs-workload curve first crosses 20, linearly interpolated in (ρ, s) between the two workloads "
      "around the crossing.")
    w("")
    for name, title in (("lublin", "A — lublin_256 (sizes 1–256, run times ×5)"),
                        ("kth", "B — KTH-SP2, first 10,000 jobs (sizes 1–100, real estimates)")):
        runs, offered = load(Path(out_dir) / name)
        workload_report(w, runs, offered, title, 2)
    phi_report(w, out_dir)
    w(DISCUSSION)
    print("\n".join(o))


# Written from the runs of this command (the simulations are deterministic, so a
# rerun of the same code gives the same figures); revisit when the code changes.
DISCUSSION = """## plan=keep or plan=rebuild, and the Φ model

**plan=keep against plan=rebuild** (tables "plan=keep against plan=rebuild" in A, B and A-Φ). The two are level at
light load; where they differ, keep mostly has the lower slowdown and wait, most at high load (A, workload 6: BGS
67.2 keep vs 88.4 rebuild, MBGS 55.9 vs 62.4; B, workload 7: BGS 32.1 vs 39.5). Keep is also about three times
cheaper (docs/policies.md). So the policies' default stays `plan=keep`, and `plan=rebuild` (the spec's §2.4
default) stays available. Neither brings A near the paper's printed slowdowns (A, workload 2, BGS: 10.7 keep and
12.5 rebuild against 3.8 in Table 1); which part of that gap is the workload was not isolated by an experiment.

**The Φ model (A-Φ).** The paper's claim that overestimation barely matters (Figs. 5 and 8) is checked here by
holding the jobs fixed and changing only the estimates; the tables give Φ = 0.2, 0.5 and 1 (perfect) side by side,
with the counts of workloads in which Φ = 0.2 is ahead printed under each table. The Φ = 0.2 Table 1 and the Fig. 15
table are on the project's Lublin generator, not on lublin_256, so they compare with A only through the orderings.
* BF (Fig. 5): as in the paper, overestimation lowers the slowdown: Φ = 0.2 is lower than Φ = 1 at every
  workload (workload 7: 93.0 against 268.2). Unlike the paper, it does not cost
  wait: Φ = 1 waits 3–34 % longer than Φ = 0.2 at every workload.
* BGS-5 (Fig. 8): the paper finds wait insensitive to Φ; here Φ = 0.2 has the lower slowdown and wait at every
  workload (workload 5: slowdown 33.5 against 55.3 at Φ = 1). The ablation ("Fig. 8 ablation", the plan's factor k
  in k × estimate) shows that Φ = 1 is not worse because exact estimates are exact but because BGS plans with
  MPL × estimate: at Φ = 1 that hold is about the wall time of a job in a full cycle of 5 rows, and k = MPL is the
  worst of the six factors at 8 of 9 workloads. Moving k either way helps: at workload 5, k = 1 gives 25.5 and
  k = 10 gives 32.1 (paired 90 % intervals of the difference below 0 at 7 and 6 of 9 workloads), while at Φ = 0.2
  the factor hardly matters (workload 5: 25.9–34.2, no interval excludes 0 there). The counters show what the
  near-exact hold costs at Φ = 1, k = MPL (workload 5): early ends leave 388 × 10⁶ s of hold unused, against
  14,514 × 10⁶ s at Φ = 0.2, so compression moves reservations earlier by 20 × 10⁶ s in all against 431 × 10⁶ s
  (22 times less); and 1,104 jobs outlive their hold (297 at Φ = 0.2; the hold counts from placement, the job runs
  only in its row's slices), each re-planning its row, which moves 1,678 reservations later. So the mechanism is
  "early completions free planned capacity and compression passes it on", which overestimation feeds: doubling the
  hold at Φ = 1 (k = 10, 621 × 10⁶ s moved earlier) closes the whole workload-5 gap (55.3 → 32.1 against 33.5) and
  is level with Φ = 0.2 over the grid (lower slowdown at 3 of 9 workloads, lower wait at 5 of 9). The opposite
  direction (k = 1, 2) works differently: holds run out and are extended one cycle at a time (0.66–0.97 million
  extensions at workload 5), so the plan always sees rows free within a cycle; at k = 1 the slowdown is below
  Φ = 0.2's at 7 of 9 workloads, the wait above it at all 9.
  The default stays k = MPL, the spec's §2.4 bound, and `plan_factor` keeps the alternatives available.
* Fig. 6 (BF by estimate quality, Φ = 0.2): as in the paper, good estimators wait less. Class 9 (run time > 90 % of
  the estimate) waits less than class 0 (≤ 10 %) and less than the average at every workload: 0.76–0.90 of the
  average wait, while class 0 waits 1.42–1.82 times the average (workload 5: 79,789 s, 168,960 s and 101,127 s).
  Their slowdowns follow the waits: class 9 is below class 0 and below the average at every workload.
* Fig. 14 (Q at C = 10 and 30 s, workloads 2 and 5): for MGS, migration helps at every Q > 0 on all four lines, and
  Q = 64 gives 58–83 % of the largest slowdown gain (slowdown × 0.69 at workload 2 and × 0.41 at workload 5 against
  Q = 0 at C = 10 s), but the fall with Q is not monotone on the C = 30 s lines (one step up on each), and C = 30 s
  against C = 10 s at Q = 64 costs 17 % slowdown at workload 5 and gains 9 % at workload 2. For MBGS, migration lowers
  the wait (Q = 64: 0.75–0.80 of the wait at Q = 0; monotone in Q at workload 5, not at workload 2) but not the
  slowdown, which moves up and down with Q around its Q = 0 value (workload 2: 9.5; Q > 0: 7.8–15.7; workload 5,
  Q = 64: 10 % lower at C = 10 s, 4 % higher at C = 30 s). So the paper's "wait and slowdown follow the same
  trends" holds for MGS and not for MBGS, which matches Table 1 and Fig. 15 here, where MBGS gains little or loses
  against BGS on slowdown.
* Fig. 15 (C = 10 s, Q = 64): GS is worst on slowdown at every workload, as in the paper; MBGS is best at 4 of 9
  (BGS beats it at the others), where the paper has MBGS best everywhere. Table 1 at Φ = 0.2 shows the same: MGS
  gains 27–72 % over GS (paper 34–92 %), MBGS gains little or loses against BGS (−91 % to +14 %; paper 16–51 %).

## Where we agree with the paper and where we do not

**Orderings: mostly reproduced.**
* BGS beats GS of the same MPL and overhead in 108/108 cases on A and 26/27 on B, and beats BF at every MPL
  and workload at 0 % overhead on both stand-ins (paper: BGS beats both components at 0–1 %).
* Slowdown improves monotonically with MPL for GS and BGS on A (9/9 workloads each). On B this holds for GS
  (9/9) and for BGS in 6/9: BGS-3 and BGS-5 are within noise of each other at light load.
* Migration lowers slowdown: MGS < GS in 9/9 (A) and 8/9 (B), MBGS < BGS in 7/9 (A) and 8/9 (B). As the paper
  says, migration helps GS more than BGS (A 9/9, B 6/9), and the gain for GS peaks at high load: 81 % at
  workload 7 on A and 91 % on B, against 92 % at workload 6 in the paper.
* GS saturates well below the backfilling policies. GS-5 reaches ρ 0.85 on A (paper 0.86) and 0.82 on B, and
  GS-2/GS-3 saturate lower than GS-5 on A (≈ 0.80 and 0.82; the paper has 0.82–0.87 for MPL 2–5). The
  backfilling and migration policies reach 0.93–0.94 on A (paper 0.95–0.98).
* The utilization at slowdown ≤ 20 keeps the paper's order among time-sharing techniques, GS < BGS < MBGS:
  on B, GS-5 0.71, BGS 0.77–0.78 and MBGS 0.88 (paper: 0.67, 0.82–0.87 and 0.94); on A, BGS-5 0.70 and MBGS 0.72,
  while GS-5 and BF are above slowdown 20 already at workload 0.

**Absolute values: not reproduced, and the two stand-ins bracket the paper.** The paper's HErD workload cannot
be rebuilt, and the results depend strongly on the workload:
* A (Lublin, sizes up to 256) is much harder than the paper's workload. Its run times are heavy-tailed (up to
  9 days after ×5), and 2.7 % of its jobs use 129 or more of the 320 nodes and hold 43 % of the work. Every
  FCFS-ordered policy queues behind such jobs: BF already has slowdown 60 at ρ 0.55 (paper: ≤ 20 up to 0.76),
  and GS-5 has 146 (paper 3.9). The migration gains on A are smaller than in Table 1 (GS→MGS 43–81 % against
  34–92 %; BGS→MBGS −15 % to 32 % against 16–51 %).
* B (KTH-SP2, sizes up to 100) is easier at light load: its jobs are small next to 320 nodes, so GS-5 has
  slowdown 1.9 at ρ 0.53 (paper 3.9 at 0.55). Its real user estimates are poor, which hurts BF (0.69 at
  slowdown ≤ 20, paper 0.76) and the BGS reservations, which use MPL × estimate.

**Disagreements in the orderings.**
* BF against GS-5: the paper has GS-5 ahead of BF up to ρ ≈ 0.65 and BF ahead above. On A, BF beats GS-5 at
  every load. On B, GS-5 beats BF at 6 of the 9 loads and is ahead at slowdown ≤ 20 (0.71 against 0.69).
  Where GS is favoured depends on how wide the jobs are next to the machine.
* MBGS with C = 0 is not always better than BGS: it is worse on A at workloads 2 and 5 and on B at workload 1.
  Free migration changes which rows jobs occupy. With reservations kept across events, that changes later
  backfilling chances, and the effect can go either way. The paper reports a gain at every load.
* The paper's order MBGS < BGS < MGS < GS on slowdown (Fig. 15) holds in 7/9 on A but only 2/9 on B. On B,
  MGS is as good as BGS or better at low and mid load: small jobs let migration fill almost every hole, so
  backfilling adds little.
* Context-switch overhead: on A, BGS beats BF even at 5 % overhead at every load, because BF itself is so poor
  there. The paper has BF ahead above ρ 0.83 at 5 %.
* Achieved utilization is measured to the last completion, as in the paper. On a 10,000-job window one large
  job that finishes late lowers ρ. On B, ρ is therefore not monotone in the load for GS-5 (0.720 → 0.712) and
  BGS-5 (0.774 → 0.764), so saturation points read from B are noisy.

**Modelling choices that matter here** (spec §7): slice model S (events take effect at once); start time is the
first execution; BGS reservations are kept and compressed like `conservative` (never moved later) rather than
rebuilt at every event; a running job holds its home row for MPL × estimate from placement; A has exact
estimates (Φ = 1), B has real ones (the paper uses Φ = 0.2).
"""


if __name__ == "__main__":
    main()
