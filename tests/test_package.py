"""notifyd as a person installs it (issue 35): the Debian package `make deb` builds, installed with
apt in a container booted from this machine's root (as test_logind's), used by users who log in
through PAM, upgraded over a store an earlier commit's binaries wrote, removed and purged.

Nothing is enabled or started by hand: the package enables the socket for every user, the login's
service manager listens on it, `notify-send` starts the daemon through D-Bus activation, and sway
started later exports its display the way Debian's sway config does.
"""

import contextlib
import functools
import json
import os
import re
import shutil
import sqlite3
import subprocess
import tempfile
import time
import types
import uuid
from pathlib import Path

import pytest

from conftest import NotifyctlQueries, wait_for
from test_logind import Container
from test_session import CARD_CONFIG, OTHER_SERVERS, ContainerSway, Login, card_drawn, \
    hide_activation_files, mako_leaves_and_notifyd_serves, name_owner_command

pytestmark = [pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("systemd-nspawn") is None or shutil.which("dpkg-buildpackage") is None
    or shutil.which("sway") is None or shutil.which("mako") is None,
    reason="builds a Debian package and installs it in a container: needs root, dpkg-dev, debhelper, lintian, "
           "systemd-nspawn, sway, grim, mako (scripts/deps.sh installs them)"),
    # Its module's container is booted once, on one worker.
    pytest.mark.xdist_group("package-container")]

REPO = Path(__file__).resolve().parent.parent
STORE_FIXTURE = Path(__file__).resolve().parent / "fixtures" / "store-e90a0c5.db"


@pytest.fixture(scope="module")
def package():
    """`$NOTIFYD_DEB` (what `make test` built), else the package `make deb` builds now."""
    if os.environ.get("NOTIFYD_DEB"):
        return Path(os.environ["NOTIFYD_DEB"])
    built = subprocess.run(["make", "-C", str(REPO), "deb"], capture_output=True, text=True, timeout=1800)
    assert built.returncode == 0, f"make deb failed:\n{built.stdout[-3000:]}\n{built.stderr[-3000:]}"
    found = sorted((REPO / ".build" / "deb").glob("notifyd_*.deb"))
    assert len(found) == 1, found
    return found[0]


def deb_field(package, name):
    return subprocess.run(["dpkg-deb", "--field", str(package), name], capture_output=True, text=True,
                          check=True).stdout.strip()


@functools.cache
def library_paths():
    """Each shared library's soname and path, as the dynamic linker's cache has them."""
    cache = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True, check=True).stdout
    return {line.split()[0]: line.split(" => ")[1] for line in cache.splitlines() if " => " in line}


def owner(soname):
    """The Debian package that holds the library `soname` on this machine (ldconfig's path, or the
    same path under /usr, which is how dpkg knows it on a merged /usr)."""
    path = library_paths()[soname]
    for candidate in (path, "/usr" + path, os.path.realpath(path)):
        found = subprocess.run(["dpkg", "--search", candidate], capture_output=True, text=True)
        if found.returncode == 0:
            return found.stdout.split(":")[0]
    raise AssertionError(f"no package holds {soname} ({path})")


def loaded_at_run_time():
    """The libraries notifyd dlopens, by the soname its C loaders name."""
    sources = [REPO / "Sources/CRsvg/rsvg_library.c", REPO / "Sources/CNats/nats_library.c"]
    return {re.search(r'#define NOTIFYD_\w+_LIBRARY "([^"]+)"', path.read_text()).group(1) for path in sources}


def names(relation):
    """The package names of a Depends/Recommends field, alternatives and versions left out."""
    return {re.split(r"[ (]", alternative.strip())[0] for part in relation.split(",") for alternative in part.split("|")
            if alternative.strip()}


