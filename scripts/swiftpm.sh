#!/usr/bin/env bash
# Runs a SwiftPM command (`swift build`, `swift test`) once more if SwiftPM itself crashed.
#
# The toolchain's own processes crash now and then in libdispatch's event loop on Linux
# (`_dispatch_event_loop_drain`, swiftlang/swift#87033): CI's `swift test` once died of a SIGSEGV
# in libdispatch. That is told apart from the project's failures by how the process ended: a failing or
# crashing test makes `swift test` exit 1 (it reports the test process's signal and returns), a
# compile error makes `swift build` exit 1, while a SwiftPM process killed by a signal ends with
# 128 + the signal. Only that is retried, once, saying so; anything else is returned as it was.
set -uo pipefail
"$@"
status=$?
if ((status > 128 && status < 160)); then
    echo "scripts/swiftpm.sh: '$*' was killed by signal $((status - 128)) (SwiftPM itself, not a test); running it once more" >&2
    "$@"
    status=$?
fi
exit "$status"
