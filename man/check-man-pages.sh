#!/usr/bin/env bash
# check-man-pages.sh PAGE...: renders each man page as `man -l` does and
# fails on a missing page, a groff warning, an empty rendering or a NAME
# section whatis/apropos cannot parse. The list of pages comes from the build
# (man/CMakeLists.txt: one per executable).
set -uo pipefail
command -v man >/dev/null || { echo "check-man-pages: man not found (packaging/install-deps.sh installs man-db)" >&2; exit 1; }
[ $# -gt 0 ] || { echo "check-man-pages: no pages given" >&2; exit 1; }
failed=0
for page in "$@"; do
  if [ ! -s "$page" ]; then
    echo "FAIL $page: missing (build the man_pages target)" >&2
    failed=1
    continue
  fi
  warnings=$(MANWIDTH=80 man --warnings -E UTF-8 -l -P cat "$page" 2>&1 >/dev/null)
  rendered=$(MANWIDTH=80 man -E UTF-8 -l -P cat "$page" 2>/dev/null)
  if [ -n "$warnings" ]; then
    echo "FAIL $page: groff warnings:" >&2
    echo "$warnings" >&2
    failed=1
  elif ! grep -q '^OPTIONS' <<<"$rendered" || ! grep -q '^SYNOPSIS' <<<"$rendered"; then
    echo "FAIL $page: no SYNOPSIS or OPTIONS section in the rendering" >&2
    failed=1
  elif ! whatis_line=$(lexgrog "$page" 2>&1); then
    echo "FAIL $page: whatis cannot parse its NAME section: $whatis_line" >&2
    failed=1
  else
    echo "ok   $page: $(wc -l <<<"$rendered") lines; ${whatis_line#*: }"
  fi
done
exit $failed