def test_the_package_carries_both_programs_their_units_activation_man_pages_completions_and_example(package):
    version = deb_field(package, "Version")
    assert re.search(rf'static let version = "{re.escape(version)}"',
                     (REPO / "Sources/NotifyProtocol/Interface.swift").read_text()), \
        f"the package's version {version} is not the one notifyd reports"
    assert deb_field(package, "Provides") == "notification-daemon"
    depends, recommends = names(deb_field(package, "Depends")), names(deb_field(package, "Recommends"))
    # What notifyd loads when first used is recommended, not required.
    dlopened = {owner(soname) for soname in loaded_at_run_time()}
    assert dlopened == {"librsvg2-2", "libnats3.4"} and dlopened <= recommends and not dlopened & depends
    assert {"default-dbus-session-bus", "dbus-session-bus"} <= depends and "dbus-user-session" in recommends
    # lintian: no error and no warning (what `make deb` also asks of it).
    checked = subprocess.run(["lintian", "--fail-on=error,warning", str(package)], capture_output=True, text=True,
                             timeout=600)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    listed = subprocess.run(["dpkg-deb", "--contents", str(package)], capture_output=True, text=True,
                            check=True).stdout
    files = {line.split()[5].removeprefix(".") for line in listed.splitlines()}
    expected = {
        "/usr/bin/notifyd", "/usr/bin/notifyctl", "/usr/lib/systemd/user/notifyd.service",
        "/usr/lib/systemd/user/notifyd.socket", "/usr/lib/systemd/user-preset/90-notifyd.preset",
        "/usr/share/dbus-1/services/io.notifyd.Notifications.service", "/usr/share/man/man1/notifyctl.1.gz",
        "/usr/share/man/man5/notifyd.conf.5.gz", "/usr/share/man/man8/notifyd.8.gz",
        "/usr/share/bash-completion/completions/notifyctl", "/usr/share/zsh/vendor-completions/_notifyctl",
        "/usr/share/fish/vendor_completions.d/notifyctl.fish", "/usr/share/doc/notifyd/notifyd.conf",
        "/usr/share/doc/notifyd/copyright", "/usr/share/doc/notifyd/README.Debian",
        "/usr/share/doc/notifyd/changelog.gz"}
    assert expected <= files, expected - files
    with tempfile.TemporaryDirectory() as directory:
        subprocess.run(["dpkg-deb", "--extract", str(package), directory], check=True)
        root = Path(directory)
        service = (root / "usr/lib/systemd/user/notifyd.service").read_text()
        assert "ExecStart=/usr/bin/notifyd\n" in service and "/usr/local" not in service
        activation = (root / "usr/share/dbus-1/services/io.notifyd.Notifications.service").read_text()
        assert "Exec=/usr/bin/notifyd\n" in activation and "SystemdService=notifyd.service\n" in activation
        for program in ("notifyd", "notifyctl"):
            dynamic = subprocess.run(["readelf", "--dynamic", str(root / "usr/bin" / program)], capture_output=True,
                                     text=True, check=True).stdout
            needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dynamic)
            # The Swift runtime and Foundation are in the binaries, not needed from /opt/swift; every
            # library they do need is one the package depends on.
            assert needed and not [name for name in needed if "swift" in name or "Foundation" in name], needed
            owners = {soname: owner(soname) for soname in needed}
            assert {soname: name for soname, name in owners.items() if name not in depends} == {}, program
    print(f"{package.name}: {package.stat().st_size / 2**20:.1f} MiB, installed "
          f"{int(deb_field(package, 'Installed-Size')) / 1024:.1f} MiB")


# MARK: - Installed in a container


def in_box(box, *command, timeout=300):
    """`command` as root in the container, with apt's questions answered by their defaults."""
    result = subprocess.run([*box.enter(), "env", "DEBIAN_FRONTEND=noninteractive", *command], capture_output=True,
                            text=True, timeout=timeout)
    assert result.returncode == 0, f"{' '.join(command)} exited {result.returncode}:\n{result.stdout[-3000:]}\n" \
                                   f"{result.stderr[-3000:]}"
    return result.stdout


def running_binary(box, pid):
    """The file process `pid` (of the container's) runs, as /proc says it."""
    return box.run("readlink", f"/proc/{pid}/exe").stdout.strip()


