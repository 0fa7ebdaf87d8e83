#!/usr/bin/env python3
"""Summarises the raw records of tools/sa-experiments into docs/results/sa.md.

Usage: sa_summary.py RAW_DIR > docs/results/sa.md

RAW_DIR holds GROUP-seedS.tsv files (GROUP: main, load0.5, load0.75, load0.875, literal);
scripts/results/sa.sh writes them. Every figure below is computed here from
those records; the simulations are deterministic, so the same command gives the
same numbers.
"""
import glob
import math
import os
import random
import statistics
import sys

# Student t quantiles, 0.95 (two-sided 90% intervals), by degrees of freedom.
T95 = {1: 6.314, 2: 2.920, 3: 2.353, 4: 2.132, 5: 2.015, 6: 1.943, 7: 1.895, 8: 1.860, 9: 1.833, 10: 1.812,
       11: 1.796, 12: 1.782, 13: 1.771, 14: 1.761, 15: 1.753, 16: 1.746, 17: 1.740, 18: 1.734, 19: 1.729,
       20: 1.725, 25: 1.708, 30: 1.697, 40: 1.684, 60: 1.671, 120: 1.658}


def t95(df):
    if df <= 0:
        return float("nan")
    keys = sorted(k for k in T95 if k <= df)
    return T95[keys[-1]] if df < 1000 else 1.645


def gmean(xs):
    xs = list(xs)
    return math.exp(sum(math.log(max(1, x)) for x in xs) / len(xs)) if xs else float("nan")


class Target:
    def __init__(self, group, f):
        (_, seed, site, job, submit, v, user, sa, D, L, cmin, cmax, acc, tts, comps, shapes,
         tt_sa_ad, tt_user_ad, D_ad) = f
        self.group, self.seed, self.site, self.job = group, int(seed), site, int(job)
        self.v, self.user, self.sa = int(v), int(user), int(sa)
        self.D, self.L, self.accuracy = float(D), float(L), float(acc)
        self.cmin, self.cmax = int(cmin), int(cmax)
        self.tt = [int(x) for x in tts.split(",")]
        self.comp = [int(x) for x in comps.split(",")]
        self.shapes = [tuple(int(y) for y in x.split(":")) for x in shapes.split(",")]
        self.tt_sa_ad, self.tt_user_ad, self.D_ad = int(tt_sa_ad), int(tt_user_ad), float(D_ad)

    @property
    def tt_user(self):
        return self.tt[self.user]

    @property
    def tt_sa(self):
        return self.tt[self.sa]

    @property
    def tt_best(self):
        return min(self.tt)

    def sa_among(self, subset):
        """SA's choice among the shapes `subset` (indices), by the library's tie rule."""
        return min(subset, key=lambda k: (self.comp[k], self.shapes[k][0] * self.shapes[k][1], self.shapes[k][0], k))


def load(raw):
    targets, workloads = [], []
    for path in sorted(glob.glob(os.path.join(raw, "*.tsv"))):
        group = os.path.basename(path).split("-seed")[0]
        with open(path) as fh:
            for line in fh:
                if line.startswith("#") or not line.strip():
                    continue
                f = line.rstrip("\n").split("\t")
                if f[0] == "target":
                    targets.append(Target(group, f))
                elif f[0] == "workload":
                    workloads.append(dict(group=group, seed=int(f[1]), site=f[2], jobs=int(f[3]),
                                          gm_user=float(f[4]), gm_sa=float(f[5]),
                                          util_user=float(f[6]), util_sa=float(f[7])))
    return targets, workloads


