#!/usr/bin/env bash
# The Debian packages and the admin guide, on this machine and a real local
# Slurm cluster:
#   1. packaging/build-debs.sh builds losd, slurm-sched-los and sa-submit from
#      the build tree; lintian reports no error (warnings are printed; it
#      runs beside the rest and its verdict is checked last);
#   2. the blocks of docs/admin.md marked `admin-test:NAME` run literally, in
#      order, with only the substitutions the guide states (the test cluster's
#      slurm.conf and log for /etc/slurm/slurm.conf and
#      /var/log/slurm/slurmctld.log; `systemctl` -> unit_systemctl below):
#      install with dpkg -i (sa-submit as on a login node), start losd from the installed unit's command line
#      as the unit's user, switch the cluster from sched/backfill to sched/los
#      and restart slurmctld, submit a job, roll back, purge;
#   3. in between it checks: slurmctld mapped sched_los.so from the installed
#      plugin directory, losd runs as the unit's User/Group and answers
#      `losctl status`, the job was started by losd's decision, the rollback
#      runs sched/backfill; after the purge no file of the packages, no
#      /etc/los, no user or group losd and no unit state is left.
# Skips (77) when not root, or when anything it would install is already on
# this machine (it must not disturb what it did not install).
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
src="$(cd "$here/../.." && pwd)"
source "$here/cluster.sh"

