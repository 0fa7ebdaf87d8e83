#!/usr/bin/env bash
# What LOS is for, live: the same jobs on a real 32-node Slurm cluster on this
# host, first under Slurm's own sched/backfill (tuned for short jobs), then under sched/los + losd
# with the policy los-sim predicts best for them, each beside los-sim's
# prediction, then the difference and a terminal plot of the waits. About eight
# minutes; leaves nothing running.
#
#   scripts/live-compare.sh [--jobs N] [--skip N] [--load L] [--compress C] [--trace FILE]
#
#   --trace     workload: an SWF trace or a los-sim model spec (default:
#               ../shared/traces/SDSC-SP2-1998-4.2-cln.swf.gz, or the same file in
#               $LOS_TRACES; without it, model:lublin:jobs=150:nodes=32:seed=3,
#               a generated workload, and --skip 0)
#   --skip, --jobs  the segment (default: 27500 and 150: of the 150-job
#               segments starting every 2,500 jobs, the one where los-sim
#               predicts the longest mean wait under easy, i.e. the highest load)
#   --load      offered load the arrivals are rescaled to (default: 0.9)
#   --compress  workload seconds per real second (default: 1000: the 150 jobs
#               arrive within about two minutes). Slurm records whole seconds and
#               whole-minute time limits, so live times are multiples of C workload
#               seconds and every limit a multiple of 60 x C; submit and run times are
#               rounded to whole real seconds before the replay, for the live run and
#               the prediction alike (los-sim replay --time-grain whole, see its --help);
#               tabu's search period (300 s) is 300 / C real seconds live, and
#               predicted with that period in workload seconds; an integer
#
# As root, after a build with the plugin (scripts/demo.sh does all of it).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
root=$(pwd)
traces="${LOS_TRACES:-$root/../shared/traces}"
trace=""
skip=""
njobs=150
load=0.9
compress=1000
while [ $# -gt 0 ]; do
  case "$1" in
    --trace) trace=${2:?--trace needs a FILE}; shift 2 ;;
    --skip) skip=${2:?--skip needs a number}; shift 2 ;;
    --jobs) njobs=${2:?--jobs needs a number}; shift 2 ;;
    --load) load=${2:?--load needs a number}; shift 2 ;;
    --compress) compress=${2:?--compress needs a number}; shift 2 ;;
    -h|--help) sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "live-compare.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ "$compress" =~ ^[1-9][0-9]*$ ]] || { echo "live-compare.sh: --compress must be a positive integer, not '$compress'" >&2; exit 2; }
if [ -z "$trace" ]; then
  trace="$traces/SDSC-SP2-1998-4.2-cln.swf.gz"
  if [ ! -f "$trace" ]; then
    echo "($trace not found: a generated Lublin-Feitelson workload instead)"
    trace="model:lublin:jobs=150:nodes=32:seed=3"
    skip=${skip:-0}
  fi
fi
skip=${skip:-27500}
export LOS_BUILD_DIR="${LOS_BUILD_DIR:-$root/build}"
sim="$LOS_BUILD_DIR/bin/los-sim"
[ -x "$sim" ] || { echo "live-compare.sh: $sim not found: build first (scripts/build.sh)" >&2; exit 1; }
[ -f "$trace" ] || [[ "$trace" == model:* ]] || { echo "live-compare.sh: workload '$trace' not found" >&2; exit 2; }
command -v python3 >/dev/null || { echo "live-compare.sh: python3 not found" >&2; exit 1; }
NODES=32
work=$(mktemp -d /tmp/los-demo.XXXXXX)
trap 'rm -rf "$work"' EXIT
# Bounded slowdown with a bound of one real second (C workload seconds): Slurm
# records whole seconds, so a short job's live run time reads 0 or C.
segment=(--cluster-nodes "$NODES" --skip "$skip" --jobs "$njobs" --load "$load" --compress "$compress" --bsld-tau "$compress")

# A policy's own clock settings are Slurm's (real) seconds live and workload
# seconds in los-sim: tabu searches every `period` seconds (300), so live it
# gets 300 / C (whole seconds, at least 1) and the prediction that times C.
tabu_period=$(((300 + compress / 2) / compress))
((tabu_period >= 1)) || tabu_period=1
live_spec() { if [ "$1" = tabu ]; then echo "tabu:period=$tabu_period"; else echo "$1"; fi; }
predicted_spec() { if [ "$1" = tabu ]; then echo "tabu:period=$((tabu_period * compress))"; else echo "$1"; fi; }

# ---- the policy: los-sim's pick for these jobs -----------------------------
echo "== los-sim's prediction for jobs $((skip + 1))-$((skip + njobs)) of $(basename "$trace"), $NODES nodes, load $load"
best="" best_wait=""
for p in easy conservative los tabu; do
  line=$("$sim" replay --dry-run --quiet "${segment[@]}" --policy "$(predicted_spec "$p")" "$trace" 2>"$work/dry.err" |
    awk '/^mean wait/ {w = $NF} /^mean bounded slowdown/ {b = $NF} END {print w, b}') ||
    { cat "$work/dry.err" >&2; exit 1; }
  read -r wait bsld <<<"$line"
  [ -n "$wait" ] || { echo "live-compare.sh: no prediction for $p: $(cat "$work/dry.err")" >&2; exit 1; }
  printf '   %-13s mean wait %6s s   mean bounded slowdown %7s\n' "$p" "$wait" "$bsld"
  if [ -z "$best" ] || [ "$wait" -lt "$best_wait" ]; then best=$p best_wait=$wait; fi
