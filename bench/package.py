#!/usr/bin/env python3
"""The package's size for `make bench` (issue 35): the .deb `make deb` built and what it installs,
beside the installed size of Debian 12's own notification servers on this machine (mako-notifier,
dunst: their Installed-Size, which excludes the libraries they share with notifyd). No goal is set;
the figure is there to be watched. Prints Markdown rows in the bench table's columns.

Usage: bench/package.py PACKAGE.deb
"""

import subprocess
import sys
import tempfile
from pathlib import Path


def field(package, name):
    return subprocess.run(["dpkg-deb", "--field", package, name], capture_output=True, text=True,
                          check=True).stdout.strip()


def installed_size(name):
    """Installed-Size (KiB) of a package installed here."""
    return int(subprocess.run(["dpkg-query", "--show", "--showformat=${Installed-Size}", name],
                              capture_output=True, text=True, check=True).stdout)


def row(figure, value, goal="", peer="", ratio="", verdict=""):
    return "| " + " | ".join((figure, value, goal, peer, ratio, verdict)) + " |"


def main():
    package = sys.argv[1]
    ours = int(field(package, "Installed-Size"))
    with tempfile.TemporaryDirectory() as directory:
        subprocess.run(["dpkg-deb", "--extract", package, directory], check=True)
        binaries = {name: (Path(directory) / "usr/bin" / name).stat().st_size / 2**20 for name in ("notifyd", "notifyctl")}
    peers = {name: installed_size(name) for name in ("mako-notifier", "dunst")}
    print(row(".deb file", f"{Path(package).stat().st_size / 2**20:.1f} MiB", "none set"))
    print(row("installed size (Installed-Size)",
              f"{ours / 1024:.1f} MiB (notifyd {binaries['notifyd']:.1f}, notifyctl {binaries['notifyctl']:.1f}: "
              "Swift runtime and Foundation linked in)", "none set",
              ", ".join(f"{name} {size / 1024:.2f} MiB" for name, size in peers.items()),
              f"{ours / peers['mako-notifier']:.0f}× mako", "measured"))


if __name__ == "__main__":
    main()
