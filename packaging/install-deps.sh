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
)

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
