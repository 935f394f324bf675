#!/usr/bin/env bash
# Runs COMMAND [ARG...] beside the peer notifyd is measured against: dunst on a private session
# bus under a private X server (Xvfb), none of them touching the user's own session.
#
# COMMAND gets DBUS_SESSION_BUS_ADDRESS and DISPLAY for them, NOTIFYD_BENCH_PEER=1, and the pid
# of the bus daemon (NOTIFYD_BENCH_BUS_PID), so that it can count its CPU time. dunst is started
# by the bus on demand (activation), so COMMAND may stop it between runs for a fresh one; it
# finds dunst's pid on the bus. Everything started here is stopped when COMMAND exits.
# Needs the Debian packages xvfb, dbus, dunst and libnotify-bin.
set -euo pipefail

for tool in Xvfb dbus-daemon dunst notify-send; do
  command -v "$tool" >/dev/null || { echo "with-peer: $tool is missing (apt-get install xvfb dbus dunst libnotify-bin)" >&2; exit 1; }
done

work=$(mktemp -d /tmp/notifyd-peer.XXXXXX)
pids=()
peer_bus=""
cleanup() {
  set +e
  # dunst is the bus's child: ask the bus for its pid before stopping the bus.
  if [ -n "$peer_bus" ]; then
    dunst_pid=$(DBUS_SESSION_BUS_ADDRESS="$peer_bus" dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
      org.freedesktop.DBus.GetConnectionUnixProcessID string:org.freedesktop.Notifications 2>/dev/null |
      awk '/uint32/ {print $2}')
    [ -n "$dunst_pid" ] && kill "$dunst_pid" 2>/dev/null || true
  fi
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Xvfb picks a free display itself and writes its number to fd 3.
Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp -nolisten unix 3>"$work/display" >"$work/xvfb.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do [ -s "$work/display" ] && break; sleep 0.05; done
[ -s "$work/display" ] || { echo "with-peer: Xvfb did not start; see $work/xvfb.log" >&2; cat "$work/xvfb.log" >&2; exit 1; }
export DISPLAY=":$(head -n1 "$work/display")"

# A session bus of our own, at a path under $work, that starts dunst on demand (bus activation),
# so that the bench can stop dunst between runs and have the next call start a fresh one.
mkdir -p "$work/services" "$work/config"
cat >"$work/services/org.freedesktop.Notifications.service" <<SERVICE
[D-BUS Service]
Name=org.freedesktop.Notifications
Exec=$(command -v dunst) -config /etc/xdg/dunst/dunstrc
SERVICE
cat >"$work/bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path=$work/bus</listen>
  <servicedir>$work/services</servicedir>
  <!-- Room for the bench's 256 clients with 32 calls in flight each. -->
  <limit name="max_replies_per_connection">100000</limit>
  <limit name="max_connections_per_user">100000</limit>
  <limit name="max_incoming_bytes">1000000000</limit>
  <limit name="max_outgoing_bytes">1000000000</limit>
  <limit name="max_incoming_unix_fds">100000</limit>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
CONF
# dunst inherits this environment: the private display, and no user dunstrc.
XDG_CONFIG_HOME="$work/config" dbus-daemon --config-file="$work/bus.conf" --nofork --nopidfile --print-address=4 \
  4>"$work/address" >"$work/dbus.log" 2>&1 &
bus_pid=$!
pids+=("$bus_pid")
for _ in $(seq 100); do [ -s "$work/address" ] && break; sleep 0.05; done
[ -s "$work/address" ] || { echo "with-peer: dbus-daemon did not start" >&2; cat "$work/dbus.log" >&2; exit 1; }
peer_bus="$(head -n1 "$work/address")"
export DBUS_SESSION_BUS_ADDRESS="$peer_bus"

# Start dunst once now, to see that it works.
if ! dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
  org.freedesktop.DBus.StartServiceByName string:org.freedesktop.Notifications uint32:0 >/dev/null 2>"$work/start.log"; then
  echo "with-peer: dunst did not start on the private bus" >&2
  cat "$work/start.log" "$work/dbus.log" >&2
  exit 1
fi

export NOTIFYD_BENCH_PEER=1 NOTIFYD_BENCH_BUS_PID="$bus_pid"
echo "with-peer: $(dunst -version 2>/dev/null | head -n1) on $DBUS_SESSION_BUS_ADDRESS, Xvfb $DISPLAY" >&2
status=0
"$@" || status=$?
exit "$status"
