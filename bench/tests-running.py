#!/usr/bin/env python3
"""Which tests were running when a sanitizer report was last written: what
bench/sanitized-tests.sh prints above each report (a report of a daemon that a test started names
no test itself, and an ASan report of a corrupted heap may have no stack).

Usage: bench/tests-running.py REPORT TESTS_LOG
TESTS_LOG holds a line per test, "START END NODEID", in seconds since the epoch as the report's
mtime is (tests/conftest.py writes it when NOTIFYD_SANITIZER_REPORTS is set).
"""

import os
import sys

# A report is written as the daemon exits, which a test's teardown may let happen a little after
# the test itself ended.
AFTER = 5.0


def running(written, spans):
    return [test for start, end, test in spans if float(start) <= written <= float(end) + AFTER]


def main(report, tests_log):
    written = os.stat(report).st_mtime
    try:
        with open(tests_log) as lines:
            spans = [line.rstrip("\n").split(" ", 2) for line in lines if line.strip()]
    except OSError:
        spans = []
    print(f"written while these tests ran (or within {AFTER:.0f} s of their end):",
          *running(written, spans) or ["(none recorded)"], sep="\n  ")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(*sys.argv[1:])
