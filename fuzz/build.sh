#!/usr/bin/env bash
# Builds the libFuzzer targets with the toolchain's own libFuzzer and AddressSanitizer:
#   OUT/fuzz-varlink   Varlink framing + request decoding (fuzz/VarlinkFuzzTarget.swift)
#   OUT/fuzz-config    the config file through libinih and ConfigParser (fuzz/ConfigFuzzTarget.swift)
# Not through SwiftPM: each library the targets need is compiled here, instrumented, from the
# files listed below. Usage: fuzz/build.sh [OUT]   (default .build/fuzz)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-.build/fuzz}
mkdir -p "$out/modules"
swiftc=${SWIFTC:-swiftc}
flags=(-parse-as-library -sanitize=fuzzer,address -O -wmo -g -I "$out/modules")

# The sources compiled into the targets. NotifyProtocol and NotifyCore are whole modules (they
# depend on nothing but the toolchain); of NotifySystem only the config reader is needed.
protocol_sources=(Sources/NotifyProtocol/*.swift)
core_sources=(Sources/NotifyCore/*.swift)
system_sources=(Sources/NotifySystem/ConfigLoader.swift)

# A static library and module for one Swift module. The linker's complaints about ASan's local
# symbols are noise.
library() {
  local name=$1
  shift
  "$swiftc" "${flags[@]}" -emit-library -static -emit-module -module-name "$name" \
    -emit-module-path "$out/modules/$name.swiftmodule" "$@" -o "$out/lib$name.a" 2>&1 | grep -v "Cannot export local symbol" || true
  [ -f "$out/lib$name.a" ]
}

executable() {
  local output=$1
  shift
  "$swiftc" "${flags[@]}" "$@" -o "$output" 2>&1 | grep -v "Cannot export local symbol" || true
  [ -x "$output" ]
}

rm -f "$out"/lib*.a "$out"/fuzz-varlink "$out"/fuzz-config
library NotifyProtocol "${protocol_sources[@]}"
library NotifyCore "${core_sources[@]}" &
core=$!
executable "$out/fuzz-varlink" fuzz/VarlinkFuzzTarget.swift "$out/libNotifyProtocol.a" &
varlink=$!
wait "$core"
executable "$out/fuzz-config" -I Sources/CInih fuzz/ConfigFuzzTarget.swift "${system_sources[@]}" \
  "$out/libNotifyCore.a" "$out/libNotifyProtocol.a" -linih
wait "$varlink"
echo "fuzz: built $out/fuzz-varlink and $out/fuzz-config"
