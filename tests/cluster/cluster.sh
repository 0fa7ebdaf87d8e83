#!/usr/bin/env bash
# A real Slurm cluster on localhost for the sched/los tests and the live demo:
# one slurmctld and N slurmd (Debian's slurmd is built with
# --enable-multiple-slurmd), auth/none, select/linear, a temporary state
# directory and free ports, with SchedulerType=sched/los and, optionally,
# losd. Source this file; then
#
#   cluster_up NODES "EXTRA_SCHED_PARAMS"   # e.g. cluster_up 16 "los_fallback=fifo"
#                                          # (CLUSTER_SCHEDULER=sched/backfill for a comparison)
#   losd_start POLICY                      # losd for every partition (easy, conservative, ...)
#   losd_stop                              # SIGKILL, as a crash would
#   slurmctld_restart                      # SIGTERM, start again, wait for it
#   (CLUSTER_CTLD_PREFIX / LOSD_PREFIX: a wrapper command for slurmctld / losd)
#   submit NAME NODES MINUTES SECONDS      # a sleep job; prints its job id
#   ...
#
# and check the run from Slurm's own records (check_completed_once,
# check_no_overlap, start_time/end_time, assert_started_together, ...).
#
# CLUSTER_ACCOUNTING=1 cluster_up ...: with Slurm accounting, for QOS and
# association limits: a private MariaDB server and slurmdbd in the cluster's
# directory, AccountingStorageEnforce=associations,limits,qos, and the cluster,
# account $CLUSTER_ACCOUNT and user root registered before slurmctld starts,
# then the sacctmgr commands in CLUSTER_SACCTMGR (one a line; QOS, limits), so
# that slurmctld starts knowing them.
#
# Everything it starts is torn down on exit, however the script ends (an
# EXIT trap, plus a watchdog that outlives a SIGKILLed test). Logs of a
# failed run are kept in $LOS_CLUSTER_KEEP (default build/cluster-logs).
#
# Needs: root, slurmctld/slurmd/scontrol/sbatch/squeue, LOS_BUILD_DIR with
# lib/sched_los.so and bin/losd.

set -uo pipefail

LOS_BUILD_DIR="${LOS_BUILD_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build}"
LOS_SLURM_PLUGIN_DIR="${LOS_SLURM_PLUGIN_DIR:-/usr/lib/x86_64-linux-gnu/slurm-wlm}"
CLUSTER_DIR=""
CLUSTER_PIDS=()
LOSD_PID=""
CLUSTER_NODES=0
CLUSTER_FAILED=0
CLUSTER_NAME="${CLUSTER_NAME:-test}"
# The scheduler plugin (benchmarks compare with sched/backfill).
CLUSTER_SCHEDULER="${CLUSTER_SCHEDULER:-sched/los}"
# Partition state at start: DOWN (jobs queue, nothing starts until partition_up) or UP.
CLUSTER_PARTITION_STATE="${CLUSTER_PARTITION_STATE:-DOWN}"
# More settings of partition batch (e.g. "OverSubscribe=FORCE:2" for a
# time-sliced gang partition, docs/gang-live.md); none by default.
CLUSTER_PARTITION_OPTS="${CLUSTER_PARTITION_OPTS:-}"
# Accounting (slurmdbd + MariaDB): off unless CLUSTER_ACCOUNTING=1.
CLUSTER_ACCOUNTING="${CLUSTER_ACCOUNTING:-0}"
CLUSTER_ACCOUNT="${CLUSTER_ACCOUNT:-los}"
MARIADB_PID=""
SLURMDBD_PID=""

log() { echo "[$(date +%H:%M:%S)] $*" >&2; }
fail() {
  CLUSTER_FAILED=1
  echo "FAIL: $*" >&2
  exit 1
}

