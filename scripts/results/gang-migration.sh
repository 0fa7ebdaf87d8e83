#!/usr/bin/env bash
# Regenerates docs/results/gang-migration.md: GS, BGS, MGS, MBGS and
# conservative backfilling (BF) on two 320-node stand-ins for the workload of
# the gang-scheduling paper (spec: ../shared/specs/gang-migration.md), loads
# varied by run-time scaling x1.0 .. x1.8 with arrivals fixed.
#
#   A  lublin_256 (10,000 Lublin-Feitelson jobs, sizes 1..256), run times x5
#      (median 137 s -> 685 s; the paper's median is 680 s). Full grid.
#   B  KTH-SP2, first 10,000 jobs (real estimates, median 630 s, sizes 1..100).
#      Context switch 0 % only.
#   A-Phi  the project's Lublin-Feitelson generator (model:lublin, 10,000 jobs,
#      256-node sizes, seed 1) with the paper's Phi model of user estimates
#      (estimates=phi): Phi = 0.2 (the paper's setting for Table 1 and Figs.
#      9-15) with the reduced grid plus the Fig. 15 migration runs, and
#      Phi = 0.5 and 1.0 for BF and BGS-5 (the Phi sweeps of Figs. 5 and 8).
#      Run times x5 as in A. Also at Phi = 0.2: BF with its simulated schedules
#      (--schedule-out), for Fig. 6's estimate-quality classes, and MGS/MBGS
#      (MPL 5, context switch 0) at migration cost C = 10 and 30 s for Q = 0, 8,
#      16, 32, 64, 128 and unlimited, workloads 2 and 5 only (Fig. 14).
#      Fig. 8 ablation: BGS-5 (context switch 0) at Phi = 0.2 and 1.0 with the
#      row hold of the plan at plan_factor x estimate for 1, 2, 4, 6, 10 besides
#      the default MPL (= 5), with the plan's counters (stats: compressions,
#      early ends, hold overruns) kept in BUILD_DIR/gang-migration-json.
# BGS and MBGS (MPL 5, context switch 0, C = 0) also run with plan=rebuild (the
# spec's default; the policy's default is plan=keep) on A, B and A-Phi 0.2.
# All on 320 nodes, arrivals rescaled once so that workload 0 offers 0.55 (the
# paper's baseline). Workload k multiplies run times by F = 1 + 0.1k: los-sim
# --runtime-scale BASE*F --load 0.55F, where the load rescaling stretches the
# arrivals by the same factor for every F.
#
# Usage: scripts/results/gang-migration.sh [BUILD_DIR]   (default: build)
# Needs a Release build (cmake -S . -B build -DCMAKE_BUILD_TYPE=Release &&
# cmake --build build -j2) and ../shared/traces. Runs two simulations at a
# time under nice; 5 to 30 minutes on the shared 2-core machine, depending on
# its load (325 s, 421 s and 1706 s measured; 528 s once the Fig. 8 ablation,
# 128 s of it, was added), of which Figs. 6 and 14 take
# under a minute (36 s and 60 s in the first two). The raw los-sim JSON and the Fig. 6
# schedules stay in BUILD_DIR/gang-migration-json (not committed).
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${1:-build}"
sim="$build/bin/los-sim"
traces="../shared/traces"
out="docs/results/gang-migration.md"
[[ -x "$sim" ]] || { echo "gang-migration.sh: $sim not found; build first (see the header of this script)" >&2; exit 1; }
for t in lublin_256 KTH-SP2-1996-2.1-cln; do
  [[ -f "$traces/$t.swf.gz" ]] || { echo "gang-migration.sh: $traces/$t.swf.gz not found (the shared traces are needed)" >&2; exit 1; }
done
python3 scripts/results/gang_migration_report.py --self-test  # fails fast if the report's own checks fail
json="$build/gang-migration-json"

full="conservative"
for t in gang bgs; do
  for mpl in 2 3 5; do
    for cs in 0 1 2 5; do full+=",$t:mpl=$mpl:cs=$cs"; done
  done
done
full+=",mgs:mpl=5:c=0:q=-1,mbgs:mpl=5:c=0:q=-1,mgs:mpl=5:c=10:q=64,mbgs:mpl=5:c=10:q=64"
reduced="conservative,gang:mpl=2:cs=0,gang:mpl=3:cs=0,gang:mpl=5:cs=0,bgs:mpl=2:cs=0,bgs:mpl=3:cs=0,bgs:mpl=5:cs=0"
reduced+=",mgs:mpl=5:c=0:q=-1,mbgs:mpl=5:c=0:q=-1"
rebuild="bgs:mpl=5:cs=0:plan=rebuild,mbgs:mpl=5:c=0:q=-1:plan=rebuild"
full+=",$rebuild"
phi_main="$reduced,mgs:mpl=5:c=10:q=64,mbgs:mpl=5:c=10:q=64,$rebuild"
phi_sweep="conservative,bgs:mpl=5:cs=0"
# Fig. 14: the Q grid is our choice (the paper names only Q = 0, no migration, and 64).
fig14=""
for t in mgs mbgs; do
  for c in 10 30; do
    for q in 0 8 16 32 64 128 -1; do fig14+=",$t:mpl=5:cs=0:c=$c:q=$q"; done
  done
