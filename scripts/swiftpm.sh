#!/usr/bin/env bash
# Runs a SwiftPM command (`swift build`, `swift test`) once more if SwiftPM itself crashed.
#
# The toolchain's own processes crash now and then in libdispatch's event loop on Linux
# (`_dispatch_event_loop_drain`, swiftlang/swift#87033): CI's `swift test` once died of a SIGSEGV
# in libdispatch. That is told apart from the project's failures by how the process ended: a failing or
# crashing test makes `swift test` exit 1 (it reports the test process's signal and returns), a
# compile error makes `swift build` exit 1, while a SwiftPM process killed by a signal ends with
# 128 + the signal. Only that is retried, once, saying so; anything else is returned as it was.
#
# A build runs in an environment of its own, the same every time: PATH, TMPDIR, NOTIFYD_TEST_TARGETS
# and NOTIFYD_LEAVE_OUT (which Package.swift reads), and a HOME of its own in .build. SwiftPM relinks the WireTypes
# plugin's tool whenever the environment it builds in changes, any variable, and so regenerates the
# Varlink records and recompiles NotifyProtocol and what follows: `make install PREFIX=…` after
# `make deb` rebuilt for half a minute of CPU (MAKEFLAGS differs, and debhelper gives a package
# build a HOME of its own), and twice more in test_install, each `make` with other variables.
set -uo pipefail
if [ "${2:-}" = build ]; then
    home="$(cd "$(dirname "$0")/.." && pwd)/.build/swiftpm-home"
    mkdir -p "$home"
    set -- env -i PATH="$PATH" HOME="$home" ${TMPDIR:+TMPDIR="$TMPDIR"} \
        ${NOTIFYD_TEST_TARGETS:+NOTIFYD_TEST_TARGETS="$NOTIFYD_TEST_TARGETS"} \
        ${NOTIFYD_LEAVE_OUT:+NOTIFYD_LEAVE_OUT="$NOTIFYD_LEAVE_OUT"} "$@"
fi
"$@"
status=$?
if ((status > 128 && status < 160)); then
    echo "scripts/swiftpm.sh: '$*' was killed by signal $((status - 128)) (SwiftPM itself, not a test); running it once more" >&2
    "$@"
    status=$?
fi
exit "$status"