# A run of `count` consecutive free TCP ports; prints the first. The run lies
# below the kernel's ephemeral range (ip_local_port_range): a port in that range
# can be taken by any outgoing connection (slurmctld's to a slurmd, a client's)
# between this check and the daemon's bind, and that slurmd then never comes up.
free_port_range() {
  local count=$1 base p busy lo=32768 hi=60999 low=10000 span
  local used
  read -r lo hi </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || true
  span=$((lo - count - low))
  if [ "$span" -lt 1000 ]; then # an unusual ephemeral range: above it, or anywhere
    low=$((hi + 1)) span=$((65535 - count - hi))
    [ "$span" -ge 1000 ] || { low=10000 span=$((65535 - count - low)); }
  fi
  used="$(ss -Htan 2>/dev/null | awk '{print $4}' | sed 's/.*://' | sort -un)"
  for _ in $(seq 1 200); do
    base=$((low + (RANDOM * 32768 + RANDOM) % span))
    busy=0
    for ((p = base; p < base + count; p++)); do
      if grep -qx "$p" <<<"$used"; then busy=1; break; fi
    done
    [ $busy -eq 0 ] && { echo "$base"; return 0; }
  done
  return 1
}

cluster_teardown() {
  local rc=$?
  [ -n "$CLUSTER_DIR" ] || return 0
  if [ -n "${SLURM_CONF:-}" ] && [ -f "$SLURM_CONF" ]; then
    # Jobs first: their slurmstepd outlive slurmd by design.
    if [ -n "$(timeout 5 squeue -h -o %i 2>/dev/null)" ]; then
      timeout 10 scancel --quiet $(timeout 5 squeue -h -o %i 2>/dev/null) >/dev/null 2>&1 || true
      local until=$((SECONDS + 15))
      while [ -n "$(timeout 5 squeue -h -o %i 2>/dev/null)" ] && [ $SECONDS -lt $until ]; do sleep 0.5; done
    fi
    timeout 10 scontrol shutdown >/dev/null 2>&1 || true
  fi
  losd_stop quiet
  local pid deadline=$((SECONDS + 15))
  for pid in "${CLUSTER_PIDS[@]}"; do
    while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
    kill -9 "$pid" 2>/dev/null || true
  done
  accounting_down
  wait 2>/dev/null || true
  if [ $rc -ne 0 ] || [ $CLUSTER_FAILED -ne 0 ] || [ "${LOS_CLUSTER_KEEP_ALWAYS:-0}" = 1 ]; then
    local keep="${LOS_CLUSTER_KEEP:-$LOS_BUILD_DIR/cluster-logs}/$(basename "$CLUSTER_DIR")"
    mkdir -p "$keep"
    cp -r "$CLUSTER_DIR"/*.log "$CLUSTER_DIR"/*.conf "$CLUSTER_DIR"/*.yaml "$CLUSTER_DIR"/jobcomp.txt "$keep"/ 2>/dev/null || true
    echo "cluster logs kept in $keep" >&2
  fi
  rm -rf "$CLUSTER_DIR"
  CLUSTER_DIR=""
  CLUSTER_PIDS=()
}

# ---- accounting: a private MariaDB and slurmdbd (CLUSTER_ACCOUNTING=1) ----

# accounting_up DBD_PORT: MariaDB (its own datadir and socket, no TCP) and
# slurmdbd on DBD_PORT, then the cluster, account and user registered and
# CLUSTER_SACCTMGR run. Call once slurm.conf is written, before slurmctld starts.
accounting_up() {
  local dbd_port=$1 tool
  for tool in mariadb-install-db mariadbd mariadb slurmdbd sacctmgr; do
    command -v "$tool" >/dev/null || {
      echo "SKIP: the accounting mode needs $tool (mariadb-server, slurmdbd: packaging/install-deps.sh)" >&2
      exit 77
    }
  done
  id mysql >/dev/null 2>&1 || fail "no user mysql to run MariaDB as (mariadb-server creates it)"
  local db="$CLUSTER_DIR/db" deadline since=$SECONDS
  mkdir -p "$db/data"
  touch "$CLUSTER_DIR/mariadb.log"
  chown -R mysql:mysql "$db" "$CLUSTER_DIR/mariadb.log"
  # Small files and no syncs: a throw-away database that starts in seconds.
  local fast=(--innodb-buffer-pool-size=16M --innodb-log-file-size=4M --innodb-data-file-path=ibdata1:4M:autoextend
    --innodb-flush-log-at-trx-commit=0 --innodb-doublewrite=0 --innodb-flush-method=nosync)
  mariadb-install-db --no-defaults --datadir="$db/data" --user=mysql --auth-root-authentication-method=socket \
    --skip-test-db --skip-name-resolve "${fast[@]}" >"$CLUSTER_DIR/mariadb-install.log" 2>&1 \
    || fail "mariadb-install-db failed: $(tail -3 "$CLUSTER_DIR/mariadb-install.log")"
  # No TCP: slurmdbd reaches it on the socket (MYSQL_UNIX_PORT) as root, whom
  # MariaDB's unix_socket plugin authenticates (no password, no skipped grants).
  mariadbd --no-defaults --user=mysql --datadir="$db/data" --socket="$db/mysqld.sock" --skip-networking \
    --pid-file="$db/mysqld.pid" --log-error="$CLUSTER_DIR/mariadb.log" --skip-name-resolve --skip-log-bin \
    "${fast[@]}" >/dev/null 2>&1 &
  MARIADB_PID=$!
  echo $MARIADB_PID >"$CLUSTER_DIR/pids/mariadbd"
  deadline=$((SECONDS + 60))
  until mariadb --no-defaults -S "$db/mysqld.sock" -u root -e "select 1" >/dev/null 2>&1; do
    kill -0 "$MARIADB_PID" 2>/dev/null || fail "mariadbd exited at start: $(tail -3 "$CLUSTER_DIR/mariadb.log")"
    [ $SECONDS -lt $deadline ] || fail "MariaDB did not answer within 60 s"
    sleep 0.2
  done
  # slurmdbd reads slurmdbd.conf beside $SLURM_CONF; it must be 0600.
  cat >"$CLUSTER_DIR/slurmdbd.conf" <<EOF
AuthType=auth/none
DbdHost=localhost
DbdPort=$dbd_port
SlurmUser=root
DebugLevel=info
LogFile=$CLUSTER_DIR/slurmdbd.log
PidFile=$CLUSTER_DIR/slurmdbd.pid
StorageType=accounting_storage/mysql
StorageHost=localhost
StorageUser=root
StorageLoc=slurm_acct_db
EOF
  chmod 600 "$CLUSTER_DIR/slurmdbd.conf"
  MYSQL_UNIX_PORT="$db/mysqld.sock" slurmdbd -D >"$CLUSTER_DIR/slurmdbd.out.log" 2>&1 &
  SLURMDBD_PID=$!
  echo $SLURMDBD_PID >"$CLUSTER_DIR/pids/slurmdbd"
  deadline=$((SECONDS + 60))
  until ss -Htln "sport = :$dbd_port" 2>/dev/null | grep -q .; do
    kill -0 "$SLURMDBD_PID" 2>/dev/null || fail "slurmdbd exited at start: $(tail -3 "$CLUSTER_DIR/slurmdbd.log" 2>/dev/null)"
    [ $SECONDS -lt $deadline ] || fail "slurmdbd did not listen on port $dbd_port within 60 s"
    sleep 0.2
  done
  # one sacctmgr reading its commands from stdin: non-zero if any failed
  printf '%s\n' "add cluster $CLUSTER_NAME" "add account $CLUSTER_ACCOUNT" \
    "add user root account=$CLUSTER_ACCOUNT defaultaccount=$CLUSTER_ACCOUNT" "${CLUSTER_SACCTMGR:-}" \
    | sacctmgr -i >"$CLUSTER_DIR/sacctmgr.log" 2>&1 \
    || fail "sacctmgr failed to register the cluster or run CLUSTER_SACCTMGR: $(grep -v '^ ' "$CLUSTER_DIR/sacctmgr.log" | tail -4)"
  log "accounting up in $((SECONDS - since)) s: slurmdbd port $dbd_port, MariaDB on $db/mysqld.sock"
}

# slurmdbd first (it writes to the database), then MariaDB; SIGKILL after 10 s.
accounting_down() {
  local pid deadline
  for pid in "$SLURMDBD_PID" "$MARIADB_PID"; do
    [ -n "$pid" ] || continue
    kill "$pid" 2>/dev/null || true
    deadline=$((SECONDS + 10))
    while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  SLURMDBD_PID=""
  MARIADB_PID=""
}

# cluster_up NODES [EXTRA_SCHEDULER_PARAMETERS]
cluster_up() {
  local nodes=$1 extra="${2:-}"
  # Without root or Slurm this host cannot run a cluster: skip (ctest's
  # SKIP_RETURN_CODE 77), loudly. scripts/test.sh installs both.
  if [ "$(id -u)" -ne 0 ] || ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null; then
    echo "SKIP: the live-cluster tests need root and slurmctld/slurmd (packaging/install-deps.sh)" >&2
    exit 77
  fi
  [ -f "$LOS_BUILD_DIR/lib/sched_los.so" ] || fail "$LOS_BUILD_DIR/lib/sched_los.so missing: build with LOS_BUILD_PLUGIN=ON"
  [ -x "$LOS_BUILD_DIR/bin/losd" ] || fail "$LOS_BUILD_DIR/bin/losd missing"
  CLUSTER_NODES=$nodes
  CLUSTER_DIR="$(mktemp -d /tmp/los-cluster.XXXXXX)"
  chmod 755 "$CLUSTER_DIR"
  trap cluster_teardown EXIT
  trap 'exit 130' INT TERM
  # The watchdog: if this shell dies without running its trap (SIGKILL from a
  # test timeout), end the daemons it started.
  local me=$$ dir="$CLUSTER_DIR"
  (
    trap '' INT TERM
    while kill -0 "$me" 2>/dev/null && [ -d "$dir" ]; do sleep 1; done
    if [ -d "$dir" ]; then
      for f in "$dir"/pids/*; do [ -f "$f" ] && kill -9 "$(cat "$f")" 2>/dev/null; done
      rm -rf "$dir"
    fi
  ) >/dev/null 2>&1 &
  disown

  local base accounting_conf="AccountingStorageType=accounting_storage/none"
  # with accounting, slurmdbd's port follows the nodes'
  base="$(free_port_range $((nodes + 1 + (CLUSTER_ACCOUNTING == 1))))" || fail "no free port range"
  if [ "$CLUSTER_ACCOUNTING" = 1 ]; then
    accounting_conf="AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStoragePort=$((base + nodes + 1))
AccountingStorageEnforce=associations,limits,qos"
  fi
  mkdir -p "$CLUSTER_DIR"/{state,spool,out,pids}
  CLUSTER_SOCKET="$CLUSTER_DIR/losd-plugin.sock"
  if [ "$CLUSTER_SCHEDULER" = sched/los ]; then
    # CLUSTER_SCHED_BASE replaces sched_interval=-1,defer (the test of the warning).
    # defer: srun/salloc are allocated by the cycles, not at submission.
    CLUSTER_SCHED_PARAMS="${CLUSTER_SCHED_BASE-sched_interval=-1,defer},los_socket=$CLUSTER_SOCKET,los_query_socket=$CLUSTER_DIR/losd-query.sock,los_timeout_ms=1000,los_reconnect_max_ms=1000,los_poll_ms=50${extra:+,$extra}"
  else
    CLUSTER_SCHED_PARAMS="$extra"
  fi
  cat >"$CLUSTER_DIR/slurm.conf" <<EOF
ClusterName=$CLUSTER_NAME
SlurmctldHost=localhost
SlurmctldPort=$base
SlurmUser=root
SlurmdUser=root
AuthType=auth/none
CredType=cred/none
StateSaveLocation=$CLUSTER_DIR/state
SlurmdSpoolDir=$CLUSTER_DIR/spool/%n
SlurmctldPidFile=$CLUSTER_DIR/slurmctld.pid
SlurmdPidFile=$CLUSTER_DIR/slurmd-%n.pid
SlurmctldLogFile=$CLUSTER_DIR/slurmctld.log
SlurmdLogFile=$CLUSTER_DIR/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=error
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
$accounting_conf
JobCompType=jobcomp/filetxt
JobCompLoc=$CLUSTER_DIR/jobcomp.txt
SelectType=select/linear
SchedulerType=$CLUSTER_SCHEDULER
SchedulerParameters=$CLUSTER_SCHED_PARAMS
PluginDir=$LOS_BUILD_DIR/lib:$LOS_SLURM_PLUGIN_DIR
MpiDefault=none
ReturnToService=2
MinJobAge=3600
KillWait=2
InactiveLimit=0
SlurmdTimeout=60
MaxJobCount=20000
NodeName=n[1-$nodes] NodeHostname=localhost Port=$((base + 1))-$((base + nodes)) CPUs=1 RealMemory=1 State=UNKNOWN
PartitionName=batch Nodes=n[1-$nodes] Default=YES MaxTime=INFINITE State=$CLUSTER_PARTITION_STATE ${CLUSTER_PARTITION_OPTS:-}
${CLUSTER_EXTRA_CONF:-}
EOF
  export SLURM_CONF="$CLUSTER_DIR/slurm.conf"
  for i in $(seq 1 "$nodes"); do mkdir -p "$CLUSTER_DIR/spool/n$i"; done
  [ "${CLUSTER_CONFIGURE_ONLY:-0}" = 1 ] && return 0
  [ "$CLUSTER_ACCOUNTING" = 1 ] && accounting_up $((base + nodes + 1))

  slurmctld_start
  for i in $(seq 1 "$nodes"); do
    slurmd -D -f "$SLURM_CONF" -N "n$i" >"$CLUSTER_DIR/slurmd-n$i.out.log" 2>&1 &
    CLUSTER_PIDS+=($!)
    echo $! >"$CLUSTER_DIR/pids/slurmd-n$i"
  done
  local deadline=$((SECONDS + 60)) idle=0
  while [ $SECONDS -lt $deadline ]; do
    idle="$(sinfo -h -N -t idle -o '%N' 2>/dev/null | sort -u | wc -l)"
    [ "$idle" -eq "$nodes" ] && break
    sleep 0.5
  done
  if [ "$idle" -ne "$nodes" ]; then
    # Name the nodes that did not come up and why their slurmd says so.
    local i why=""
    for i in $(seq 1 "$nodes"); do
      sinfo -h -n "n$i" -t idle -o '%N' 2>/dev/null | grep -q . && continue
      why+=" n$i($(sinfo -h -n "n$i" -o '%T' 2>/dev/null | head -1)"
      kill -0 "$(cat "$CLUSTER_DIR/pids/slurmd-n$i")" 2>/dev/null || why+=", slurmd exited"
      why+="): $(grep -h -i -m1 'error' "$CLUSTER_DIR/slurmd-n$i.out.log" "$CLUSTER_DIR/slurmd-n$i.log" 2>/dev/null | head -1);"
    done
    fail "only $idle of $nodes nodes came up idle within 60 s (see $CLUSTER_DIR):$why"
  fi
  [ "$CLUSTER_SCHEDULER" != sched/los ] || grep -q "sched/los: loaded" "$CLUSTER_DIR/slurmctld.log" \
    || fail "slurmctld did not load sched/los"
  log "cluster up: $nodes nodes, slurmctld port $base, dir $CLUSTER_DIR"
}

# slurmctld in the foreground of a background job; CLUSTER_CTLD_PREFIX (a
# command and arguments, e.g. "env LD_PRELOAD=...") runs it under a wrapper.
slurmctld_start() {
  ${CLUSTER_CTLD_PREFIX:-} slurmctld -D -i -f "$SLURM_CONF" >>"$CLUSTER_DIR/slurmctld.out.log" 2>&1 &
  CLUSTER_PIDS+=($!)
  echo $! >"$CLUSTER_DIR/pids/slurmctld"
}

# slurmctld_restart: SIGTERM (slurmctld saves its state in StateSaveLocation),
# start it again (it recovers the state and reloads sched/los) and wait until
# it answers and has loaded the plugin again.
slurmctld_restart() {
  local pid from deadline
  pid="$(cat "$CLUSTER_DIR/pids/slurmctld")"
  from=$(log_lines)
  kill -TERM "$pid" 2>/dev/null || fail "slurmctld (pid $pid) is not running"
  deadline=$((SECONDS + 60))
  while kill -0 "$pid" 2>/dev/null; do
    [ $SECONDS -lt $deadline ] || fail "slurmctld did not stop within 60 s of SIGTERM"
    sleep 0.2
  done
  log "slurmctld stopped (pid $pid)"
  slurmctld_start
  wait_log "sched/los: loaded" "$from" 60 >/dev/null
  deadline=$((SECONDS + 60))
  until scontrol ping >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || fail "slurmctld does not answer after the restart"
    sleep 0.5
  done
  log "slurmctld restarted (pid $(cat "$CLUSTER_DIR/pids/slurmctld"))"
}

# cluster_up_decided_by DECIDER POLICY NODES: a cluster whose cycles POLICY
# decides. DECIDER "losd": losd runs POLICY (FIFO is "fcfs" there) and the
# plugin has no fallback; "fallback": no losd, the plugin's own fallback
# (los_fallback=fifo|easy) decides.
cluster_up_decided_by() {
  local decider=$1 policy=$2 nodes=$3
  case "$decider" in
    losd)
      cluster_up "$nodes" "los_fallback=none"
      losd_start "$([ "$policy" = fifo ] && echo fcfs || echo "$policy")" ;;
    fallback)
      [ "$policy" = fifo ] || [ "$policy" = easy ] || fail "the plugin's fallback is fifo or easy, not $policy"
      cluster_up "$nodes" "los_fallback=$policy" ;;
    *) fail "decider must be losd or fallback, not '$decider'" ;;
  esac
}

# losd_start POLICY: losd serving the plugin socket, POLICY for every
# partition; returns once the plugin uses it.
losd_start() {
  local policy=$1
  local LOSD_FROM_LINE
  LOSD_FROM_LINE=$(log_lines)
  cat >"$CLUSTER_DIR/losd.yaml" <<EOF
cluster: $CLUSTER_NAME
log_level: info
plugin_socket: {path: $CLUSTER_SOCKET}
query_socket: {path: $CLUSTER_DIR/losd-query.sock}
admin_socket: {path: $CLUSTER_DIR/losd-admin.sock}
metrics: {listen: "${LOSD_METRICS:-}"}
default_policy: $policy
EOF
  ${LOSD_PREFIX:-} "$LOS_BUILD_DIR/bin/losd" --config "$CLUSTER_DIR/losd.yaml" >>"$CLUSTER_DIR/losd.log" 2>&1 &
  LOSD_PID=$!
  echo $LOSD_PID >"$CLUSTER_DIR/pids/losd"
  local deadline=$((SECONDS + 10))
  while [ ! -S "$CLUSTER_SOCKET" ] && [ $SECONDS -lt $deadline ]; do
    kill -0 "$LOSD_PID" 2>/dev/null || fail "losd exited at start (see losd.log: $(tail -3 "$CLUSTER_DIR/losd.log"))"
    sleep 0.1
  done
  [ -S "$CLUSTER_SOCKET" ] || fail "losd did not open $CLUSTER_SOCKET"
  # Until the plugin has reconnected, its fallback decides: wait for the
  # handover so that a test's jobs are decided by losd from the start.
  if [ -n "${SLURM_CONF:-}" ] && [ -f "$CLUSTER_DIR/slurmctld.log" ]; then
    wait_log "$LOSD_HANDOVER_RE|by=losd" "${LOSD_FROM_LINE:-$(log_lines)}" 15 >/dev/null
  fi
  log "losd up ($policy), pid $LOSD_PID"
}

losd_stop() {
  [ -n "$LOSD_PID" ] || return 0
  kill -9 "$LOSD_PID" 2>/dev/null || true
  wait "$LOSD_PID" 2>/dev/null || true
  [ "${1:-}" = quiet ] || log "losd killed (pid $LOSD_PID)"
  LOSD_PID=""
  rm -f "$CLUSTER_DIR/pids/losd"
}

# submit NAME NODES MINUTES SECONDS: a batch sleep job; prints its id.
submit() {
  local name=$1 nodes=$2 minutes=$3 secs=$4 out
  out="$(sbatch --parsable -J "$name" -N "$nodes" -t "$minutes" -o "$CLUSTER_DIR/out/%j.out" \
    --wrap "sleep $secs" 2>&1)" || fail "sbatch $name failed: $out"
  echo "$nodes" >"$CLUSTER_DIR/out/want-${out%%;*}"
  echo "${out%%;*}"
}

# wait_running JOBID TIMEOUT: until the job runs; fails after TIMEOUT seconds.
wait_running() {
  local deadline=$((SECONDS + $2))
  until [ "$(squeue -h -j "$1" -o %T 2>/dev/null)" = RUNNING ]; do
    [ $SECONDS -lt $deadline ] || fail "job $1 did not start within $2 s"
    sleep 0.2
  done
}

partition_up() { scontrol update PartitionName=batch State=UP || fail "cannot set partition batch UP"; }

# set_queue_order ID...: falling priorities in the order given. The queue
# order is priority, then submit time: this makes it exactly the given order
# whatever the priority plugin computes within one second. The last job is
# set first: a cycle between two updates (sched/los reacts within
# los_poll_ms) then sees the jobs already set below the ones not yet set,
# never a later job above an earlier one that has its low value already.
set_queue_order() {
  local ids=("$@") i
  for ((i = ${#ids[@]} - 1; i >= 0; i--)); do
    scontrol update JobId="${ids[i]}" Priority=$((1000 - 10 * i)) || fail "cannot set priority of ${ids[i]}"
  done
}

# wait_all_done TIMEOUT: until no job is pending or running.
wait_all_done() {
  local deadline=$((SECONDS + $1)) left
  while [ $SECONDS -lt $deadline ]; do
    left="$(squeue -h -t PD,R,CG,S,CF -o %i 2>/dev/null | wc -l)"
    [ "$left" -eq 0 ] && return 0
    sleep 0.5
  done
  squeue >&2
  fail "jobs still queued or running after $1 s"
}

# ---- Slurm's own records --------------------------------------------------

# jobcomp FIELD ID: FIELD of the completion record of job ID (jobcomp/filetxt).
jobcomp() {
  local field=$1 id=$2
  grep "^JobId=$id " "$CLUSTER_DIR/jobcomp.txt" | tail -n1 | tr ' ' '\n' | sed -n "s/^$field=//p"
}
# epoch seconds of a jobcomp time field.
jobtime() { date -d "$(jobcomp "$1" "$2")" +%s; }
# epoch seconds job ID started / ended.
start_time() { jobtime StartTime "$1"; }
end_time() { jobtime EndTime "$1"; }
# expanded node names of a job, one a line.
jobnodes() { scontrol show hostnames "$(jobcomp NodeList "$1")"; }
# how many completion records a job has.
jobcomp_count() { grep -c "^JobId=$1 " "$CLUSTER_DIR/jobcomp.txt"; }
# how many times the plugin started the job (slurmctld log).
started_count() { grep -c "sched/los: started JobId=$1 " "$CLUSTER_DIR/slurmctld.log"; }
# jobs_started_by DECIDER: how many jobs the cycles DECIDER decided (by=losd,
# by=easy, ...) started, summed over the slurmctld log.
jobs_started_by() {
  grep -E "by=$1 .*started=[1-9]" "$CLUSTER_DIR/slurmctld.log" | sed 's/.*started=\([0-9]*\).*/\1/' \
    | awk '{s+=$1} END {print s+0}'
}

