#!/usr/bin/env python3
"""Paired bounded-slowdown difference of two simulated schedules (SWF, as
written by los-sim --schedule-out), computed as los-sim computes it: per job
(in job-number order) A minus B, mean and 90% CI from 20 batch means,
tau = 10 s.

Usage: los_paired_swf.py A.swf B.swf
Prints: mean low high.
"""
import math
import sys

T95_19 = 1.729  # Student t, 0.95 quantile, 19 degrees of freedom


def bsld(path):
    out = {}
    with open(path) as f:
        for line in f:
            if line.startswith(";") or not line.strip():
                continue
            x = line.split()
            job, wait, run = int(x[0]), float(x[2]), float(x[3])
            out[job] = max(1.0, (wait + run) / max(run, 10.0))
    return out


def main():
    a, b = bsld(sys.argv[1]), bsld(sys.argv[2])
    if a.keys() != b.keys():
        sys.exit("los_paired_swf.py: the schedules have different jobs")
    d = [a[j] - b[j] for j in sorted(a)]
    n, k = len(d), 20
    means = [sum(d[g * n // k:(g + 1) * n // k]) / ((g + 1) * n // k - g * n // k) for g in range(k)]
    m = sum(d) / n
    mm = sum(means) / k
    half = T95_19 * math.sqrt(sum((x - mm) ** 2 for x in means) / (k - 1) / k)
    print(f"{m:.1f} {m - half:.1f} {m + half:.1f}")


if __name__ == "__main__":
    main()