skip() { echo "SKIP: $*" >&2; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "the packages test installs packages: it needs root"
command -v dpkg-deb >/dev/null && command -v slurmctld >/dev/null || skip "needs dpkg-dev and Slurm (packaging/install-deps.sh)"
command -v lintian >/dev/null || fail "lintian missing (packaging/install-deps.sh installs it)"
packages=(losd slurm-sched-los sa-submit)
for p in "${packages[@]}"; do
  ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q installed || skip "package $p is installed here already; not touching it"
done
for path in /usr/sbin/losd /usr/bin/losctl /usr/bin/sa-submit /etc/los /run/los \
  "$LOS_SLURM_PLUGIN_DIR/sched_los.so" /lib/systemd/system/losd.service; do
  [ ! -e "$path" ] || skip "$path exists here already (not from this test); not touching it"
done
! getent passwd losd >/dev/null && ! getent group losd >/dev/null || skip "a user or group losd exists here already"
# The installed losd serves its default metrics address.
! ss -Htln 2>/dev/null | awk '{print $4}' | grep -qx '127.0.0.1:9464' \
  || skip "127.0.0.1:9464 (losd's default metrics address) is in use"

started=$SECONDS
debs="$(mktemp -d /tmp/los-debs.XXXXXX)"
trap 'rm -rf "$debs"' EXIT
chmod 755 "$debs"
"$src/packaging/build-debs.sh" "$LOS_BUILD_DIR" "$debs" >"$debs/build-debs.out" 2>"$debs/build-debs.err" \
  || fail "build-debs.sh failed: $(tail -5 "$debs/build-debs.err")"
[ "$(ls "$debs"/*.deb | wc -l)" -eq 3 ] || fail "build-debs.sh made $(ls "$debs"/*.deb | wc -l) packages, want 3"
log "build-debs.sh: $(basename -a "$debs"/*.deb | tr '\n' ' ')in $((SECONDS - started)) s"
dpkg-deb -f "$debs"/slurm-sched-los_*.deb Depends | grep -q "slurmctld (= $(dpkg-query -W -f='${Version}' slurmctld))" \
  || fail "slurm-sched-los does not depend on exactly the installed slurmctld: $(dpkg-deb -f "$debs"/slurm-sched-los_*.deb Depends)"
# The operators' files come with losd: every dashboard, the scrape and alert files.
losd_files="$(dpkg-deb -c "$debs"/losd_*.deb | awk '{print $NF}')"
for f in "$src"/conf/grafana/*.json "$src"/conf/prometheus/prometheus.yml "$src"/conf/prometheus/los-alerts.yml; do
  want="./usr/share/los/$(basename "$(dirname "$f")")/$(basename "$f")"
  grep -qx "$want" <<<"$losd_files" || fail "the losd package lacks $want"
done
# lintian checks the packages while the cluster part runs (it reads only the
# .deb files); its verdict is awaited at the end.
lintian --fail-on error "$debs"/*.deb >"$debs/lintian.out" 2>&1 &
lintian_pid=$!

# A cluster as a site has it before LOS: sched/backfill, a SchedulerParameters
# of its own, Debian's plugin directory only, and (from the first restart on)
# slurmctld running as Debian's SlurmUser, slurm, which losd must let in.
CLUSTER_SCHEDULER=sched/backfill CLUSTER_PARTITION_STATE=UP cluster_up 2 "bf_continue,sched_interval=30"
sed -i -e "s|^PluginDir=.*|PluginDir=$LOS_SLURM_PLUGIN_DIR|" -e "s|^SlurmUser=.*|SlurmUser=slurm|" "$SLURM_CONF"
getent passwd slurm >/dev/null || skip "no user slurm (Debian's Slurm packages create it)"
# slurmd takes RPCs from root and the SlurmUser it read: SIGHUP makes the
# nodes re-read slurm.conf now (root's slurmctld still reaches them).
for f in "$CLUSTER_DIR"/pids/slurmd-*; do kill -HUP "$(cat "$f")"; done

# ---- what the substitutions stand for -------------------------------------
UNIT=/lib/systemd/system/losd.service
# The guide's blocks run in a subshell: the pids go through files.
losd_unit_pid() { cat "$CLUSTER_DIR/pids/losd-unit" 2>/dev/null; }
unit_value() { sed -n "s/^$1=//p" "$UNIT" | tail -n1; }
# losd as systemd would run it: RuntimeDirectory, User, Group, UMask, then
# ExecStartPre and ExecStart; ready when its plugin socket is there.
losd_unit_start() {
  local user group umask rundir mode
  user="$(unit_value User)" group="$(unit_value Group)" umask="$(unit_value UMask)"
  rundir="/run/$(unit_value RuntimeDirectory)" mode="$(unit_value RuntimeDirectoryMode)"
  install -d -m "$mode" -o "$user" -g "$group" "$rundir"
  local as=(setpriv --reuid="$user" --regid="$group" --init-groups --no-new-privs)
  # shellcheck disable=SC2046  # the unit's command lines, split as systemd splits these plain ones
  (umask "$umask" && "${as[@]}" $(unit_value ExecStartPre)) >>"$CLUSTER_DIR/losd.log" 2>&1 \
    || fail "ExecStartPre failed: $(tail -3 "$CLUSTER_DIR/losd.log")"
  # shellcheck disable=SC2046
  (umask "$umask" && exec "${as[@]}" $(unit_value ExecStart)) >>"$CLUSTER_DIR/losd.log" 2>&1 &
  local pid=$!
  echo "$pid" >"$CLUSTER_DIR/pids/losd-unit"
  local deadline=$((SECONDS + 20))
  until [ -S "$rundir/plugin.sock" ]; do
    kill -0 "$pid" 2>/dev/null || fail "the installed losd exited: $(tail -3 "$CLUSTER_DIR/losd.log")"
    [ $SECONDS -lt $deadline ] || fail "the installed losd opened no socket within 20 s"
    sleep 0.2
  done
}
losd_unit_stop() {
  local pid
  pid="$(losd_unit_pid)"
  [ -n "$pid" ] || return 0
  kill -TERM "$pid" 2>/dev/null
  local deadline=$((SECONDS + 15))
  while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
  kill -9 "$pid" 2>/dev/null
  rm -f "$CLUSTER_DIR/pids/losd-unit"
  rm -rf "/run/$(unit_value RuntimeDirectory)"
}
# The test cluster's slurmctld, restarted with its state (no -i).
slurmctld_restart() {
  local pid
  pid="$(cat "$CLUSTER_DIR/pids/slurmctld")"
  kill -TERM "$pid" 2>/dev/null
  local deadline=$((SECONDS + 30))
  while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
  kill -0 "$pid" 2>/dev/null && fail "slurmctld did not stop within 30 s"
  # Its files belong to the SlurmUser, as Debian's postinst makes them.
  local owner
  owner="$(sed -n 's/^SlurmUser=//p' "$SLURM_CONF")"
  touch "$CLUSTER_DIR"/{slurmctld.log,slurmctld.pid,jobcomp.txt}
  chown -R "$owner" "$CLUSTER_DIR"/{state,slurmctld.log,slurmctld.pid,jobcomp.txt}
  slurmctld -D -f "$SLURM_CONF" >>"$CLUSTER_DIR/slurmctld.out.log" 2>&1 &
  CLUSTER_PIDS+=($!)
  echo $! >"$CLUSTER_DIR/pids/slurmctld"
  deadline=$((SECONDS + 60))
  until scontrol ping 2>/dev/null | grep -q "is UP"; do
    kill -0 "$(cat "$CLUSTER_DIR/pids/slurmctld")" 2>/dev/null || fail "slurmctld exited: $(tail -3 "$CLUSTER_DIR/slurmctld.log")"
    [ $SECONDS -lt $deadline ] || fail "slurmctld did not answer within 60 s of its restart"
    sleep 0.5
  done
}
# systemctl ACTION... UNIT, for the two units the guide names.
unit_systemctl() {
  local args=("$@") unit="${*: -1}"
  case "$unit:${args[*]:0:${#args[@]}-1}" in
    losd:"enable --now" | losd:start) losd_unit_start ;;
    losd:"disable --now" | losd:stop) losd_unit_stop ;;
    losd:restart) losd_unit_stop && losd_unit_start ;;
    slurmctld:restart) slurmctld_restart ;;
    *) fail "the guide runs 'systemctl $*', which this test does not stand in for" ;;
  esac
}

# run_guide NAME: the docs/admin.md block ```sh admin-test:NAME, substituted.
run_guide() {
  local name=$1 block
  block="$(awk -v tag="admin-test:$name" '/^```/ { if (on) exit; if ($0 == "```sh " tag) on = 1; next } on' "$src/docs/admin.md")"
  [ -n "$block" ] || fail "docs/admin.md has no block admin-test:$name"
  block="$(sed -e "s|/etc/slurm/slurm.conf|$SLURM_CONF|g" \
    -e "s|/var/log/slurm/slurmctld.log|$CLUSTER_DIR/slurmctld.log|g" \
    -e 's/\bsystemctl /unit_systemctl /g' <<<"$block")"
  log "admin guide, $name:"
  printf '%s\n' "$block" | sed 's/^/    /' >&2
  (cd "$debs" && set -e && eval "$block") >"$debs/guide-$name.out" 2>&1 \
    || fail "admin guide block $name failed: $(tail -5 "$debs/guide-$name.out")"
  # A restarted slurmctld is the cluster's to tear down.
  CLUSTER_PIDS+=("$(cat "$CLUSTER_DIR/pids/slurmctld")")
}

# Whatever happens, nothing of the packages stays: stop losd, purge.
packages_cleanup() {
  kill "$lintian_pid" 2>/dev/null
  losd_unit_stop
  local p
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q installed && dpkg --purge "$p" >/dev/null 2>&1
  done
  rm -rf "$debs"
}
# cluster_teardown reads the exit status from $?.
packages_exit() {
  local rc=$1
  packages_cleanup
  (exit "$rc")
  cluster_teardown
}
trap 'packages_exit $?' EXIT

run_guide install
user="$(unit_value User)" group="$(unit_value Group)"
[ "$user" = losd ] && [ "$group" = losd ] || fail "the unit runs as $user:$group, want losd:losd"
LOSD_UNIT_PID="$(losd_unit_pid)"
[ -n "$LOSD_UNIT_PID" ] || fail "the guide's install block started no losd"
[ "$(ps -o user= -p "$LOSD_UNIT_PID")" = "$user" ] || fail "losd runs as $(ps -o user= -p "$LOSD_UNIT_PID"), not $user"
[ "$(ps -o group= -p "$LOSD_UNIT_PID")" = "$group" ] || fail "losd runs in group $(ps -o group= -p "$LOSD_UNIT_PID"), not $group"
[ "$(ps -o args= -p "$LOSD_UNIT_PID")" = "$(unit_value ExecStart)" ] \
  || fail "losd runs as '$(ps -o args= -p "$LOSD_UNIT_PID")', not the unit's ExecStart"
cat "$debs/guide-install.out" >&2
# Installed, registered with deb-systemd-helper, enabled by nobody but the
# guide's stand-in for systemctl (which does not touch /etc/systemd/system).
[ -e /var/lib/systemd/deb-systemd-helper-enabled/losd.service.dsh-also ] \
  || fail "the postinst did not register losd.service with deb-systemd-helper"
[ -z "$(find /etc/systemd/system -name 'losd*' 2>/dev/null)" ] || fail "the package enabled losd.service by itself"
log "installed losd runs as $user:$group: $(ps -o args= -p "$LOSD_UNIT_PID")"

# /etc/los/losd.yaml is a conffile: a reinstall (the upgrade path of the
# maintainer scripts) keeps the admin's edit, the user and the running losd.
echo "# edited by the admin" >>/etc/los/losd.yaml
uid_before="$(id -u losd)"
dpkg -i "$debs"/losd_*.deb >"$debs/reinstall.out" 2>&1 || fail "reinstalling losd failed: $(tail -5 "$debs/reinstall.out")"
grep -q "^# edited by the admin" /etc/los/losd.yaml || fail "reinstalling losd replaced the admin's /etc/los/losd.yaml"
[ "$(id -u losd)" = "$uid_before" ] || fail "reinstalling losd changed the user losd"
kill -0 "$LOSD_UNIT_PID" 2>/dev/null || fail "reinstalling losd stopped it"

run_guide login-node
[ -x /usr/bin/sa-submit ] || fail "the sa-submit package installed no /usr/bin/sa-submit"
# Every path of the three packages, to be gone after the purge.
installed="$(dpkg -L "${packages[@]}" 2>/dev/null | sort -u)"

run_guide slurm-conf
grep -q '^SchedulerParameters=sched_interval=-1,defer,bf_continue$' "$SLURM_CONF" \
  || fail "the merged SchedulerParameters is $(grep '^SchedulerParameters' "$SLURM_CONF")"
from=$(log_lines)
run_guide restart
wait_log "sched/los: loaded" "$from" 30 >/dev/null
ctld="$(cat "$CLUSTER_DIR/pids/slurmctld")"
grep -q " $LOS_SLURM_PLUGIN_DIR/sched_los.so$" "/proc/$ctld/maps" \
  || fail "slurmctld did not map $LOS_SLURM_PLUGIN_DIR/sched_los.so"
! grep -q "$LOS_BUILD_DIR" "/proc/$ctld/maps" || fail "slurmctld mapped a file of the build tree"
[ "$(ps -o user= -p "$ctld")" = slurm ] || fail "slurmctld runs as $(ps -o user= -p "$ctld"), not SlurmUser slurm"
log "slurmctld (pid $ctld, user slurm) loaded $LOS_SLURM_PLUGIN_DIR/sched_los.so"

run_guide check
job="$(grep -oE 'Submitted batch job [0-9]+' "$debs/guide-check.out" | awk '{print $4}')"
[ -n "$job" ] || fail "the guide's sbatch printed no job id: $(cat "$debs/guide-check.out")"
grep -q "sched/los" "$debs/guide-check.out" || fail "scontrol show config does not show sched/los"
wait_log "sched/los: started JobId=$job " "$from" 60 >/dev/null
grep -qE "by=losd .*started=[1-9]" "$CLUSTER_DIR/slurmctld.log" || fail "no cycle decided by losd started a job"
! tail -n +"$from" "$CLUSTER_DIR/slurmctld.log" | grep "started=[1-9]" | grep -vq "by=losd" \
  || fail "a job was started by the fallback, not losd"
status="$(losctl status 2>&1)" || fail "losctl status failed: $status"
grep -q "plugin: connected" <<<"$status" || fail "losctl status shows no connected plugin: $status"
wait_all_done 60
[ "$(jobcomp JobState "$job")" = COMPLETED ] || fail "job $job ended $(jobcomp JobState "$job")"
grep -q "socket=plugin peer=\"pid $ctld uid $(id -u slurm)\"" "$CLUSTER_DIR/losd.log" \
  || fail "losd logged no plugin connection from slurmctld as slurm: $(grep -i plugin "$CLUSTER_DIR/losd.log" | tail -3)"
! grep -q "connection refused" "$CLUSTER_DIR/losd.log" || fail "losd refused a connection: $(grep "connection refused" "$CLUSTER_DIR/losd.log")"
log "job $job started by losd's decision and completed"

run_guide rollback
! kill -0 "$LOSD_UNIT_PID" 2>/dev/null || fail "losd still runs after the rollback"
scontrol show config | grep -q "^SchedulerType *= sched/backfill" || fail "the rollback did not bring back sched/backfill"
ctld="$(cat "$CLUSTER_DIR/pids/slurmctld")"
! grep -q "sched_los.so" "/proc/$ctld/maps" || fail "slurmctld still maps sched_los.so after the rollback"
job2=$(submit after-rollback 1 1 1)
wait_all_done 60
[ "$(jobcomp JobState "$job2")" = COMPLETED ] || fail "job $job2 did not run under sched/backfill"
log "rolled back: sched/backfill ran job $job2"

run_guide remove
for p in "${packages[@]}"; do
  ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q installed || fail "$p is still installed"
done
left=""
while IFS= read -r f; do
  [ -z "$f" ] || [ -d "$f" ] || [ ! -e "$f" ] || left+=" $f"
done <<<"$installed"
[ -z "$left" ] || fail "left after the purge:$left"
[ ! -e /etc/los ] || fail "/etc/los is left after the purge"
[ ! -e /run/los ] || fail "/run/los is left"
! getent passwd losd >/dev/null || fail "the user losd is left after the purge"
! getent group losd >/dev/null || fail "the group losd is left after the purge"
[ -z "$(find /var/lib/systemd/deb-systemd-helper-enabled /var/lib/systemd/deb-systemd-helper-masked \
  /etc/systemd/system -name 'losd*' 2>/dev/null)" ] || fail "unit state of losd is left (deb-systemd-helper, /etc/systemd/system)"
log "purged: no file, /etc/los, user, group or unit state left"

wait "$lintian_pid"
lintian_rc=$?
grep -E '^[WE]: ' "$debs/lintian.out" >&2
[ $lintian_rc -eq 0 ] && ! grep -q '^E: ' "$debs/lintian.out" || fail "lintian reports errors (exit $lintian_rc)"
log "lintian: no errors, $(grep -c '^W: ' "$debs/lintian.out") warnings"
echo "PASS: packages build lintian-clean, install, load in slurmctld, run losd as its user, follow the admin guide, purge clean ($((SECONDS - started)) s)"
