#!/usr/bin/env bash
# Prepares what the sched/los plugin is compiled against: slurmctld's internal
# headers, which no -dev package ships. On a Debian 12 machine, as root:
#   1. installs whichever of Slurm (slurm-wlm slurmctld slurmd slurm-client
#      libslurm-dev) and dpkg-dev is missing; services of packages it installs
#      are kept from starting during that install (policy-rc.d); installed
#      packages and their services are left alone;
#   2. adds a deb-src line for bookworm main when apt has none;
#   3. fetches `apt-get source slurm-wlm` of the exact installed version into
#      the cache directory and runs its ./configure once for config.h.
# Idempotent: a cache that already holds the configured source of the
# installed version is left as it is. Prints the source directory last.
#
#   packaging/slurm-source.sh                      # cache in /var/cache/los/slurm-src
#   LOS_SLURM_SRC_CACHE=/some/dir packaging/slurm-source.sh
set -euo pipefail

cache="${LOS_SLURM_SRC_CACHE:-/var/cache/los/slurm-src}"
say() { echo "slurm-source.sh: $*" >&2; }
die() { say "error: $*"; exit 1; }

[ "$(id -u)" -eq 0 ] || die "must run as root (it calls apt-get)"

packages=(slurm-wlm slurmctld slurmd slurm-client libslurm-dev dpkg-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done

export DEBIAN_FRONTEND=noninteractive
if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${missing[*]}"
  # Installing slurmctld/slurmd would start their services; policy-rc.d
  # (exit 101) forbids that for the duration of this install only. An
  # existing policy-rc.d (the site's) is used as it is and not touched.
  policy=/usr/sbin/policy-rc.d
  had_policy=0
  [ -e "$policy" ] && had_policy=1
  if [ $had_policy -eq 0 ]; then
    printf '#!/bin/sh\nexit 101\n' > "$policy"
    chmod +x "$policy"
    trap 'rm -f "$policy"' EXIT
  fi
  apt-get update -qq
  apt-get install -y --no-install-recommends -qq "${missing[@]}" >/dev/null
  if [ $had_policy -eq 0 ]; then rm -f "$policy"; trap - EXIT; fi
fi

# Nothing here stops, disables or reconfigures an installed service: on a
# running cluster the site's slurmctld and slurmd keep running as they were.
# (The live-cluster tests start their own daemons on free ports with their own
# slurm.conf; Debian's units do not start without /etc/slurm/slurm.conf.)

version="$(dpkg-query -W -f='${Version}' slurm-wlm)"
upstream="${version%%-*}"
stamp="$cache/.los-configured-$version"
if [ -f "$stamp" ]; then
  src="$(cat "$stamp")"
  [ -f "$src/config.h" ] && { echo "$src"; exit 0; }
fi

# apt-get source needs a deb-src line for bookworm main.
if ! grep -rqsE '^(deb-src|Types:.*deb-src)' /etc/apt/sources.list /etc/apt/sources.list.d/; then
  say "adding a deb-src line for bookworm main"
  # apt refuses two entries for one archive with different keyrings, so the
  # new line uses the keyring the existing entries name, if they name one.
  keyring=/usr/share/keyrings/debian-archive-keyring.gpg
  opt=""
  grep -rqsiE "(Signed-By:|signed-by=) *$keyring" /etc/apt/sources.list /etc/apt/sources.list.d/ \
    && opt="[signed-by=$keyring] "
  list=/etc/apt/sources.list.d/los-deb-src.list
  {
    echo "deb-src ${opt}http://deb.debian.org/debian bookworm main"
    echo "deb-src ${opt}http://deb.debian.org/debian bookworm-updates main"
    echo "deb-src ${opt}http://deb.debian.org/debian-security bookworm-security main"
  } > "$list"
  if ! apt-get update -qq; then
    rm -f "$list"
    die "apt-get update failed with the deb-src lines added; removed $list again"
  fi
fi

mkdir -p "$cache"
work="$cache/tmp.$$"
rm -rf "$work"
mkdir -p "$work"
say "fetching the source of slurm-wlm $version"
(cd "$work" && apt-get source -qq "slurm-wlm=$version" >/dev/null) \
  || die "apt-get source slurm-wlm=$version failed (is the version still in the archive?)"
unpacked="$(find "$work" -maxdepth 1 -mindepth 1 -type d -name "slurm*" | head -n1)"
[ -n "$unpacked" ] || die "apt-get source left no slurm* directory in $work"
src="$cache/slurm-$version"
rm -rf "$src"
mv "$unpacked" "$src"
rm -rf "$work"

say "configuring $src (about 20 s)"
(cd "$src" && ./configure --prefix=/usr --sysconfdir=/etc/slurm >"$src/los-configure.log" 2>&1) \
  || die "./configure failed; see $src/los-configure.log"
[ -f "$src/config.h" ] || die "./configure produced no config.h in $src"
grep -q "SLURM_VERSION_STRING \"$upstream\"" "$src/config.h" \
  || say "warning: config.h does not name version $upstream"
echo "$src" > "$stamp"
echo "$src"
