#!/usr/bin/env bash
# Installs what notifyd needs to build and test, only what is missing. Debian 12, as root (or sudo).
set -euo pipefail

debian_packages=(
  pkg-config libsystemd-dev libsqlite3-dev libinih-dev   # C libraries behind the system-library targets
  socat tmux                                              # test peers: raw socket client, terminal
  systemd util-linux tzdata                               # a real systemd --user manager and journald for tests
  systemd-container libpam-systemd dbus                   # [Idle]: a real logind under systemd as PID 1 (systemd-nspawn), its system bus, sessions by PAM
  dbus-daemon dbus-bin libnotify-bin dunst xvfb imagemagick  # D-Bus peers: a private bus, notify-send, dunst under Xvfb
  libglib2.0-bin                                          # gdbus: Notify calls with typed hints, as GLib clients make them
  scdoc man-db groff-base                                 # man pages: built by scdoc, checked with man -l
  bash-completion zsh fish openssh-server                 # completion tests; a real sshd for the ssh -R example
  libwayland-dev wayland-protocols libcairo2-dev libpango1.0-dev  # the popups: Wayland client, wayland-scanner, drawing, text
  libxkbcommon-dev                                        # the reply field: what a key types, in the keymap the compositor sends
  librsvg2-dev                                            # SVG icons: librsvg's header (the library is loaded at the first SVG)
  plasma-wayland-protocols libxcb-screensaver0-dev        # [Idle] After=: KDE's idle protocol (sway 1.7 has only it), X11's screensaver extension
  sway swaybg grim fonts-dejavu-core fonts-wqy-zenhei     # popup tests: headless compositor, its background, screenshots, Latin and CJK fonts
  mako-notifier                                           # the Wayland peer: forwarded to in tests, measured beside notifyd in the bench
  libxcb1-dev libxcb-randr0-dev libxcb-xfixes0-dev libxcb-shape0-dev  # the X11 popups: xcb, monitors, the compositing manager's selection, corners
  picom xdotool x11-xserver-utils x11-utils               # X11 popup tests: compositing manager, clicks, xsetroot/xrandr, xprop/xwininfo
  openbox wmctrl                                          # X11 screen tests: a real EWMH window manager (_NET_ACTIVE_WINDOW) and its client
  dbus-user-session xauth                                 # following the session: a login's user bus (its manager on it), Xvfb with a cookie
  fuzzel rofi                                             # pickers for notifyctl menu: fuzzel on sway (virtual keyboard), rofi on Xvfb (xdotool)
  gdb                                                     # a test that finds a process stuck prints its threads
  debhelper lintian                                       # make deb: dpkg-buildpackage with debhelper, then lintian's checks
  zenity adwaita-icon-theme                               # freedesktop tests: zenity --notification (libnotify), icon names
  pulseaudio pulseaudio-utils gnome-session-canberra sound-theme-freedesktop  # sounds: a null-sink server, paplay, canberra-gtk-play
  libnats-dev nats-server openssl                         # the relay: the NATS C client (JetStream), a real server, test certificates
  at-spi2-core python3-pyatspi gir1.2-atspi-2.0           # screen readers: the accessibility bus's launcher and registry, an AT-SPI client (pyatspi)
  speech-dispatcher                                       # [Speech]: a real speech-dispatcher (its dummy module and protocol log)
  orca python3-speechd xkb-data x11-xkb-utils             # a real screen reader: Orca 43 under Xvfb, speaking through speech-dispatcher
)
# import name:PyPI name. desktop-notifier: a D-Bus notification client nobody here wrote (dbus-fast);
# nats-py: a NATS client nobody here wrote, for the relay tests' garbage and stream checks;
# pytest-xdist: the end-to-end suites run on several workers at once (scripts/test.py).
python_packages=(varlink:varlink pytest:pytest xdist:pytest-xdist desktop_notifier:desktop-notifier nats:nats-py)

missing=()
for package in "${debian_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  # The tests start their own peers (sshd, dbus-daemon) on private sockets: keep the packages'
  # services from starting system-wide during the install.
  policy=/usr/sbin/policy-rc.d
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
    $sudo chmod +x "$policy"
    trap '$sudo rm -f "$policy"' EXIT
  fi
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

python=${PYTHON:-python3}
for entry in "${python_packages[@]}"; do
  module=${entry%%:*}
  package=${entry#*:}
  "$python" -c "import $module" 2>/dev/null || {
    echo "deps: pip installing $package"
    "$python" -m pip install -q "$package"
  }
done
command -v swift >/dev/null || { echo "deps: the Swift toolchain is not on PATH (expected /opt/swift/usr/bin)" >&2; exit 1; }