done
echo "   -> $best has the lowest predicted mean wait: it runs live against sched/backfill"
echo

# ---- one live run: SCHEDULER POLICY OUTPUT (in a subshell: the cluster goes with it)
# shellcheck disable=SC2034  # the CLUSTER_* settings are read by cluster.sh
live_run() (
  local scheduler=$1 policy=$2 out=$3
  CLUSTER_NAME=demo
  CLUSTER_PARTITION_STATE=UP
  source tests/cluster/cluster.sh
  if [ "$scheduler" = sched/backfill ]; then
    CLUSTER_SCHEDULER=sched/backfill
    # Tuned as a site would for jobs this short: at 1000x, the default
    # bf_interval (30 s) would be 8 workload hours between backfill passes.
    cluster_up $NODES "bf_continue,bf_interval=1,bf_resolution=1,bf_window=5"
  else
    cluster_up_decided_by losd "$(live_spec "$policy")" $NODES
  fi
  echo "   (squeue while it runs: SLURM_CONF=$SLURM_CONF squeue)"
  "$sim" replay "${segment[@]}" --poll 1 --name los-demo --policy "$(predicted_spec "$policy")" --format json \
    --out "$out.live.swf" "$trace" >"$out.json" || fail "los-sim replay under $scheduler failed"
)
echo "== live 1/2: Slurm's own sched/backfill (bf_continue,bf_interval=1,bf_resolution=1,bf_window=5); predicted as easy, its nearest policy"
live_run sched/backfill easy "$work/backfill" || exit 1
echo
echo "== live 2/2: sched/los + losd running $best"
live_run sched/los "$best" "$work/los" || exit 1
echo

# ---- the outcome ------------------------------------------------------------
python3 - "$work" "$best" "$compress" <<'EOF'
import json, sys
work, best, C = sys.argv[1], sys.argv[2], float(sys.argv[3])
bf, lo = (json.load(open(f"{work}/{n}.json")) for n in ("backfill", "los"))
col = lambda d, i: d["results"][i]
rows = [("mean wait (s)", "mean_wait_s", "{:.0f}"), (f"bounded slowdown ({C:g} s)", "mean_bsld", "{:.2f}"),
        ("utilization", "utilization", "{:.3f}")]
heads = ["sched/backfill live", f"sched/los {best} live", f"los-sim {best}", f"{best} as run", "los-sim easy"]
print(f"== the same {bf['results'][1]['jobs']} jobs (workload seconds)")
print(f"{'':24}" + "".join(f"{h:>22}" for h in heads))
for name, key, fmt in rows:
    vals = [col(bf, 1)[key], col(lo, 1)[key], col(lo, 0)[key], col(lo, 2)[key], col(bf, 0)[key]]
    print(f"{name:24}" + "".join(f"{fmt.format(v):>22}" for v in vals))
pct = lambda a, b: 100.0 * (a - b) / b if b else 0.0
wb, wl = col(bf, 1)["mean_wait_s"], col(lo, 1)["mean_wait_s"]
bb, bl = col(bf, 1)["mean_bsld"], col(lo, 1)["mean_bsld"]
print()
print(f"sched/los {best} against sched/backfill, live: mean wait {pct(wl, wb):+.0f} %, "
      f"mean bounded slowdown {pct(bl, bb):+.0f} %")
e = lo["replay"]["error_percent"]
print(f"live sched/los {best} against los-sim's prediction: mean wait {e['mean_wait']:+.0f} %, "
      f"mean bounded slowdown {e['mean_bounded_slowdown']:+.0f} %")
a = lo["replay"]["error_percent_vs_as_run"]
print(f"  of which the live run times alone ('as run': los-sim {best} with each job's live end - start): "
      f"mean wait {pct(col(lo, 2)['mean_wait_s'], col(lo, 0)['mean_wait_s']):+.0f} %; live against as run "
      f"{a['mean_wait']:+.0f} %")
print(f"(one real second is {C:g} workload seconds: the ~0.5 s it takes Slurm to launch and end a job and the "
      f"time a submission or completion waits for the scheduler's next cycle count x{C:g}: "
      "docs/results/live.md measures them)")

# Terminal plot: each job's wait against its submit time, both runs.
def swf(path):
    out = []
    for line in open(path):
        if line.startswith(";") or not line.strip():
            continue
        f = line.split()
        out.append((int(f[1]), int(f[2])))
    return out
series = [("b", "sched/backfill", swf(f"{work}/backfill.live.swf")), ("L", f"sched/los {best}", swf(f"{work}/los.live.swf"))]
W, H = 72, 16
tmax = max(s for _, _, pts in series for s, _ in pts) or 1
wmax = max(w for _, _, pts in series for _, w in pts) or 1
grid = [[" "] * W for _ in range(H)]
for mark, _, pts in series:
    for s, w in pts:
        x = min(W - 1, int(s / tmax * (W - 1)))
        y = min(H - 1, int(w / wmax * (H - 1)))
        cell = grid[H - 1 - y][x]
        grid[H - 1 - y][x] = mark if cell in (" ", mark) else "*"
print()
print(f"wait of each job (hours) against its submit time; b = sched/backfill, L = sched/los {best}, * = both")
for r, row in enumerate(grid):
    label = f"{wmax * (H - 1 - r) / (H - 1) / 3600:5.1f} |" if r % 5 == 0 or r == H - 1 else "      |"
    print(label + "".join(row))
print("      +" + "-" * W)
print(f"       0{'submit time (hours)':^{W - 12}}{tmax / 3600:.0f}")
EOF
echo
echo "both clusters stopped; nothing left running"
