#!/usr/bin/env bash
# Installs every Debian 12 package LOS needs to build, test and run.
# Idempotent; run as root on a fresh machine. Used by the README, CI and admins.
#
#   packaging/install-deps.sh            # build + test dependencies
#   LOS_DEPS_QUIET=1 packaging/install-deps.sh   # less apt output
set -euo pipefail

if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps.sh: must run as root (it calls apt-get)" >&2
  exit 1
fi

packages=(
  # toolchain
  build-essential cmake pkg-config git ca-certificates
  # libraries of the policy engine, daemon and tools
  zlib1g-dev nlohmann-json3-dev libboost-dev libyaml-cpp-dev
  prometheus-cpp-dev libsystemd-dev
  # tests and benchmarks (systemd: systemd-analyze verifies systemd/losd.service)
  libgtest-dev libgmock-dev libbenchmark-dev systemd
  # scripts/test-hardening.sh: clang and libFuzzer for tests/fuzz (the
  # sanitizer builds use gcc's runtimes from build-essential)
  clang libclang-rt-14-dev
  # result plots and reports (scripts/results)
  gnuplot-nox python3
  # Slurm, for the sched/los plugin and the live-cluster tests; dpkg-dev for
  # `apt-get source` (packaging/slurm-source.sh fetches slurmctld's headers)
  slurm-wlm slurmctld slurmd slurm-client libslurm-dev dpkg-dev
  # the live-cluster harness and demo: ss (free ports), curl (losd metrics)
  iproute2 curl
  # packaging/build-debs.sh and its test: lintian checks the .deb files
  lintian
  libcli11-dev man-db  # the tools' argument parser; man -l renders the man pages in their test
  # the live-cluster accounting mode (cluster_accounting_up, QOS-limit test):
  # a private MariaDB server and slurmdbd; policy-rc.d below keeps their
  # services from starting at install
  mariadb-server slurmdbd
  # the clock-jump live test: libfaketime shifts slurmctld's and losd's clock
  # only, never the machine's
  faketime
)

# ---- dashboards and alerts (tests/cluster/dashboards_test.sh) --------------
# Debian's prometheus: prometheus and promtool. Its package would start
# prometheus.service on port 9090; the policy-rc.d guard of the install below
# (exit 101, only while we install) keeps it from starting. Nothing else about
# the service is changed: a prometheus.service already installed and running
# stays as it is, and the test runs its own instance on a free port.
packages+=(prometheus)
# Grafana's dashboard model (@grafana/schema: TypeScript types, no JSON
# Schema) and the TypeScript compiler that checks the dashboards against it,
# from npm into a cache directory (versions pinned; the test reads them there).
grafana_schema_dir="${LOS_GRAFANA_SCHEMA_DIR:-/var/cache/los/grafana-schema}"
grafana_npm=(@grafana/schema@13.2.3 typescript@7.0.2)
if [ ! -f "$grafana_schema_dir/node_modules/@grafana/schema/package.json" ] ||
  [ ! -f "$grafana_schema_dir/node_modules/typescript/package.json" ]; then
  if ! command -v npm >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends -qq nodejs npm
  fi
  mkdir -p "$grafana_schema_dir"
  npm install --prefix "$grafana_schema_dir" --no-audit --no-fund --loglevel=error "${grafana_npm[@]}"
  echo "install-deps.sh: installed ${grafana_npm[*]} in $grafana_schema_dir"
fi
# ---- end of dashboards and alerts -------------------------------------------

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps.sh: all ${#packages[@]} packages already installed"
  exit 0
fi

export DEBIAN_FRONTEND=noninteractive
q=()
[ "${LOS_DEPS_QUIET:-0}" = 1 ] && q=(-qq)
apt-get update "${q[@]}"
# Installing slurmctld/slurmd would start their services: the tests run their
# own daemons, so policy-rc.d (exit 101) forbids starts during the install.
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' > "$policy"
  chmod +x "$policy"
  trap 'rm -f "$policy"' EXIT
fi
apt-get install -y --no-install-recommends "${q[@]}" "${missing[@]}"
echo "install-deps.sh: installed ${missing[*]}"