def newer_package(package, directory):
    """`package` again under a higher version (`<version>+1`): the same files, so that dpkg and apt
    take it for an upgrade and run the maintainer scripts as an upgrade does. Compressed with gzip -1:
    xz, dpkg-deb's default, took 55 s of CPU for these 74 MB, and how it is compressed is not what
    the upgrade tests."""
    tree = directory / "tree"
    subprocess.run(["dpkg-deb", "--raw-extract", str(package), str(tree)], check=True)
    control = tree / "DEBIAN" / "control"
    version = deb_field(package, "Version")
    control.write_text(control.read_text().replace(f"Version: {version}\n", f"Version: {version}+1\n"))
    target = directory / package.name.replace(f"_{version}_", f"_{version}+1_")
    subprocess.run(["dpkg-deb", "-Zgzip", "-z1", "--root-owner-group", "--build", str(tree), str(target)],
                   check=True, capture_output=True)
    return target


@pytest.fixture(scope="module")
def box(package):
    """A container with the package installed by apt, as root would: `apt install ./notifyd_*.deb`."""
    shared = Path(tempfile.mkdtemp(prefix="notifyd-package-", dir="/var/tmp"))
    shared.chmod(0o755)
    shutil.copy(package, shared / package.name)
    box = Container(shared)
    try:
        box.start()
        # This machine has mako's and dunst's activation files, which would compete for the name.
        hide_activation_files(box, OTHER_SERVERS)
        # man-db's trigger rebuilds every page's index (tens of seconds): not what is tested here.
        box.run("rm", "-f", "/var/lib/man-db/auto-update")
        installed = in_box(box, "apt-get", "install", "--yes", str(shared / package.name))
        assert f"Setting up notifyd ({deb_field(package, 'Version')})" in installed, installed
        yield box, shared
    finally:
        box.stop()
        shutil.rmtree(shared, ignore_errors=True)


def container_user(box, shared, name):
    """A user of the container with a home (in the shared folder, so that the test reaches it too)."""
    home = shared / name
    box.run("useradd", "--create-home", f"--home-dir={home}", "--shell=/bin/bash", "--user-group", name)
    uid = int(box.run("id", "-u", name).stdout)
    gid = int(box.run("id", "-g", name).stdout)
    config = home / ".config" / "notifyd"
    config.mkdir(parents=True)
    (config / "notifyd.conf").write_text(CARD_CONFIG)
    for path in [home / ".config", config, config / "notifyd.conf"]:
        os.chown(path, uid, gid)
    return types.SimpleNamespace(pw_name=name, pw_uid=uid, pw_gid=gid, pw_dir=str(home))


class PackageLogin(Login, NotifyctlQueries):
    """A login of a user the container has, with their own home: the service manager's units are the
    package's, with no drop-in of the test's, and `notifyctl` is the package's."""

    unit = "notifyd.service"

    def __init__(self, box, user):
        super().__init__(box, user, Path(user.pw_dir).parent)
        self.home = Path(user.pw_dir)

    def unit_state(self, unit):
        return self.run("systemctl", "--user", "is-active", unit, check=False).stdout.strip()

    def notifyctl(self, *arguments, check=True):
        return self.run("notifyctl", *arguments, check=check)

    def daemon_pid(self):
        return int(self.run("systemctl", "--user", "show", "notifyd.service", "-p", "MainPID", "--value").stdout)

    def diagnostics(self):
        status = self.run("systemctl", "--user", "status", "--no-pager", "notifyd.service", "notifyd.socket",
                          check=False)
        journal = self.run("journalctl", "--user", "--no-pager", "-n", "60", check=False)
        return f"{status.stdout[-2500:]}\n{journal.stdout[-3000:]}"


@pytest.fixture
def login(box):
    box, shared = box
    login = PackageLogin(box, container_user(box, shared, f"desk{uuid.uuid4().hex[:6]}")).open()
    try:
        yield login
    finally:
        login.close()