done
fig14=${fig14#,}
# Fig. 8 ablation: the default (plan_factor=0, MPL x estimate) first, so that
# los-sim's paired comparisons are against it.
fig8_plan="bgs:mpl=5:cs=0:stats"
for f in 1 2 4 6 10; do fig8_plan+=",bgs:mpl=5:cs=0:stats:plan_factor=$f"; done
# The A-Phi jobs: the model's 256-node jobs written to a file, so that --nodes
# 320 puts them on the 320-node machine as it does A's trace (a model's own
# machine cannot be enlarged under its jobs; los-sim refuses both).
mkdir -p "$json"
phi_model() {
  local f="$json/lublin-256-phi$1.swf"
  "$sim" generate "lublin:jobs=10000:nodes=256:seed=1:estimates=phi:phi=$1" -o "$f" >/dev/null
  echo "$f"
}

# grid NAME TRACE BASE_SCALE JOBS POLICIES [WORKLOADS [schedules|stats]]
# WORKLOADS: the workload numbers to run (default 0..8); "schedules" also writes
# each simulated schedule to w<k>.swf (one policy only, so one file); "stats"
# keeps los-sim's stderr (the policies' stats lines) in w<k>.stats.
grid() {
  local name=$1 trace=$2 base=$3 jobs=$4 policies=$5 workloads=${6:-0 1 2 3 4 5 6 7 8} schedules=${7:-}
  mkdir -p "$json/$name"
  for k in $workloads; do echo "$k"; done | xargs -P 2 -I{} bash -c '
    k={}; f=$(python3 -c "print(round(1 + 0.1 * $k, 1))")
    rs=$(python3 -c "print($3 * $f)"); ld=$(python3 -c "print(0.55 * $f)")
    extra=(); [[ "$7" == schedules ]] && extra=(--schedule-out "$5/w$k.swf")
    err=/dev/stderr; [[ "$7" == stats ]] && err="$5/w$k.stats"
    nice "$0" --quiet --nodes 320 --jobs "$4" --runtime-scale "$rs" --load "$ld" --policy "$1" "${extra[@]}" \
      --format json "$2" > "$5/w$k.json" 2> "$err"
    echo "$6: workload $k (x$f) done" >&2' "$sim" "$policies" "$trace" "$base" "$jobs" "$json/$name" "$name" "$schedules"
}

start=$(date +%s)
grid lublin "$traces/lublin_256.swf.gz" 5 10000 "$full"
grid kth "$traces/KTH-SP2-1996-2.1-cln.swf.gz" 1 10000 "$reduced,$rebuild"
grid phi0.2 "$(phi_model 0.2)" 5 10000 "$phi_main"
figs_start=$(date +%s)
grid phi0.2-fig6 "$(phi_model 0.2)" 5 10000 conservative "0 1 2 3 4 5 6 7 8" schedules
grid phi0.2-fig14 "$(phi_model 0.2)" 5 10000 "$fig14" "2 5"
figs_elapsed=$(( $(date +%s) - figs_start ))
grid phi0.5 "$(phi_model 0.5)" 5 10000 "$phi_sweep"
grid phi1.0 "$(phi_model 1.0)" 5 10000 "$phi_sweep"
fig8_start=$(date +%s)
grid phi0.2-fig8plan "$(phi_model 0.2)" 5 10000 "$fig8_plan" "0 1 2 3 4 5 6 7 8" stats
grid phi1.0-fig8plan "$(phi_model 1.0)" 5 10000 "$fig8_plan" "0 1 2 3 4 5 6 7 8" stats
fig8_elapsed=$(( $(date +%s) - fig8_start ))
elapsed=$(( $(date +%s) - start ))
command="scripts/results/gang-migration.sh"
python3 scripts/results/gang_migration_report.py "$json" "$elapsed" "$command" "$figs_elapsed" "$fig8_elapsed" > "$out"
echo "wrote $out in ${elapsed} s (Figs. 6 and 14: ${figs_elapsed} s, Fig. 8 ablation: ${fig8_elapsed} s)" >&2