# Every job: completed exactly once, started once, on as many nodes as asked.
check_completed_once() {
  local id name want
  for id in "$@"; do
    [ "$(jobcomp_count "$id")" -eq 1 ] || fail "job $id has $(jobcomp_count "$id") completion records"
    [ "$(jobcomp JobState "$id")" = COMPLETED ] || fail "job $id ended $(jobcomp JobState "$id")"
    [ "$(started_count "$id")" -eq 1 ] || fail "job $id started $(started_count "$id") times"
    want="$(cat "$CLUSTER_DIR/out/want-$id" 2>/dev/null || echo "")"
    if [ -n "$want" ]; then
      [ "$(jobcomp NodeCnt "$id")" = "$want" ] || fail "job $id ran on $(jobcomp NodeCnt "$id") nodes, asked $want"
    fi
  done
}

# No node ever ran two jobs at once (from the completion records).
check_no_overlap() {
  # One pass in python over the completion records: the per-job date and
  # scontrol calls this replaced cost seconds per job on a loaded machine.
  local out
  out=$(python3 - "$CLUSTER_DIR/jobcomp.txt" "$@" <<'PY'
import re, sys
from datetime import datetime

def hosts(spec):
    """Slurm hostlist expression -> node names (n[1-3,5],m2 -> n1 n2 n3 n5 m2)."""
    out = []
    for token in re.findall(r"[^,\[]*(?:\[[^\]]*\][^,\[]*)*", spec):
        m = re.fullmatch(r"([^\[]*)\[([^\]]*)\](.*)", token)
        if not m:
            if token:
                out.append(token)
            continue
        prefix, ranges, suffix = m.groups()
        for r in ranges.split(","):
            lo, _, hi = r.partition("-")
            for i in range(int(lo), int(hi or lo) + 1):
                out.append(f"{prefix}{i:0{len(lo)}d}{suffix}")
    return out

last = {}
with open(sys.argv[1]) as f:
    for line in f:
        fields = dict(kv.split("=", 1) for kv in line.split() if "=" in kv)
        if "JobId" in fields:
            last[fields["JobId"]] = fields
ids = sys.argv[2:]
spans = {}
for j in ids:
    if j not in last:
        print(f"job {j} has no completion record")
        sys.exit(1)
    r = last[j]
    spans[j] = (datetime.fromisoformat(r["StartTime"]), datetime.fromisoformat(r["EndTime"]), set(hosts(r["NodeList"])))
for x in range(len(ids)):
    for y in range(x + 1, len(ids)):
        a, b = spans[ids[x]], spans[ids[y]]
        # Records have 1 s resolution: a job starting in the second its
        # predecessor ended is not an overlap.
        common = a[2] & b[2]
        if common and a[0] < b[1] and b[0] < a[1]:
            print(f"jobs {ids[x]} and {ids[y]} overlapped in time on {' '.join(sorted(common))}")
            sys.exit(1)
PY
) || fail "$out"
}