def test_a_login_after_apt_install_gets_notifyd_from_its_socket_drawing_on_sway_started_later(login):
    # Enabled for every user by the package (the preset's choice), and nothing else.
    assert login.box.run("systemctl", "--global", "is-enabled", "notifyd.socket").stdout.strip() == "enabled"
    assert login.box.run("systemctl", "--global", "is-enabled", "notifyd.service",
                         check=False).stdout.strip() != "enabled"
    assert login.unit_state("notifyd.socket") == "active", login.diagnostics()
    assert login.unit_state("notifyd.service") == "inactive", "notifyd started at login by itself"
    # A script's first notice starts the daemon through the socket; nothing draws yet.
    notice = login.show("Built while you were away", "--fade-in", "0", "--hold", "120s")
    assert login.unit_state("notifyd.service") == "active"
    assert login.drawing() is False
    sway = ContainerSway(login)
    try:
        started = time.monotonic()
        sway.start()
        wait_for(login.drawing, timeout=15, interval=0.02, what="the package's notifyd to draw on sway")
        print(f"sway started → the package's notifyd drawing: {time.monotonic() - started:.2f} s")
        wait_for(lambda: card_drawn(sway.screenshot()), timeout=10, what="the card on sway")
        sway.save("package-follow.png")
        # sway killed and started again: the same notice, drawn again.
        sway.kill()
        wait_for(lambda: not login.drawing(), timeout=10, what="notifyd to stop drawing")
        sway.start()
        wait_for(lambda: card_drawn(sway.screenshot()), timeout=15, what="the card on the next sway")
        assert login.get(notice)["phase"] == "holding"
    except AssertionError as error:
        raise AssertionError(f"{error}\n{login.diagnostics()}") from None
    finally:
        sway.close()


def test_notify_send_starts_the_package_by_d_bus_activation_and_mako_is_forwarded_to_until_it_leaves(login):
    sway = ContainerSway(login)
    mako = None
    mako_log = open(login.home / "mako.log", "ab")
    try:
        sway.start()
        assert login.unit_state("notifyd.service") == "inactive"
        started = time.monotonic()
        sent = login.run("notify-send", "--expire-time=60000", "Activated by notify-send", check=False, timeout=60)
        assert sent.returncode == 0, (sent.stderr, login.diagnostics())
        wait_for(lambda: card_drawn(sway.screenshot()), timeout=15, interval=0.02, what="the activated card")
        print(f"notify-send with notifyd not running → the card at full colour (fade-in included): "
              f"{time.monotonic() - started:.2f} s")
        assert name_owner_command(login) == "notifyd"
        sway.save("package-activated.png")
        # mako serves first: the package's notifyd, started by a script's notice, forwards to it.
        login.notifyctl("dismiss", "--all")
        login.run("systemctl", "--user", "stop", "notifyd.service")
        mako = subprocess.Popen(login.command("mako", WAYLAND_DISPLAY=sway.display), stdout=mako_log, stderr=mako_log)
        wait_for(lambda: name_owner_command(login) == "mako", timeout=15, what="mako to own the name")
        forwarded = login.show("Forwarded to mako", "--fade-in", "0", "--hold", "120s")
        wait_for(lambda: "Forwarded to mako" in login.run("makoctl", "list", check=False).stdout, timeout=15,
                 what="mako to hold the notice notifyd forwarded")
        # Held by mako, so notifyd's own popups stand aside: no card of notifyd's colour.
        assert not card_drawn(sway.screenshot())
        # The forwarded notice, then on notifyd's own card (the activated one was dismissed).
        mako_leaves_and_notifyd_serves(login, sway)
        assert login.get(forwarded)["phase"] == "holding"
        listed = json.loads(login.notifyctl("list", "--json").stdout)["notices"]
        assert [notice["id"] for notice in listed] == [forwarded]
    except AssertionError as error:
        raise AssertionError(f"{error}\n{login.diagnostics()}") from None
    finally:
        if mako:
            login.box.run("pkill", "-KILL", "-u", login.user.pw_name, "-x", "mako", check=False)
            mako.wait(timeout=10)
        mako_log.close()
        sway.close()