def ratio_ci(targets, num, den):
    """Geometric mean of num/den over the targets, with a 90% interval from the
    per-workload means of log(num/den) (targets of one workload are not independent)."""
    by_seed = {}
    for t in targets:
        by_seed.setdefault(t.seed, []).append(math.log(max(1, num(t))) - math.log(max(1, den(t))))
    overall = sum(sum(v) for v in by_seed.values()) / sum(len(v) for v in by_seed.values())
    means = [sum(v) / len(v) for v in by_seed.values()]
    if len(means) < 2:
        return math.exp(overall), float("nan"), float("nan")
    half = t95(len(means) - 1) * statistics.stdev(means) / math.sqrt(len(means))
    return math.exp(overall), math.exp(overall - half), math.exp(overall + half)


def fmt_ratio(r):
    g, lo, hi = r
    return f"{g:.3f} [{lo:.3f}, {hi:.3f}]" if not math.isnan(lo) else f"{g:.3f}"


def pct(n, d):
    return f"{100.0 * n / d:.1f} %" if d else "—"


GROUPS = [("load0.5", "κ_L = 0.5"), ("load0.75", "κ_L = 0.75"), ("load0.875", "κ_L = 0.875"),
          ("main", "κ_L = 1 (thesis)"), ("literal", "κ_L = 1, literal rates")]


def ratio_cols(ts):
    return (f"{fmt_ratio(ratio_ci(ts, lambda t: t.tt_sa, lambda t: t.tt_user))} | "
            f"{fmt_ratio(ratio_ci(ts, lambda t: t.tt_best, lambda t: t.tt_user))} | "
            f"{fmt_ratio(ratio_ci(ts, lambda t: t.tt_sa, lambda t: t.tt_best))}")


def plain_ratios(ts):
    gs, gb, gu = gmean(t.tt_sa for t in ts), gmean(t.tt_best for t in ts), gmean(t.tt_user for t in ts)
    return f"{gs / gu:.3f} | {gb / gu:.3f} | {gs / gb:.3f}"


