#!/usr/bin/env bash
# The hardening stages of scripts/test.sh (issue 19), each in its own build
# directory, each failing the run on any finding:
#   fuzz  build-fuzz   clang + libFuzzer: every target in tests/fuzz runs
#                      LOS_FUZZ_SECONDS (5) on its seed corpus
#   asan  build-asan   -DLOS_SANITIZE=address,undefined: the unit, trace and
#                      daemon (integration) tests; whole-trace tests on the
#                      first LOS_TEST_TRACE_JOBS (2000) jobs of each trace
#   tsan  build-tsan   -DLOS_SANITIZE=thread: losd's concurrency tests
#                      (concurrent clients, limits, the query flood)
# Usage: scripts/test-hardening.sh [fuzz] [asan] [tsan]   (default: all three)
# Needs what scripts/build.sh installs (clang comes with the dependencies).
# Each stage prints its wall time. docs/development.md describes the stages.
set -euo pipefail
cd "$(dirname "$0")/.."

stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(fuzz asan tsan)
jobs=$(nproc)
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
# Only what the stages run: no benchmarks, no plugin (never instrumented).
common_options=(-DLOS_BUILD_BENCHMARKS=OFF -DLOS_BUILD_PLUGIN=OFF "${launcher[@]}")
# -O1 with line tables: readable sanitizer stacks, a quick build.
sanitizer_options=(-DCMAKE_BUILD_TYPE= "-DCMAKE_CXX_FLAGS=-O1 -g1" "-DCMAKE_C_FLAGS=-O1 -g1")
# A finding aborts the test that met it (LOS_SANITIZE adds -fno-sanitize-recover).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}

timed() {
  local name=$1 start=$SECONDS
  shift
  echo "== hardening: $name"
  "$@"
  echo "== hardening: $name took $((SECONDS - start)) s"
}

fuzz() {
  cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DLOS_BUILD_FUZZERS=ON \
    -DLOS_BUILD_TESTS=OFF "${common_options[@]}" >/dev/null
  cmake --build build-fuzz -j"$jobs" --target los_fuzzers
  local seconds=${LOS_FUZZ_SECONDS:-5} out
  out=$(mktemp -d)
  # New inputs go to a scratch directory, never into the committed corpus.
  ls tests/fuzz/corpus | xargs -P"$jobs" -I{} sh -c \
    "mkdir -p $out/{} && build-fuzz/bin/fuzz_{} -max_total_time=$seconds -timeout=30 -artifact_prefix=$out/{}- \
       $out/{} tests/fuzz/corpus/{} > $out/{}.log 2>&1 \
     && echo 'fuzz_{}: '\"\$(grep -o 'Done [0-9]* runs in [0-9]* second' $out/{}.log)\" \
     || { echo 'fuzz_{} FAILED:'; tail -n 40 $out/{}.log; exit 255; }"
  rm -rf "$out"
}

asan() {
  cmake -S . -B build-asan -DLOS_SANITIZE=address,undefined "${sanitizer_options[@]}" "${common_options[@]}" \
    >/dev/null
  cmake --build build-asan -j"$jobs" --target los_unit_tests los_integration_tests los_plugin_core_tests losd losctl \
    los-sim sa-experiments sa-submit
  # Left out: the man pages (not a sanitizer matter; their test needs the
  # man_pages target); and the tests whose sanity checks need a whole trace, which a
  # 2,000-job prefix does not meet although every invariant holds on it
  # ("some job got a reservation", "tabu searched", "seeds differ", Lublin's
  # statistics against the reference trace).
  local whole_trace='LosTraces\.InvariantsHoldForEveryVariantOnEveryTrace$|TraceInvariants\.|TabuTraceInvariants\.'
  whole_trace+='|TabuPolicy\.RunsAreReproducibleAndSeedMatters|TabuPolicy\.SafeNeverStartsAJobAfterItsFirstReservation'
  whole_trace+='|Lublin\.MatchesTheReferenceImplementationsTrace'
  LOS_TEST_TRACE_JOBS=${LOS_TEST_TRACE_JOBS:-2000} \
    ctest --test-dir build-asan -LE "cluster|man" -E "$whole_trace" -j"$jobs" --output-on-failure
}

tsan() {
  cmake -S . -B build-tsan -DLOS_SANITIZE=thread "${sanitizer_options[@]}" -DLOS_BUILD_TESTS=ON \
    "${common_options[@]}" >/dev/null
  cmake --build build-tsan -j"$jobs" --target los_integration_tests losd losctl
  ctest --test-dir build-tsan -L integration -R 'LosdLimits\.|LosdQueries\.HundredConcurrent|LosdPrivacy\.' \
    -j"$jobs" --output-on-failure
}

for stage in "${stages[@]}"; do
  case $stage in
    fuzz | asan | tsan) timed "$stage" "$stage" ;;
    *)
      echo "test-hardening.sh: unknown stage '$stage' (fuzz, asan, tsan)" >&2
      exit 2
      ;;
  esac
done
