#!/usr/bin/env bash
# Builds the libFuzzer targets with the toolchain's own libFuzzer and AddressSanitizer:
#   OUT/fuzz-varlink   Varlink framing + the daemon's one-pass call reading (fuzz/VarlinkFuzzTarget.swift)
#   OUT/fuzz-config    the config file through libinih and ConfigParser (fuzz/ConfigFuzzTarget.swift)
#   OUT/fuzz-markup    a notification body through the markup reader, BodyMarkup (fuzz/MarkupFuzzTarget.swift)
# Not through SwiftPM: each library the targets need is compiled here, instrumented, from the
# files listed below. Usage: fuzz/build.sh [OUT]   (default .build/fuzz)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-.build/fuzz}
mkdir -p "$out/modules"
swiftc=${SWIFTC:-swiftc}
# -num-threads: a whole module's optimization and code generation on both cores, not one.
flags=(-parse-as-library -sanitize=fuzzer,address -O -wmo -num-threads 2 -gline-tables-only -I "$out/modules")

# The sources compiled into the targets: whole modules from NotifyPosix up to NotifyVarlink (they
# depend on nothing but the toolchain and CLinux's module map), and NotifyConfig with NotifyPaths
# (libinih's too).
posix_sources=(Sources/NotifyPosix/*.swift)
paths_sources=(Sources/NotifyPaths/*.swift)
# NotifyProtocol's records are generated from its IDL files, as the WireTypes plugin does in SwiftPM.
"$swiftc" -O Sources/notifyd-wiregen/*.swift -o "$out/notifyd-wiregen"
"$out/notifyd-wiregen" "$out/WireTypes.swift" Sources/NotifyProtocol/*.varlink
protocol_sources=(Sources/NotifyProtocol/*.swift "$out/WireTypes.swift")
support_sources=(Sources/NotifySupport/*.swift)
core_sources=(Sources/NotifyCore/*.swift Sources/NotifyCore/Engine/*.swift)
service_sources=(Sources/NotifyService/*.swift)
varlink_sources=(Sources/NotifyVarlink/*.swift)
config_sources=(Sources/NotifyConfig/*.swift)
flags+=(-I Sources/CLinux)

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

rm -f "$out"/lib*.a "$out"/fuzz-varlink "$out"/fuzz-config "$out"/fuzz-markup
# Modules that need nothing of each other are built side by side.
library NotifySupport "${support_sources[@]}" &
support=$!
library NotifyPosix "${posix_sources[@]}"
library NotifyPaths "${paths_sources[@]}" &
paths=$!
library NotifyProtocol "${protocol_sources[@]}"
wait "$support" "$paths"
library NotifyCore "${core_sources[@]}"
library NotifyConfig -I Sources/CInih "${config_sources[@]}" &
config=$!
library NotifyService "${service_sources[@]}"
library NotifyVarlink "${varlink_sources[@]}"
wait "$config"
modules=("$out/libNotifyVarlink.a" "$out/libNotifyService.a" "$out/libNotifyCore.a" "$out/libNotifySupport.a"
  "$out/libNotifyProtocol.a" "$out/libNotifyPosix.a")
executable "$out/fuzz-varlink" fuzz/VarlinkFuzzTarget.swift "${modules[@]}" &
varlink=$!
executable "$out/fuzz-config" -I Sources/CInih fuzz/ConfigFuzzTarget.swift "$out/libNotifyConfig.a" \
  "$out/libNotifyPaths.a" "${modules[@]}" -linih
wait "$varlink"
executable "$out/fuzz-markup" fuzz/MarkupFuzzTarget.swift "$out/libNotifyProtocol.a" "$out/libNotifyPosix.a"
echo "fuzz: built $out/fuzz-varlink, $out/fuzz-config and $out/fuzz-markup"
