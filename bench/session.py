#!/usr/bin/env python3
"""The session figures of `make bench` (issue 35, DESIGN §15), in a container booted as the
session tests boot it (tests/test_session.py): a real PAM login, the user's service manager and
session bus, headless sway started as the user with Debian's sway config exporting its variables.

- compositor started → notifyd drawing: notifyd started by the user's manager before any
  compositor, with a notice holding; sway started (and killed) `--runs` times: the time from
  launching sway to the first frame of notifyd's card on it (grim polls a small region), and from
  sway's socket answering to that frame. Goal ≤ 1 s. No peer: mako and dunst cannot be started
  before the compositor (they exit without one), so nothing of theirs follows a session.
- `notify-send` → first pixels with the server not running, D-Bus activation included: notifyd
  (its activation file, `SystemdService=notifyd.service`) beside mako (its own activation file,
  which the bus runs itself), each the only server the bus can activate, stopped before each run.
- with `--package DEB` (what `make deb` built): its `.deb` file and installed size, beside the
  `Installed-Size` of Debian 12's own mako-notifier and dunst on this machine (which, like
  notifyd's, excludes the shared libraries they all link). No goal is set.

Runs as root; sway, the daemons and their clients run as the popup tests' unprivileged user.
Prints Markdown rows in the bench table's columns.

Usage: bench/session.py [--bin DIR] [--runs N] [--package DEB]
"""

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import conftest  # noqa: E402
import display as harness  # noqa: E402
import test_session as session  # noqa: E402

REGION = (1200, 30, 1208, 38)  # inside a top-right card of notifyd (360 wide, margin 16) and of mako (300, 10)
CONFIG = "[DBus]\nMode=off\n"


def log(text):
    print(text, file=sys.stderr, flush=True)


def row(figure, value, goal="", peer="", ratio="", verdict=""):
    log(f"  {figure}: {value}  (goal {goal}, peer {peer}) {verdict}")
    return "| " + " | ".join((figure, value, goal, peer, ratio, verdict)) + " |"


def until_drawn(sway, began, limit=15):
    """Seconds from `began` until grim sees anything but the background in REGION."""
    while True:
        image = sway.screenshot(region=REGION)
        now = time.monotonic()
        if image.box() is not None:
            return now - began
        if now - began > limit:
            raise RuntimeError(f"nothing drawn in {limit} s")


def until_clear(sway):
    conftest.wait_for(lambda: sway.screenshot(region=REGION).box() is None, timeout=15, what="a clear screen")


def following(login, binaries, runs):
    """sway launched → notifyd's card, and sway answering → the card, over `runs` sway starts."""
    daemon = session.FollowingDaemon(login, binaries, CONFIG).start()
    daemon.show("Waiting for the session", "--fade-in", "0", "--hold", "600s")
    from_launch, from_socket = [], []
    for _ in range(runs):
        sway = session.ContainerSway(login)
        launched = time.monotonic()
        sway.start()
        answered = time.monotonic()
        drawn = until_drawn(sway, launched)
        from_launch.append(drawn)
        from_socket.append(max(0.0, drawn - (answered - launched)))
        sway.close()
    login.run("systemctl", "--user", "stop", session.UNIT, check=False)
    return statistics.median(from_launch), statistics.median(from_socket)


