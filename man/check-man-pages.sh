#!/usr/bin/env bash
# check-man-pages.sh PAGE...: renders each man page as `man -l` does and
# fails on a missing page, a groff warning, an empty rendering or a NAME
# section whatis/apropos cannot parse. The list of pages comes from the build
# (man/CMakeLists.txt: one per executable). Pages render in parallel (man
# takes about a second each on a busy machine; its seccomp sandbox, which
# only guards against hostile pages, is the slowest part and is left off).
set -uo pipefail
command -v man >/dev/null || { echo "check-man-pages: man not found (packaging/install-deps.sh installs man-db)" >&2; exit 1; }
[ $# -gt 0 ] || { echo "check-man-pages: no pages given" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
i=0
for page in "$@"; do
  i=$((i + 1))
  [ -s "$page" ] && MAN_DISABLE_SECCOMP=1 MANWIDTH=80 man --warnings -E UTF-8 -l -P cat "$page" >"$work/$i.out" 2>"$work/$i.err" &
done
wait
failed=0
i=0
for page in "$@"; do
  i=$((i + 1))
  if [ ! -s "$page" ]; then
    echo "FAIL $page: missing (build the man_pages target)" >&2
    failed=1
  elif [ -s "$work/$i.err" ]; then
    echo "FAIL $page: groff warnings:" >&2
    cat "$work/$i.err" >&2
    failed=1
  elif ! grep -q '^SYNOPSIS' "$work/$i.out" || ! grep -q '^OPTIONS' "$work/$i.out"; then
    echo "FAIL $page: no SYNOPSIS or OPTIONS section in the rendering" >&2
    failed=1
  elif ! whatis_line=$(lexgrog "$page" 2>&1); then
    echo "FAIL $page: whatis cannot parse its NAME section: $whatis_line" >&2
    failed=1
  else
    echo "ok   $page: $(wc -l <"$work/$i.out") lines; ${whatis_line#*: }"
  fi
done
exit $failed