def main():
    raw = sys.argv[1]
    targets, workloads = load(raw)
    present = [(g, label) for g, label in GROUPS if any(t.group == g for t in targets)]
    if not any(g == "main" for g, _ in present):
        sys.exit("sa_summary: no main records in " + raw)
    by_group = {g: [t for t in targets if t.group == g] for g, _ in present}
    w_by_group = {g: [w for w in workloads if w["group"] == g] for g, _ in present}
    out = []
    p = out.append

    p("# SA: choosing the request shape of moldable jobs — reproduction of Cirne's thesis, ch. 5 and sec. 6.1")
    p("")
    p("Generated by `scripts/results/sa.sh` (raw records in `docs/results/raw/sa/`, not committed; "
      "the summary by `scripts/results/sa_summary.py`). Every number below is computed from those records. The "
      "simulations are deterministic, so the command reproduces them exactly.")
    p("")
    p("## Set-up")
    p("")
    p("* Machine: 500 processors, conservative backfilling (`conservative`), jobs killed at their requested time.")
    p("* Workloads: 10,000 jobs each, from the Cirne rigid model with the moldability model applied to every job "
      "(`cirne-moldable` with the defaults of docs/workload-models.md; one of the four arrival polynomials drawn per "
      "workload, as in the thesis). The arrival polynomials are divided by 1.9, the logs' own rates "
      "(`rate-divisor=1.9`), not used as printed; see the discussion.")
    p("* Load groups: the thesis's κ_L = 1 (\"main\") and lighter κ_L = 0.5, 0.75, 0.875. κ_L multiplies the "
      "arrival rate and every requested time, so the load scales as κ_L².")
    p("")
    p("| group | workloads (seeds) | arrival polynomial drawn | targets |")
    p("|---|---|---|---:|")
    for g, label in present:
        ws = w_by_group[g]
        seeds = sorted(w["seed"] for w in ws)
        sites = {}
        for w in ws:
            sites[w["site"]] = sites.get(w["site"], 0) + 1
        p(f"| {label} | {len(ws)} ({seeds[0]}–{seeds[-1]}) | "
          + ", ".join(f"{k} {v}" for k, v in sorted(sites.items())) + f" | {len(by_group[g])} |")
    p("")
    p("* Targets: 10 per workload, drawn uniformly among the jobs that are never cancelled. Each is an experiment "
      "in the thesis's sense. As in the thesis, SA picks one of the target's requests from the scheduler's "
      "availability list at the target's submission, while all other jobs submit their user request. The target "
      "is then simulated with each of its requests in turn. Its turn-around time (tt) is thus known for the user's "
      "request, for SA's request and for the best request in hindsight. In the adaptive runs (sec. 6.1) SA is "
      "applied to every job.")
    p("* A target's runs differ only from its submission on. Each run is cut after the completion that "
      "conservative backfilling guaranteed the target at submission (its reservation), so only the jobs submitted "
      "up to then are simulated. This is exact, and the tool checks that every target ended by that bound.")
    p("* tt is aggregated by its geometric mean, as in the thesis. Intervals are 90 % confidence intervals from the "
      "per-workload means of the log-ratio: the targets of one workload share a schedule, so workloads are the "
      "independent units.")
    p("")

    # ---- Table 13 / 14
    p("## SA against the user's request and the best request (thesis Tables 13 and 14)")
    p("")
    p("| geometric mean of tt | best | SA | user | SA / user | best / user | SA / best |")
    p("|---|---:|---:|---:|---:|---:|---:|")
    p("| thesis (360,000 experiments) | 1264 s | 1429 s | 2878 s | 0.497 | 0.439 | 1.13 |")
    for g, label in present:
        ts = by_group[g]
        p(f"| LOS {label}, {len(ts)} targets | {gmean(t.tt_best for t in ts):.0f} s | {gmean(t.tt_sa for t in ts):.0f} s | "
          f"{gmean(t.tt_user for t in ts):.0f} s | {ratio_cols(ts)} |")
    p("")
    p("| tt compared with the user's request | best better | best same | SA better | SA same | SA worse | "
      "SA's request is the user's | SA's request is the best | mean 1/v | D < 500,000 s |")
    p("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    p("| thesis | 53.9 % | 46.1 % | 45.8 % | 45.3 % | 8.8 % | — | — | 0.448 | about 60 % |")
    for g, label in present:
        ts = by_group[g]
        n = len(ts)
        p(f"| LOS {label} | {pct(sum(t.tt_best < t.tt_user for t in ts), n)} | "
          f"{pct(sum(t.tt_best == t.tt_user for t in ts), n)} | {pct(sum(t.tt_sa < t.tt_user for t in ts), n)} | "
          f"{pct(sum(t.tt_sa == t.tt_user for t in ts), n)} | {pct(sum(t.tt_sa > t.tt_user for t in ts), n)} | "
          f"{pct(sum(t.sa == t.user for t in ts), n)} | {pct(sum(t.tt_sa == t.tt_best for t in ts), n)} | "
          f"{sum(1.0 / t.v for t in ts) / n:.3f} | {pct(sum(t.D < 500000 for t in ts), n)} |")
    p("")

    # ---- adaptive
    p("## Every moldable job uses SA (thesis sec. 6.1, Table 18)")
    p("")
    p("The same targets. \"Static\": the other jobs submit their user request. \"Adaptive\": every other job "
      "submits SA's choice. The last two columns compare whole workloads (all 10,000 jobs, no single target): "
      "every job using SA against every job submitting its user request.")
    p("")
    p("| geometric mean of tt | SA, static | SA, adaptive | user, static | user, adaptive | "
      "SA / user, adaptive | whole workload: all SA / all user | utilisation all SA / all user |")
    p("|---|---:|---:|---:|---:|---:|---:|---:|")
    p("| thesis | 1429 s | 1357 s | 2878 s | 2721 s | 0.499 | — | — |")
    for g, label in present:
        ad = [t for t in by_group[g] if t.tt_sa_ad >= 0]
        ws = [w for w in w_by_group[g] if w["gm_sa"] > 0]
        if not ad or not ws:
            continue
        p(f"| LOS {label} | {gmean(t.tt_sa for t in ad):.0f} s | {gmean(t.tt_sa_ad for t in ad):.0f} s | "
          f"{gmean(t.tt_user for t in ad):.0f} s | {gmean(t.tt_user_ad for t in ad):.0f} s | "
          f"{fmt_ratio(ratio_ci(ad, lambda t: t.tt_sa_ad, lambda t: t.tt_user_ad))} | "
          f"{gmean(w['gm_sa'] for w in ws) / gmean(w['gm_user'] for w in ws):.3f} | "
          f"{statistics.mean(w['util_sa'] for w in ws):.3f} / {statistics.mean(w['util_user'] for w in ws):.3f} |")
    p("")

    # ---- load
    pooled = [t for g, _ in present for t in by_group[g]]
    p("## How the gain changes with load")
    p("")
    p("By the load groups: the SA / user and best / user columns of the first table, read down. By the load per "
      "processor D at the target's submission (thesis Fig. 52–54), in deciles of all "
      f"{len(pooled)} targets pooled over the groups. Relative tt < 1 is a gain:")
    p("")
    p("| D (s) | targets | SA / user | best / user | SA / best | SA's request wider than the user's | "
      "narrower |")
    p("|---|---:|---:|---:|---:|---:|---:|")
    qs = sorted(pooled, key=lambda t: t.D)
    k = 10
    for i in range(k):
        part = qs[i * len(qs) // k:(i + 1) * len(qs) // k]
        if not part:
            continue
        wider = sum(t.shapes[t.sa][0] > t.shapes[t.user][0] for t in part)
        narrower = sum(t.shapes[t.sa][0] < t.shapes[t.user][0] for t in part)
        p(f"| {part[0].D:,.0f} – {part[-1].D:,.0f} | {len(part)} | {plain_ratios(part)} | "
          f"{pct(wider, len(part))} | {pct(narrower, len(part))} |")
    p("")

    # ---- number of shapes
    p("## How the gain changes with the number of shapes")
    p("")
    p(f"By v, the number of requests the target offers (thesis Fig. 51), all {len(pooled)} targets pooled:")
    p("")
    p("| v | targets | SA / user | best / user | SA / best | SA picks the user's request |")
    p("|---|---:|---:|---:|---:|---:|")
    for lo, hi in [(1, 1), (2, 2), (3, 3), (4, 5), (6, 8), (9, 1000)]:
        part = [t for t in pooled if lo <= t.v <= hi]
        if not part:
            continue
        lab = f"{lo}" if lo == hi else (f"{lo}–{hi}" if hi < 1000 else f"≥ {lo}")
        p(f"| {lab} | {len(part)} | {plain_ratios(part)} | {pct(sum(t.sa == t.user for t in part), len(part))} |")
    p("")
    p("The same targets, with SA offered at most m requests: the user's own and m − 1 of the others, a random "
      "subset fixed per target. SA's choice among them is recomputed from the completions it saw, with the "
      "library's tie rule. Its tt is read from the per-shape runs, so no new simulation is needed.")
    p("")
    p("| m (at most) | SA / user | best / user | SA / best |")
    p("|---|---:|---:|---:|")
    maxv = max(t.v for t in pooled)
    for m in sorted({1, 2, 3, 4, 6, 8, 12, maxv}):
        sa_tt, best_tt, user_tt = [], [], []
        for t in pooled:
            others = [i for i in range(t.v) if i != t.user]
            random.Random(t.seed * 1000003 + t.job).shuffle(others)
            subset = [t.user] + others[:m - 1]
            sa_tt.append(t.tt[t.sa_among(subset)])
            best_tt.append(min(t.tt[i] for i in subset))
            user_tt.append(t.tt_user)
        p(f"| {m} | {gmean(sa_tt) / gmean(user_tt):.3f} | {gmean(best_tt) / gmean(user_tt):.3f} | "
          f"{gmean(sa_tt) / gmean(best_tt):.3f} |")
    p("")

    p(fill_discussion(by_group["main"], by_group.get("literal", []), w_by_group.get("literal", [])))
    print("\n".join(out))


def fill_discussion(ts, lit, lit_w):
    """The hand-written discussion, with its κ_L = 1 figures (K1_*) and literal-rate figures (LIT_*)
    computed from the records."""
    n = len(ts)
    ad = [t for t in ts if t.tt_sa_ad >= 0]
    r = lambda num, den: fmt_ratio(ratio_ci(ts, num, den))
    values = {
        "K1_D500": pct(sum(t.D < 500000 for t in ts), n),
        "K1_BEST_USER": r(lambda t: t.tt_best, lambda t: t.tt_user),
        "K1_BEST_BETTER": pct(sum(t.tt_best < t.tt_user for t in ts), n),
        "K1_BEST": f"{gmean(t.tt_best for t in ts):.0f}",
        "K1_SA_USER": r(lambda t: t.tt_sa, lambda t: t.tt_user),
        "K1_SA_BEST": r(lambda t: t.tt_sa, lambda t: t.tt_best),
        "K1_SA_BETTER": pct(sum(t.tt_sa < t.tt_user for t in ts), n),
        "K1_SA_SAME": pct(sum(t.tt_sa == t.tt_user for t in ts), n),
        "K1_SA_WORSE": pct(sum(t.tt_sa > t.tt_user for t in ts), n),
        "K1_SA_IS_USER": pct(sum(t.sa == t.user for t in ts), n),
        "K1_SA_AD": f"{gmean(t.tt_sa_ad for t in ad):.0f}" if ad else "—",
        "K1_SA_USER_AD": fmt_ratio(ratio_ci(ad, lambda t: t.tt_sa_ad, lambda t: t.tt_user_ad)) if ad else "—",
        "K1_USER_AD": f"{gmean(t.tt_user_ad for t in ad):.0f}" if ad else "—",
        "K1_SA": f"{gmean(t.tt_sa for t in ts):.0f}",
        "K1_USER": f"{gmean(t.tt_user for t in ts):.0f}",
    }
    if lit:
        sites = sorted({w["site"] for w in lit_w})
        values.update({
            "LIT_WORKLOADS": f"{len(lit_w)} workload{'s' if len(lit_w) != 1 else ''}, {', '.join(sites)}",
            "LIT_TARGETS": str(len(lit)),
            "LIT_D500": pct(sum(t.D < 500000 for t in lit), len(lit)),
            "LIT_DRANGE": f"{min(t.D for t in lit) / 1e6:.1f}–{max(t.D for t in lit) / 1e6:.1f} million",
            "LIT_SA_USER": fmt_ratio(ratio_ci(lit, lambda t: t.tt_sa, lambda t: t.tt_user)),
            "LIT_BEST_USER": fmt_ratio(ratio_ci(lit, lambda t: t.tt_best, lambda t: t.tt_user)),
            "LIT_SA_BEST": fmt_ratio(ratio_ci(lit, lambda t: t.tt_sa, lambda t: t.tt_best)),
            "LIT_SA_AD": f"{gmean(t.tt_sa_ad for t in lit):.0f}",
            "LIT_USER_AD": f"{gmean(t.tt_user_ad for t in lit):.0f}",
            "LIT_SA": f"{gmean(t.tt_sa for t in lit):.0f}",
            "LIT_USER": f"{gmean(t.tt_user for t in lit):.0f}",
        })
    text = DISCUSSION
    if not lit:  # the probe was not run: drop its paragraph
        start = text.index("The thesis's literal rates were also run")
        text = text[:start] + text[text.index("One possible reason", start):]
    for key in sorted(values, key=len, reverse=True):  # longest first: K1_SA_USER before K1_SA
        text = text.replace(key, values[key])
    return text


DISCUSSION = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "sa_discussion.md")).read()

if __name__ == "__main__":
    main()