@pytest.fixture(scope="module")
def earlier_user(box):
    """A user whose home has the store notifyd at commit e90a0c5 wrote (schema 6,
    tests/fixtures/write-store.sh): held, waiting and finished notices."""
    box, shared = box
    user = container_user(box, shared, f"old{uuid.uuid4().hex[:6]}")
    state = Path(user.pw_dir) / ".local" / "state" / "notifyd"
    state.mkdir(parents=True)
    shutil.copy(STORE_FIXTURE, state / "notifyd.db")
    for path in [state.parent.parent, state.parent, state, state / "notifyd.db"]:
        os.chown(path, user.pw_uid, user.pw_gid)
    return user


def test_the_package_migrates_an_earlier_commits_store_and_an_upgrade_leaves_the_daemon_serving_until_restart(
        box, package, earlier_user):
    box, shared = box
    login = PackageLogin(box, earlier_user).open()
    try:
        titles = {1: "Nightly backup finished", 2: "Stand-up in the morning", 3: "Build 1729 running",
                  4: "Disk 91% full"}
        for notice_id, title in titles.items():
            assert login.get(notice_id)["title"] == title, login.diagnostics()
        assert login.get(3)["key"] == "build-1729"
        assert login.get(4)["outcome"] == "cancelled"
        history = json.loads(login.notifyctl("history", "--json").stdout)
        assert "Disk 91% full" in json.dumps(history)
        # Held far longer than the upgrade takes (it took over 120 s beside a build once).
        before = login.show("Shown before the upgrade", "--fade-in", "0", "--hold", "900s")
        assert before > 4
        store = Path(earlier_user.pw_dir) / ".local/state/notifyd/notifyd.db"
        with contextlib.closing(sqlite3.connect(f"file:{store}?mode=ro", uri=True)) as database:
            assert database.execute("PRAGMA user_version").fetchone()[0] > 6, "the store was not migrated"
        daemon = login.daemon_pid()

        upgrade = newer_package(shared / package.name, shared)
        upgraded = in_box(box, "apt-get", "install", "--yes", str(upgrade))
        assert re.search(r"Unpacking notifyd \(\S+\+1\) over \(", upgraded), upgraded
        # The running daemon is the one the older package started, and it goes on serving.
        assert login.daemon_pid() == daemon
        assert running_binary(box, daemon) == "/usr/bin/notifyd (deleted)"
        assert login.get(before)["phase"] == "holding"
        login.run("systemctl", "--user", "restart", "notifyd.service")
        restarted = login.daemon_pid()
        assert restarted != daemon and running_binary(box, restarted) == "/usr/bin/notifyd"
        for notice_id, title in {**titles, before: "Shown before the upgrade"}.items():
            assert login.get(notice_id)["title"] == title
    finally:
        login.close()


def test_remove_leaves_every_users_data_and_purge_removes_the_enablement_but_no_home(box, earlier_user):
    box, shared = box
    state = Path(earlier_user.pw_dir) / ".local" / "state" / "notifyd"
    assert (state / "notifyd.db").exists()
    # Removed: the programs go, every user's data stays.
    in_box(box, "apt-get", "remove", "--yes", "notifyd")
    assert not (box.root / "usr/bin/notifyd").exists()
    assert (state / "notifyd.db").exists()
    # Purged: the units' enablement goes too, and still nothing in a home (README.Debian says what
    # each user may remove).
    assert (box.root / "etc/systemd/user/sockets.target.wants/notifyd.socket").is_symlink()
    in_box(box, "apt-get", "purge", "--yes", "notifyd")
    assert not (box.root / "etc/systemd/user/sockets.target.wants/notifyd.socket").is_symlink()
    assert (state / "notifyd.db").exists() and (Path(earlier_user.pw_dir) / ".config/notifyd/notifyd.conf").exists()
