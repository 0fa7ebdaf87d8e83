#!/usr/bin/env bash
# The dashboards and alert rules of conf/ against real data: a real Slurm
# cluster scheduled by losd (easy), scraped every second by a real Prometheus
# (Debian's, our own instance on a free port with a temporary TSDB, run with
# conf/prometheus/prometheus.yml and its rule file). While a small workload
# runs and after it, every panel's PromQL, taken from conf/grafana/*.json,
# goes through Prometheus's HTTP API: each query must succeed and return
# series, and each panel must show at least one number (not NaN). The alert
# rules must pass promtool (check and their unit tests, los-alerts.test.yml)
# and evaluate in Prometheus without error; every
# dashboard must type-check against Grafana's published dashboard model
# (@grafana/schema). And the plugin's fallback flag (SNAPSHOT bit 1) reaches
# los_plugin_fallback: losd started after the plugin fell back shows 1 until
# the plugin's next cycle, then 0.
set -uo pipefail
source "$(dirname "$0")/cluster.sh"

SRC="$(cd "$(dirname "$0")/../.." && pwd)"
SCHEMA_DIR="${LOS_GRAFANA_SCHEMA_DIR:-/var/cache/los/grafana-schema}"

for tool in prometheus promtool node python3; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool missing (packaging/install-deps.sh)" >&2; exit 77; }
done
for pkg in @grafana/schema typescript; do
  [ -f "$SCHEMA_DIR/node_modules/$pkg/package.json" ] ||
    { echo "SKIP: $pkg missing in $SCHEMA_DIR (packaging/install-deps.sh)" >&2; exit 77; }
done

# ---- static checks: promtool ----------------------------------------------
promtool check rules "$SRC/conf/prometheus/los-alerts.yml" >/dev/null || fail "promtool check rules"
promtool check config "$SRC/conf/prometheus/prometheus.yml" >/dev/null || fail "promtool check config"
# The alerts fire on the synthetic series they are meant for, and only then.
out="$(promtool test rules "$SRC/conf/prometheus/los-alerts.test.yml" 2>&1)" ||
  fail "promtool test rules:"$'\n'"$out"

CLUSTER_PARTITION_STATE=UP cluster_up 4 "los_fallback=easy"

