#!/usr/bin/env bash
# Generates the Wayland protocol glue of Sources/CWayland with wayland-scanner: our own
# protocols/*.xml and Debian's xdg-output and xdg-shell descriptions. `--check` only compares (make lint).
set -euo pipefail
cd "$(dirname "$0")/.."
data=$(pkg-config --variable=pkgdatadir wayland-protocols)
# xdg-shell only because layer-shell's get_popup names xdg_popup: its interface must be linked.
# xdg-activation for the token an action's program is started with (ActivationToken on D-Bus).
# ext-idle-notify, and KDE's idle protocol (Debian's plasma-wayland-protocols) where the compositor
# has only that (sway 1.7), for [Idle] After=. viewporter stretches the 1×1 buffer of the surface
# that catches a click outside the notification center. wlr-foreign-toplevel-management (our own
# description) tells which window has the focus, and on which output.
kde=/usr/share/plasma-wayland-protocols
sources=(protocols/wlr-layer-shell-unstable-v1.xml protocols/wlr-foreign-toplevel-management-unstable-v1.xml
  "$data/unstable/xdg-output/xdg-output-unstable-v1.xml"
  "$data/stable/xdg-shell/xdg-shell.xml" "$data/staging/xdg-activation/xdg-activation-v1.xml"
  "$data/staging/ext-idle-notify/ext-idle-notify-v1.xml" "$kde/idle.xml" "$data/stable/viewporter/viewporter.xml")
out=Sources/CWayland
check=${1:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/include"
for xml in "${sources[@]}"; do
  name=$(basename "$xml" .xml)
  [ "$xml" = "$kde/idle.xml" ] && name=org-kde-kwin-idle
  wayland-scanner client-header "$xml" "$work/include/$name-client-protocol.h"
  wayland-scanner private-code "$xml" "$work/$name-protocol.c"
done
if [ "$check" = --check ]; then
  for file in "$work"/include/*.h "$work"/*.c; do
    relative=${file#"$work"/}
    cmp -s "$file" "$out/$relative" || { echo "wayland-glue: $out/$relative is out of date: run scripts/wayland-glue.sh" >&2; exit 1; }
  done
else
  cp "$work"/include/*.h "$out/include/"
  cp "$work"/*.c "$out/"
fi