# The plugin's handover line, logged when losd answers after a time without
# it (plugin/cycle.c). Only this one: its error line, "... unusable (...):
# scheduling by the '...' fallback until it answers again", comes first.
LOSD_HANDOVER_RE="losd at .* answers again: it decides"

# Waits until the slurmctld log has a line matching REGEX after line FROM;
# prints its line number.
wait_log() {
  local regex=$1 from=$2 timeout=$3 deadline=$((SECONDS + $3)) n
  while [ $SECONDS -lt $deadline ]; do
    n="$(tail -n +"$((from + 1))" "$CLUSTER_DIR/slurmctld.log" | grep -n -m1 -E "$regex" | cut -d: -f1)"
    [ -n "$n" ] && { echo $((from + n)); return 0; }
    sleep 0.2
  done
  fail "no slurmctld log line matching '$regex' after line $from within $timeout s"
}
log_lines() { wc -l <"$CLUSTER_DIR/slurmctld.log"; }

# assert_le A B WHAT: A <= B.
assert_le() { [ "$1" -le "$2" ] || fail "$3 ($1 > $2)"; }
assert_lt() { [ "$1" -lt "$2" ] || fail "$3 ($1 >= $2)"; }

# assert_started_together A B WHAT: jobs A and B started within 1 s (Slurm's
# records have 1-second resolution).
assert_started_together() {
  local d=$(($(start_time "$1") - $(start_time "$2")))
  [ ${d#-} -le 1 ] || fail "$3: $1 and $2 started $d s apart"
}

# Some cycle was decided by losd, and no job was started by anything else.
check_decided_by_losd() {
  grep -q "by=losd" "$CLUSTER_DIR/slurmctld.log" || fail "no cycle was decided by losd"
  ! grep "started=[1-9]" "$CLUSTER_DIR/slurmctld.log" | grep -vq "by=losd" || fail "a job was started without losd"
}

# log_starts_after NAME ID [NAME ID]...: logs each later job's start in
# seconds after the first job's ("starts (s after J1): J2 60 J3 ...").
log_starts_after() {
  local first_name=$1 first_start line=""
  first_start=$(start_time "$2")
  shift 2
  while [ $# -ge 2 ]; do
    line+=" $1 $(($(start_time "$2") - first_start))"
    shift 2
  done
  log "starts (s after $first_name):$line"
}

# jobnodes_now ID: the nodes of a running job, space-separated (squeue).
jobnodes_now() { scontrol show hostnames "$(squeue -h -j "$1" -o %N)" | tr '\n' ' ' | sed 's/ $//'; }