def activated(login, sway, stop, runs):
    """`notify-send` → first pixels with the server stopped before each run (median)."""
    times = []
    for index in range(runs):
        stop()
        conftest.wait_for(lambda: session.name_owner_command(login) is None, timeout=15, what="the name to be free")
        until_clear(sway)
        began = time.monotonic()
        sender = subprocess.Popen(login.command("notify-send", "--expire-time=600000", f"Activated {index}"),
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(until_drawn(sway, began))
        sender.wait(timeout=60)
    stop()
    return statistics.median(times)


def package_rows(package):
    """The package's size beside mako's and dunst's, as rows."""
    def installed_size(name):
        """Installed-Size (KiB) of the package `name` installed here."""
        return int(subprocess.run(["dpkg-query", "--show", "--showformat=${Installed-Size}", name],
                                  capture_output=True, text=True, check=True).stdout)

    ours = int(subprocess.run(["dpkg-deb", "--field", package, "Installed-Size"], capture_output=True, text=True,
                              check=True).stdout)
    with tempfile.TemporaryDirectory() as directory:
        subprocess.run(["dpkg-deb", "--extract", package, directory], check=True)
        binaries = {name: (Path(directory) / "usr/bin" / name).stat().st_size / 2**20 for name in ("notifyd", "notifyctl")}
    peers = {name: installed_size(name) for name in ("mako-notifier", "dunst")}
    return [
        row(".deb file", f"{Path(package).stat().st_size / 2**20:.1f} MiB", "none set"),
        row("installed size (Installed-Size)",
            f"{ours / 1024:.1f} MiB (notifyd {binaries['notifyd']:.1f}, notifyctl {binaries['notifyctl']:.1f}: "
            "Swift runtime and Foundation linked in)", "none set",
            ", ".join(f"{name} {size / 1024:.2f} MiB" for name, size in peers.items()),
            f"{ours / peers['mako-notifier']:.0f}× mako", "measured"),
    ]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=str(Path(__file__).resolve().parent.parent / ".build" / "release"))
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--package", help="the .deb `make deb` built, whose size is measured")
    options = parser.parse_args()
    conftest.BIN = harness.BIN = Path(options.bin)
    user = conftest.unprivileged_user()
    shared = Path(tempfile.mkdtemp(prefix="notifyd-bench-session-", dir="/var/tmp"))
    shared.chmod(0o755)
    binaries = harness.user_binaries(shared)
    box = session.Container(shared)
    rows = []
    try:
        box.start()
        login = session.Login(box, user, shared).open()
        try:
            log("compositor started → notifyd drawing")
            launch, socket = following(login, binaries, options.runs)
            rows.append(row("sway launched → notifyd's card drawn (notifyd started before it)", f"{launch * 1000:.0f} ms",
                            "≤ 1 s", "— (mako, dunst exit without a compositor)", "",
                            "met" if launch <= 1 else "missed"))
            rows.append(row("sway answering → notifyd's card drawn", f"{socket * 1000:.0f} ms", "≤ 1 s", "", "",
                            "met" if socket <= 1 else "missed"))
            log("notify-send → first pixels, activation included")
            session.FollowingDaemon(login, binaries, "")  # the config the installed service reads
            sway = session.ContainerSway(login).start()
            try:
                with session.installed_units(login, binaries):
                    ours = activated(login, sway, lambda: login.run(
                        "systemctl", "--user", "stop", "notifyd.service", "notifyd.socket", check=False), options.runs)
                # mako's activation file alone (notifyd's is gone with its units).
                with session.installed_units(login, binaries, hidden=("org.knopwob.dunst.service",)):
                    session.hide_activation_files(box, ["io.notifyd.Notifications.service"])
                    login.run("busctl", "--user", "call", "org.freedesktop.DBus", "/org/freedesktop/DBus",
                              "org.freedesktop.DBus", "ReloadConfig")
                    try:
                        mako = activated(login, sway, lambda: box.run(
                            "pkill", "-TERM", "-u", user.pw_name, "-x", "mako", check=False), options.runs)
                    finally:
                        session.hide_activation_files(box, ["io.notifyd.Notifications.service"], back=True)
                rows.append(row("notify-send → first pixels, server not running (D-Bus activation)",
                                f"{ours * 1000:.0f} ms", "beside mako", f"mako {mako * 1000:.0f} ms",
                                f"{ours / mako:.2f}×", "met" if ours <= mako else "missed"))
            finally:
                sway.close()
        finally:
            login.close()
    finally:
        box.stop()
        shutil.rmtree(shared, ignore_errors=True)
    if options.package:
        rows += package_rows(options.package)
    for line in rows:
        print(line)


if __name__ == "__main__":
    main()
