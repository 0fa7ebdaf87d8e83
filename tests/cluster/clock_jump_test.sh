#!/usr/bin/env bash
# The clock jumps in the middle of a run on a real 8-node Slurm cluster,
# without touching the machine's clock: slurmctld (with the plugin) and losd
# run under libfaketime reading their offset from a file, which the test
# rewrites: +120 s (forward), then -120 s (240 s backward). The snapshot's
# time (slurmctld's clock) goes forward, then back; losd's plan is rebuilt
# when it goes back. After each jump losd decides again; neither losd nor
# slurmctld spins (CPU time over an idle window); no job starts twice and
# every job completes (Slurm's own records; their times are in slurmctld's
# shifted clock, so node overlap is not checked here).
set -uo pipefail
source "$(dirname "$0")/cluster.sh"

lib=""
for f in /usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1 /usr/lib/faketime/libfaketimeMT.so.1; do
  [ -f "$f" ] && lib=$f && break
done
if [ -z "$lib" ]; then
  echo "SKIP: libfaketime is not installed (packaging/install-deps.sh installs the faketime package)" >&2
  exit 77
fi
offset_file="$(mktemp /tmp/los-faketime.XXXXXX)"
echo "+0" >"$offset_file"
# The monotonic clock is not shifted: a wall-clock step (NTP, an admin's
# date -s) leaves it alone, and so does this test.
faked="env LD_PRELOAD=$lib FAKETIME_TIMESTAMP_FILE=$offset_file FAKETIME_CACHE_DURATION=1 FAKETIME_DONT_FAKE_MONOTONIC=1 NO_FAKE_STAT=1"
CLUSTER_CTLD_PREFIX="$faked"
LOSD_PREFIX="$faked"

cluster_up 8 "los_fallback=none"
trap 'cluster_teardown; rm -f "$offset_file"' EXIT
losd_start easy
ids=()
for i in $(seq 1 40); do
  ids+=("$(submit "t$i" $((1 + i % 4)) 5 $((1 + i % 3)))")
done
partition_up
wait_log "by=losd .*started=[1-9]" 0 30 >/dev/null

# ctld_now: slurmctld's idea of the time (epoch s), from its own answer.
ctld_now() { sdiag | sed -n 's/^sdiag output at .*(\([0-9]*\))$/\1/p'; }
jump() {
  local to=$1 from_line before after
  from_line=$(log_lines)
  before=$(ctld_now)
  echo "$to" >"$offset_file"
  sleep 2  # the libraries re-read the file at most a second later
  after=$(ctld_now)
  log "clock offset $to: slurmctld's clock went from $before to $after (real $(date +%s))"
  echo "$from_line $((after - before))"
}
read -r at step < <(jump +120)
[ "$step" -ge 100 ] || fail "slurmctld's clock did not jump forward (step $step s)"
n=$(wait_log "by=losd .*started=[1-9]" "$at" 60)
log "forward jump: losd decided again (log line $n)"
read -r at step < <(jump -120)
[ "$step" -le -200 ] || fail "slurmctld's clock did not jump back (step $step s)"
n=$(wait_log "by=losd .*started=[1-9]" "$at" 60)
log "backward jump: losd decided again (log line $n)"
wait_all_done 240

# Neither daemon spins: CPU time over 5 idle seconds.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
ctld_pid=$(cat "$CLUSTER_DIR/pids/slurmctld")
l0=$(cpu_ticks "$LOSD_PID") c0=$(cpu_ticks "$ctld_pid")
sleep 5
hz=$(getconf CLK_TCK)
losd_cpu=$(( ($(cpu_ticks "$LOSD_PID") - l0) * 1000 / hz ))
ctld_cpu=$(( ($(cpu_ticks "$ctld_pid") - c0) * 1000 / hz ))
log "CPU over 5 idle s: losd $losd_cpu ms, slurmctld $ctld_cpu ms"
assert_lt "$losd_cpu" 1000 "losd busy for more than 1 s of 5 idle seconds: spinning"
assert_lt "$ctld_cpu" 2500 "slurmctld busy for more than half of 5 idle seconds: spinning"
kill -0 "$LOSD_PID" 2>/dev/null || fail "losd died"

check_completed_once "${ids[@]}"
check_decided_by_losd
[ "$(jobs_started_by losd)" -eq ${#ids[@]} ] || fail "losd's cycles started $(jobs_started_by losd) jobs, not ${#ids[@]}"
! grep -q "level=error" "$CLUSTER_DIR/losd.log" || fail "losd logged errors: $(grep -m3 level=error "$CLUSTER_DIR/losd.log")"
echo "PASS: clock +120 s then -240 s mid-run: losd decided after each jump, no spin, ${#ids[@]} jobs each started once and completed"
