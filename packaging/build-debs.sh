#!/usr/bin/env bash
# Builds the Debian packages of LOS from a build tree, with one command:
#
#   packaging/build-debs.sh [BUILD_DIR [OUT_DIR]]   # defaults: build, BUILD_DIR/debs
#
#   losd             losd, losctl, the systemd unit, /etc/los/losd.yaml (a
#                    conffile), the system user losd (postinst); enables and
#                    starts nothing
#   slurm-sched-los  sched_los.so in Slurm's plugin directory; Depends on the
#                    exact slurmctld version it was compiled against
#   sa-submit        sa-submit, for login nodes
#
# No compiling: the build tree must be built (cmake --build BUILD_DIR), with
# the plugin (LOS_BUILD_PLUGIN=ON) and the install layout of the packages
# (CMAKE_INSTALL_PREFIX=/usr, the default). The packages are cut from a staged
# `cmake --install --strip` (DESTDIR), so they hold exactly what
# `cmake --install` installs, man pages under share/man included. Runs as any
# user (dpkg-deb --root-owner-group). Prints the .deb paths last.
# docs/admin.md describes installing them; lintian checks them
# (tests/cluster/packages_test.sh).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="$(realpath "${1:-build}")"
out="${2:-$build/debs}"
say() { echo "build-debs.sh: $*" >&2; }
die() { say "error: $*"; exit 1; }

cache="$build/CMakeCache.txt"
[ -f "$cache" ] || die "$build is not a CMake build tree (no CMakeCache.txt)"
cache_value() { sed -n "s/^$1:[A-Z]*=//p" "$cache" | head -n1; }
for tool in dpkg-deb dpkg-shlibdeps gzip; do
  command -v "$tool" >/dev/null || die "$tool missing (apt-get install dpkg-dev)"
done

prefix="$(cache_value CMAKE_INSTALL_PREFIX)"
[ "$prefix" = /usr ] || die "the build tree installs to '$prefix'; the packages need /usr: cmake -DCMAKE_INSTALL_PREFIX=/usr $build"
[ "$(cache_value LOS_BUILD_PLUGIN)" = ON ] || die "the build tree has no plugin (LOS_BUILD_PLUGIN=OFF): run packaging/slurm-source.sh as root and re-run cmake"
plugin_dir="$(cache_value LOS_SLURM_PLUGIN_DIR)"
slurm_src="$(cache_value LOS_SLURM_SRC)"
los_version="$(cache_value CMAKE_PROJECT_VERSION)"
[ -n "$los_version" ] || die "no CMAKE_PROJECT_VERSION in $cache"
# The Slurm the plugin was compiled against: packaging/slurm-source.sh names
# the source directory slurm-<Debian version of slurm-wlm>.
slurm_version="$(basename "$slurm_src")"
slurm_version="${slurm_version#slurm-}"
grep -q "SLURM_VERSION_STRING \"${slurm_version%%-*}\"" "$slurm_src/config.h" 2>/dev/null \
  || die "cannot tell the Slurm version the plugin was built against ($slurm_src/config.h does not name ${slurm_version%%-*})"
arch="$(dpkg --print-architecture)"
maintainer="${DEBFULLNAME:-LOS developers} <${DEBEMAIL:-los-scheduler@users.noreply.github.com}>"
# Reproducible dates: the last commit's, else now.
epoch="${SOURCE_DATE_EPOCH:-$(git -C "$here" log -1 --format=%ct 2>/dev/null || date +%s)}"

work="$(mktemp -d "${TMPDIR:-/tmp}/los-debs.XXXXXX")"
trap 'rm -rf "$work"' EXIT
stage="$work/stage"
DESTDIR="$stage" cmake --install "$build" --strip >"$work/install.log" 2>&1 \
  || { cat "$work/install.log" >&2; die "cmake --install $build failed (is it built?)"; }
grep -q "^ExecStart=/usr/sbin/losd " "$stage/lib/systemd/system/losd.service" \
  || die "the staged unit does not run /usr/sbin/losd"

# take PKG PATH...: moves staged paths (relative to the stage) into PKG's tree.
take() {
  local pkg=$1 path
  shift
  for path in "$@"; do
    [ -e "$stage/$path" ] || die "cmake --install did not install /$path"
    mkdir -p "$work/$pkg/$(dirname "$path")"
    mv "$stage/$path" "$work/$pkg/$path"
  done
}
take losd usr/sbin/losd usr/bin/losctl lib/systemd/system/losd.service etc/los/losd.yaml \
  usr/share/doc/losd/examples/losd.defaults.yaml usr/share/doc/losd/examples/losd.example.yaml \
  usr/share/los/grafana usr/share/los/prometheus
take slurm-sched-los "${plugin_dir#/}/sched_los.so"
take sa-submit usr/bin/sa-submit
# Man pages go with the executable (or file) they describe.
if [ -d "$stage/usr/share/man" ]; then
  while IFS= read -r page; do
    name="$(basename "$page")"
    name="${name%%.*}"
    case "$name" in
      losd | losctl) take losd "${page#"$stage"/}" ;;
      sa-submit) take sa-submit "${page#"$stage"/}" ;;
      sched_los | sched-los) take slurm-sched-los "${page#"$stage"/}" ;;
    esac
  done < <(find "$stage/usr/share/man" -type f | sort)
fi
left="$(cd "$stage" && find . -type f | sed 's|^\./|/|' | sort | tr '\n' ' ')"
[ -z "$left" ] || say "not packaged: $left"

