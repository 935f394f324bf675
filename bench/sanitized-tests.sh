#!/usr/bin/env bash
# Runs integration tests against a daemon built with a sanitizer, and fails if the sanitizer
# reported anything. The daemons' stderr goes to files the tests delete, so each daemon writes its
# reports to SCRATCH/reports/RUN/<kind>.PID instead (ASAN_OPTIONS / TSAN_OPTIONS log_path), RUN
# being this script's PID: runs on one build may overlap, and each reads only its own reports.
# Each test's start and end go to tests.log there (tests/conftest.py), and each report is printed
# with the tests that were running when it was last written to.
# Usage: bench/sanitized-tests.sh address|thread SCRATCH PYTEST-ARGUMENT...   (after
#        swift build --sanitize=KIND --scratch-path SCRATCH)
#        bench/sanitized-tests.sh address|thread SCRATCH -- COMMAND...   (the soak: a command, not pytest)
set -uo pipefail
kind=$1
scratch=$(cd "$2" && pwd)
shift 2
mkdir -p "$scratch/reports"
chmod 1777 "$scratch/reports"
reports="$scratch/reports/$$"
rm -rf "$reports"
mkdir -p "$reports"
# The popup tests run their daemon as an unprivileged user, whose reports must land here too.
chmod 1777 "$reports"
# A crash is reported by the sanitizer; Swift's own backtracer would only hold the run up.
export SWIFT_BACKTRACE=enable=no
# Tests that bound the daemon's resident set leave that bound out: ASan keeps freed memory in
# quarantine, TSan shadows all of it.
export NOTIFYD_SANITIZER="$kind"
export NOTIFYD_SANITIZER_REPORTS="$reports"
case "$kind" in
  address) export ASAN_OPTIONS="log_path=$reports/asan:detect_leaks=1" \
    LSAN_OPTIONS="suppressions=$(cd "$(dirname "$0")" && pwd)/lsan.supp:print_suppressions=0" ;;
  thread) export TSAN_OPTIONS="log_path=$reports/tsan:halt_on_error=0:second_deadlock_stack=1" ;;
  *) echo "usage: $0 address|thread SCRATCH TEST... | -- COMMAND..." >&2; exit 2 ;;
esac
status=0
if [ "${1:-}" = "--" ]; then
  shift
  NOTIFYD_BIN="$scratch/debug" "$@" || status=$?
else
  NOTIFYD_BIN="$scratch/debug" "${PYTHON:-python3}" -m pytest -q -p no:cacheprovider "$@" || status=$?
fi
prefix=$([ "$kind" = address ] && echo asan || echo tsan)
found=$(find "$reports" -type f -name "$prefix.*" | wc -l)
if [ "$found" -gt 0 ]; then
  echo "sanitized-tests: $kind sanitizer reports in $reports:" >&2
  for report in "$reports/$prefix".*; do
    echo "---- $report" >&2
    "${PYTHON:-python3}" "$(dirname "$0")/tests-running.py" "$report" "$reports/tests.log" >&2
    head -n 60 "$report" >&2
  done
  status=1
else
  echo "sanitized-tests: no $kind sanitizer reports"
fi
exit "$status"