# ---- Grafana's dashboard model ----------------------------------------------
# @grafana/schema ships the dashboard JSON model as TypeScript types (no JSON
# Schema): each dashboard, as an object literal typed Dashboard, must compile
# under tsc --strict. That checks every key's name and type down to panels,
# grid positions, field config, templating and data source references
# (unknown keys are errors); panel options and query targets are free-form
# in the model (Record<string, unknown>) and so are not checked.
ts="$CLUSTER_DIR/grafana-schema"
mkdir -p "$ts"
ln -s "$SCHEMA_DIR/node_modules" "$ts/node_modules"
dashboards=("$SRC"/conf/grafana/*.json)
[ ${#dashboards[@]} -ge 4 ] || fail "expected the 4 dashboards in conf/grafana, found ${#dashboards[@]}"
for f in "${dashboards[@]}"; do
  { echo "import type { Dashboard } from '@grafana/schema';"
    echo "export const dashboard: Dashboard = "
    cat "$f"
    echo ";"; } >"$ts/$(basename "$f" .json).ts"
done
cat >"$ts/tsconfig.json" <<'EOF'
{"compilerOptions": {"strict": true, "noEmit": true, "module": "esnext", "moduleResolution": "bundler",
 "target": "es2020", "skipLibCheck": true, "types": []}, "include": ["*.ts"]}
EOF
out="$(cd "$ts" && node node_modules/typescript/bin/tsc -p . 2>&1)" ||
  fail "dashboards do not match @grafana/schema's Dashboard:"$'\n'"$out"
log "${#dashboards[@]} dashboards match @grafana/schema $(sed -n 's/.*"version": "\(.*\)".*/\1/p' "$SCHEMA_DIR/node_modules/@grafana/schema/package.json")"

# ---- the fallback flag, end to end -----------------------------------------
metrics_port="$(free_port_range 1)" || fail "no free port for losd's metrics"
wait_log "unusable .* scheduling by the 'easy' fallback" 0 30 >/dev/null
LOSD_METRICS="127.0.0.1:$metrics_port" losd_start easy
# Read after losd's first snapshot (its time gauge appears then; the flag is
# recorded just before it): a connection alone may be scraped before that.
seen=""
for _ in $(seq 1 100); do
  m="$(curl -sf "http://127.0.0.1:$metrics_port/metrics")"
  if grep -q "^los_last_snapshot_timestamp_seconds " <<<"$m"; then
    seen="$(grep -x "los_plugin_fallback [01]" <<<"$m")"
    break
  fi
  sleep 0.1
done
[ "$seen" = "los_plugin_fallback 1" ] ||
  fail "after the fallback's cycles, losd's first snapshot should set los_plugin_fallback (got '$seen')"

# ---- our Prometheus ----------------------------------------------------------
prom_port="$(free_port_range 1)" || fail "no free port for Prometheus"
prom="http://127.0.0.1:$prom_port"
sed -e "s/scrape_interval: 15s/scrape_interval: 1s/" -e "s/evaluation_interval: 15s/evaluation_interval: 1s/" \
  -e "s|- los-alerts.yml|- $SRC/conf/prometheus/los-alerts.yml|" -e "s/127.0.0.1:9464/127.0.0.1:$metrics_port/" \
  "$SRC/conf/prometheus/prometheus.yml" >"$CLUSTER_DIR/prometheus.yml"
for want in "scrape_interval: 1s" "evaluation_interval: 1s" "$SRC/conf/prometheus/los-alerts.yml" \
  "127.0.0.1:$metrics_port"; do
  grep -qF "$want" "$CLUSTER_DIR/prometheus.yml" || fail "conf/prometheus/prometheus.yml changed: cannot set '$want'"
done
prometheus --config.file="$CLUSTER_DIR/prometheus.yml" --storage.tsdb.path="$CLUSTER_DIR/prometheus-data" \
  --web.listen-address="127.0.0.1:$prom_port" --log.level=warn >"$CLUSTER_DIR/prometheus.log" 2>&1 &
PROM_PID=$!
echo "$PROM_PID" >"$CLUSTER_DIR/pids/prometheus"
prometheus_stop() {
  [ -n "${PROM_PID:-}" ] || return 0
  kill "$PROM_PID" 2>/dev/null
  wait "$PROM_PID" 2>/dev/null
  PROM_PID=""
}
trap 'rc=$?; prometheus_stop; (exit $rc); cluster_teardown' EXIT

# promql EXPR: the /api/v1/query answer (JSON) at this instant.
promql() { curl -sf -G "$prom/api/v1/query" --data-urlencode "query=$1"; }
# wait_promql EXPR TIMEOUT: until EXPR returns a sample.
wait_promql() {
  local deadline=$((SECONDS + $2))
  until promql "$1" | grep -q '"value"'; do
    [ $SECONDS -lt $deadline ] || fail "Prometheus: no sample of '$1' within $2 s (see prometheus.log)"
    sleep 0.5
  done
}
wait_promql 'up{job="losd"} == 1' 30
log "Prometheus on port $prom_port scrapes losd on $metrics_port"

# ---- the workload: waits, a reservation, ends --------------------------------
# 4 nodes: three 1-node jobs, a 4-node job behind them (easy reserves its
# start at their limits; it starts earlier, when they end), two more 1-node
# jobs (one backfills).
ids=()
for i in 1 2 3; do ids+=("$(submit a$i 1 1 4)"); done
ids+=("$(submit wide 4 1 2)")
for i in 1 2; do ids+=("$(submit b$i 1 1 3)"); done
wait_all_done 120
check_completed_once "${ids[@]}"
# Until Prometheus has scraped the snapshot that saw the last job end.
wait_promql "sum(los_job_bounded_slowdown_count) >= ${#ids[@]}" 40
wait_promql 'sum(los_start_prediction_error_seconds_count) >= 1' 10
wait_promql 'los_plugin_fallback == 0' 10
# Each job's wait counted once; the snapshot time is the controller's clock.
wait_promql "sum(los_job_wait_seconds_count) == ${#ids[@]}" 10
wait_promql 'abs(time() - los_last_snapshot_timestamp_seconds) < 60' 10

# ---- every panel's queries ---------------------------------------------------
# Grafana's own variables, as Grafana would send them for this range:
# $__rate_interval a window over the whole run, $partition "All" (.*).
PROM="$prom" python3 - "${dashboards[@]}" <<'EOF' || fail "dashboard queries without data (above)"
import json, math, os, sys, urllib.parse, urllib.request

prom = os.environ["PROM"]

def query(expr):
    url = prom + "/api/v1/query?" + urllib.parse.urlencode({"query": expr})
    with urllib.request.urlopen(url, timeout=30) as r:
        return json.load(r)

def panels(items):
    for p in items:
        yield p
        yield from panels(p.get("panels", []))

failures, queries, shown = [], 0, 0
for path in sys.argv[1:]:
    board = json.load(open(path))
    for p in panels(board["panels"]):
        if p.get("type") == "row":
            continue
        where = f'{os.path.basename(path)}: panel "{p.get("title")}"'
        targets = [t for t in p.get("targets", []) if t.get("expr")]
        if not targets:
            failures.append(f"{where}: no PromQL target")
            continue
        numbers = 0
        for t in targets:
            expr = t["expr"].replace("$__rate_interval", "5m").replace("$partition", ".*")
            queries += 1
            answer = query(expr)
            result = answer.get("data", {}).get("result", [])
            if answer.get("status") != "success" or not result:
                failures.append(f"{where} {t['refId']}: no data from {expr} ({answer.get('error', 'empty result')})")
                continue
            numbers += sum(1 for s in result if not math.isnan(float(s["value"][1])))
        if targets and numbers == 0:
            failures.append(f"{where}: no number (only NaN or no series) among its queries")
        shown += 1
    for v in board.get("templating", {}).get("list", []):
        if v.get("type") != "query":
            continue
        metric = v["query"]["query"].split("(")[1].split(",")[0].strip()
        label = v["query"]["query"].split(",")[1].rstrip(")").strip()
        url = f"{prom}/api/v1/label/{label}/values?" + urllib.parse.urlencode({"match[]": metric})
        with urllib.request.urlopen(url, timeout=30) as r:
            if not json.load(r)["data"]:
                failures.append(f"{os.path.basename(path)}: variable {v['name']} has no values")
for f in failures:
    print("FAIL:", f, file=sys.stderr)
print(f"{shown} panels, {queries} queries in {len(sys.argv) - 1} dashboards: "
      f"{'all returned data' if not failures else str(len(failures)) + ' failures'}", file=sys.stderr)
sys.exit(1 if failures else 0)
EOF

# ---- the alert rules, as Prometheus evaluated them ---------------------------
PROM="$prom" python3 - <<'EOF' || fail "alert rules (above)"
import json, os, sys, urllib.request
with urllib.request.urlopen(os.environ["PROM"] + "/api/v1/rules", timeout=30) as r:
    groups = json.load(r)["data"]["groups"]
rules = [rule for g in groups for rule in g["rules"]]
bad = [f"{r['name']}: health {r['health']} {r.get('lastError', '')}" for r in rules if r["health"] != "ok"]
firing = [r["name"] for r in rules if r.get("state") not in ("inactive", None)]
names = sorted(r["name"] for r in rules)
print(f"alert rules loaded and evaluated: {', '.join(names)}", file=sys.stderr)
for b in bad:
    print("FAIL:", b, file=sys.stderr)
if firing:
    print("FAIL: alerts pending or firing while losd serves the plugin:", ", ".join(firing), file=sys.stderr)
sys.exit(1 if bad or firing or len(rules) < 4 else 0)
EOF
log "PASS"