# control PKG VERSION SECTION DEPENDS SUMMARY DESCRIPTION [EXTRA_FIELDS]
control() {
  local pkg=$1 version=$2 section=$3 depends=$4 summary=$5 description=$6 extra=${7:-}
  local root="$work/$pkg" doc="$work/$pkg/usr/share/doc/$pkg" shlib="" size
  mkdir -p "$root/DEBIAN" "$doc"
  cp "$here/debian/copyright" "$doc/copyright"
  printf '%s (%s) unstable; urgency=medium\n\n  * Built from the LOS source tree by packaging/build-debs.sh.\n\n -- %s  %s\n' \
    "$pkg" "$version" "$maintainer" "$(date -u -R -d "@$epoch")" | gzip -9n >"$doc/changelog.Debian.gz"
  find "$root/usr/share/man" -type f ! -name '*.gz' -exec gzip -9n {} + 2>/dev/null || true
  # Shared-library dependencies of the ELF files, as dh_shlibdeps finds them.
  local elves=()
  mapfile -t elves < <(find "$root" -type f ! -path "$root/DEBIAN/*" -exec sh -c 'head -c4 "$1" | grep -q ELF' _ {} \; -print)
  if [ ${#elves[@]} -gt 0 ]; then
    mkdir -p "$work/shlibdeps/debian"
    : >"$work/shlibdeps/debian/control"
    shlib="$(cd "$work/shlibdeps" && dpkg-shlibdeps -O --ignore-missing-info -e "${elves[@]}" 2>"$work/shlibdeps-$pkg.log" \
      | sed -n 's/^shlibs:Depends=//p')" || { cat "$work/shlibdeps-$pkg.log" >&2; die "dpkg-shlibdeps failed for $pkg"; }
  fi
  find "$root" -type d -exec chmod 0755 {} +
  find "$root" -type f ! -perm -u+x -exec chmod 0644 {} +
  find "$root" -type f -perm -u+x -exec chmod 0755 {} +
  (cd "$root" && find . -type f ! -path './DEBIAN/*' -printf '%P\0' | sort -z | xargs -0 md5sum >DEBIAN/md5sums)
  size="$(du -sk --exclude=DEBIAN "$root" | cut -f1)"
  {
    echo "Package: $pkg"
    echo "Version: $version"
    echo "Architecture: $arch"
    echo "Maintainer: $maintainer"
    echo "Installed-Size: $size"
    echo "Depends: ${shlib:+$shlib, }$depends" | sed 's/, $//'
    [ -z "$extra" ] || printf '%s\n' "$extra"
    echo "Section: $section"
    echo "Priority: optional"
    echo "Homepage: https://github.com/los-scheduler/los"
    echo "Description: $summary"
    printf '%s\n' "$description" | sed 's/^$/./; s/^/ /'
  } >"$root/DEBIAN/control"
  sed -i '/^Depends: $/d' "$root/DEBIAN/control"
  mkdir -p "$out"
  dpkg-deb --root-owner-group -Zxz --build "$root" "$out/${pkg}_${version}_${arch}.deb" >/dev/null
  echo "$out/${pkg}_${version}_${arch}.deb"
}

mkdir -p "$work/losd/DEBIAN"
for script in postinst prerm postrm; do
  install -m 0755 "$here/debian/losd.$script" "$work/losd/DEBIAN/$script"
done
echo /etc/los/losd.yaml >"$work/losd/DEBIAN/conffiles"

# The three packages are built side by side (dpkg-shlibdeps takes most of the time).
control losd "$los_version-1" admin "adduser" \
  "LOS scheduling daemon for Slurm (losd, losctl)" \
  "losd decides which jobs the sched/los Slurm plugin starts, with the
research policies of LOS (lookahead-optimizing backfilling, conservative
backfilling with tabu optimisation, gang scheduling, EASY, FCFS). losctl
shows its status, plans and predicted starts and switches policies.

The package installs the systemd unit losd.service and creates the system
user losd; it enables and starts nothing. See
/usr/share/doc/losd/examples/ and the LOS admin guide (docs/admin.md)." \
  "Recommends: slurm-sched-los, slurmctld" >"$work/deb-losd" &
pids=($!)
control slurm-sched-los "$los_version+slurm${slurm_version%%-*}-1" admin "slurmctld (= $slurm_version)" \
  "Slurm scheduler plugin sched/los (hands decisions to losd)" \
  "sched_los.so, loaded by slurmctld with SchedulerType=sched/los, sends
snapshots of the queue to losd and applies its decisions; while losd is
down it schedules by itself (EASY backfilling by default).

Slurm loads a plugin only into the exact version it was built for, so this
package depends on exactly slurmctld $slurm_version: upgrade Slurm
together with a plugin rebuilt for the new version (docs/admin.md)." \
  "Recommends: losd" >"$work/deb-slurm-sched-los" &
pids+=($!)
control sa-submit "$los_version-1" utils "" \
  "moldable job submission for Slurm clusters scheduled by LOS" \
  "sa-submit submits a job that can run in several shapes (nodes x time)
with the shape that finishes first, reading the partition's availability
from losd's query socket, and hands it to sbatch. For login nodes: it
reaches losd through a path to the query socket (docs/admin.md)." \
  "Recommends: slurm-client" >"$work/deb-sa-submit" &
pids+=($!)
for pid in "${pids[@]}"; do
  wait "$pid" || die "building a package failed (see above)"
done
cat "$work"/deb-{losd,slurm-sched-los,sa-submit}
