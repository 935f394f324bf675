"""The relay's answers back (DESIGN §10): what a person does with a relayed notice on the desk
(invoke, dismiss) reaches `show --wait` on the server; `notifyctl --relay` publishes from a host with
no daemon and waits for the answer the same way; and a relayed notice pops up on the desk's screen.
"""

import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import CLIENT_BIN, wait_for
# The popup tests' headless sway, for the relayed notice on the desk's screen.
from display import session, user  # noqa: F401 (fixtures)
from relay_helpers import (assert_each_once, desk_and_server, free_port, nats_server, nats_tools,  # noqa: F401
                           relay_daemon, secret_file, stream_name, subject, wait_arrived, wait_connected,
                           wait_consumer, wait_drained)  # (and fixtures)


# MARK: - Answers back


def _show_and_wait(server, *args):
    """`notifyctl show --wait …` on the server, running: it returns when the desk answers."""
    environment = dict(server.env, NOTIFYD_SOCKET=server.socket_path)
    return subprocess.Popen([*server.notifyctl_command(), "show", "--wait", *args], env=environment, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def answer_on_the_desk(desk, shown, answer):
    """What a person at the desk does with `shown`: its action "ok" chosen, or dismissed."""
    if answer == "invoked":
        desk.call("Invoke", id=shown["id"], action="ok")
    else:
        desk.call("Dismiss", id=shown["id"])


def _on_the_desk(desk, title):
    def visible():
        found = [n for n in desk.listed() if n.get("origin") and n["title"] == title]
        return found[0] if found and found[0]["phase"] == "holding" else None
    return wait_for(visible, timeout=30, interval=0.05, what=f"{title!r} visible on the desk")


@pytest.mark.parametrize("answer", ["invoked", "dismissed"])
def test_show_wait_on_the_server_returns_what_the_desk_did(nats_server, desk_and_server, subject, answer):
    nats = nats_server()
    desk, server = desk_and_server([nats.url], nats.client())
    title = f"Deploy? {answer}"
    waiting = _show_and_wait(server, "--action", "ok=Approve", "--action", "no=Reject", "--hold", "10m", title)
    try:
        shown = _on_the_desk(desk, title)
        assert shown["actions"] == [{"key": "ok", "label": "Approve"}, {"key": "no", "label": "Reject"}]
        # The server draws no popups: its notice waits for the desk's answer, it has not finished.
        assert waiting.poll() is None, waiting.communicate()
        origin = shown["origin"]["id"]
        assert server.call("Get", id=origin)["notice"].get("outcome") is None
        answer_on_the_desk(desk, shown, answer)
        stdout, stderr = waiting.communicate(timeout=30)
    finally:
        if waiting.poll() is None:
            waiting.kill()
    if answer == "invoked":
        assert waiting.returncode == 0, stderr
        assert stdout.strip().splitlines()[-1] == "ok", stdout
        notice = server.call("Get", id=origin)["notice"]
        assert (notice["outcome"], notice["invoked"]) == ("completed", "ok"), notice
    else:
        assert waiting.returncode == 6, (stdout, stderr)
        assert server.call("Get", id=origin)["notice"]["outcome"] == "dismissed"
    # Logged once the answer is committed, as `Wait` is answered: either may come first.
    wait_for(lambda: "on desk" in server.stderr(), what="the desk's answer in the server's log")


# MARK: - notifyctl --relay, no daemon on the host


class BareHost:
    """A host with notifyctl and nothing else: no daemon (its runtime directory is empty), a home of
    its own with the [Relay] section of notifyd.conf, and state under $XDG_STATE_HOME."""

    def __init__(self, directory, relay_section):
        self.home = directory
        self.home.mkdir(mode=0o700)
        (self.home / "runtime").mkdir(mode=0o700)
        config = self.home / "config" / "notifyd"
        config.mkdir(parents=True)
        (config / "notifyd.conf").write_text("[Relay]\n" + relay_section)
        self.env = {
            "PATH": "/usr/bin:/bin", "HOME": str(self.home), "XDG_CONFIG_HOME": str(self.home / "config"),
            "XDG_STATE_HOME": str(self.home / "state"), "XDG_RUNTIME_DIR": str(self.home / "runtime"),
        }

    def command(self, url, *args):
        return [str(CLIENT_BIN / "notifyctl"), "--relay", url, *args]

    def run(self, url, *args, timeout=30):
        return subprocess.run(self.command(url, *args), env=self.env, text=True, capture_output=True,
                              timeout=timeout)

    def start(self, url, *args):
        return subprocess.Popen(self.command(url, *args), env=self.env, text=True, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)

    def origin(self):
        return (self.home / "state" / "notifyd" / "relay-origin").read_text().split()


@pytest.fixture
def bare_host(runtime_dir, subject):
    def make(extra="", host="cron", name="bare"):
        return BareHost(runtime_dir / name, f"Subject={subject}\nHost={host}\n{extra}")
    make.subject = subject
    return make


def test_notifyctl_relay_publishes_without_a_daemon_each_once_in_order_under_one_origin(
        nats_server, relay_daemon, bare_host, subject):
    nats = nats_server()
    peer = nats.client()
    desk = relay_daemon("desk", [nats.url], publish=False, subscribe=True)
    wait_connected(desk)
    wait_consumer(peer, desk)
    host = bare_host()
    first = host.run(nats.url, "show", "--app", "backup", "--hold", "0.05", "--fade-in", "0", "--fade-out", "0",
                     "nightly backup done", "3.2 GiB")
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == "1", first.stdout
    # Sixteen at once, as cron jobs starting in the same minute: each takes its own id, in the order
    # the stream gets them, so that the desk's mark for this origin never takes one for a redelivery.
    running = [host.start(nats.url, "show", "--app", "backup", "--hold", "0.05", "--fade-in", "0",
                          "--fade-out", "0", f"job {i}") for i in range(16)]
    ids = []
    for process in running:
        stdout, stderr = process.communicate(timeout=60)
        assert process.returncode == 0, stderr
        ids.append(int(stdout.strip()))
    assert sorted(ids) == list(range(2, 18)), ids
    store, last = host.origin()
    assert len(store) == 16 and int(last) == 17

    relayed = wait_arrived(desk, range(1, 18), timeout=60, host="cron")
    wait_drained(peer, desk)
    relayed = desk.relayed("cron")
    assert_each_once(relayed, range(1, 18))
    assert {n["origin"]["store"] for n in relayed} == {store}
    backup = next(n for n in relayed if n["origin"]["id"] == 1)
    assert (backup["app"], backup["title"], backup["body"]) == ("backup@cron", "nightly backup done", "3.2 GiB")
    assert peer.count(stream_name(subject), f"{subject}.notice.cron") == 17


@pytest.mark.parametrize("answer", ["invoked", "dismissed"])
def test_notifyctl_relay_show_wait_returns_what_the_desk_did(nats_server, relay_daemon, bare_host, answer):
    nats = nats_server()
    desk = relay_daemon("desk", [nats.url], publish=False, subscribe=True)
    wait_connected(desk)
    wait_consumer(nats.client(), desk)
    host = bare_host()
    title = f"Deploy from cron? {answer}"
    waiting = host.start(nats.url, "show", "--wait", "--action", "ok=Approve", "--action", "no=Reject",
                         "--hold", "10m", title)
    try:
        shown = _on_the_desk(desk, title)
        assert shown["app"] == "cron" and shown["origin"]["host"] == "cron", shown
        assert waiting.poll() is None, waiting.communicate()
        answer_on_the_desk(desk, shown, answer)
        stdout, stderr = waiting.communicate(timeout=30)
    finally:
        if waiting.poll() is None:
            waiting.kill()
    if answer == "invoked":
        assert (waiting.returncode, stdout) == (0, "ok\n"), stderr
    else:
        assert (waiting.returncode, stdout) == (6, ""), stderr


def test_notifyctl_relay_signs_in_with_the_config_s_relay_keys_and_says_what_is_wrong_in_one_line(
        nats_server, relay_daemon, bare_host, runtime_dir, subject):
    nats = nats_server(config="authorization {\n  users = [\n    {user: cron, password: right}\n  ]\n}\n",
                       connect_options={"user": "cron", "password": "right"})
    peer = nats.client()
    right = secret_file(runtime_dir / "right.password", "right")
    wrong = secret_file(runtime_dir / "wrong.password", "wrong")
    on = f"{subject}.notice.cron"

    def refused(result, *words):
        assert result.returncode == 1, (result.stdout, result.stderr)
        assert result.stdout == "", result.stdout
        line = result.stderr
        assert line.startswith("notifyctl: ") and line.count("\n") == 1, line
        for word in words:
            assert word in line.lower(), line
        return line

    good = bare_host(f"User=cron\nPasswordFile={right}\n", name="good")
    assert good.run(nats.url, "show", "signed in").returncode == 0
    assert peer.count(stream_name(subject), on) == 1

    refused(bare_host(f"User=cron\nPasswordFile={wrong}\n", name="wrong").run(nats.url, "show", "x"), "authorization")
    refused(bare_host(f"User=cron\nPasswordFile={runtime_dir}/absent\n", name="no-file").run(nats.url, "show", "x"),
            "passwordfile=", "no such file")
    refused(bare_host(f"User=cron\nPasswordFile={runtime_dir}\n", name="directory").run(nats.url, "show", "x"),
            "passwordfile=", "is a directory")
    refused(good.run(f"nats://127.0.0.1:{free_port()}", "show", "x"), "cannot connect", "127.0.0.1")
    refused(good.run(nats.url, "show", "t" * 1025), "title", "longer than 1 kib")
    refused(good.run(nats.url, "show", "--key", "k" * 257, "x"), "key", "longer than 256 bytes")
    # None of those reached the stream; the next good one does, with the next id.
    second = good.run(nats.url, "show", "signed in again")
    assert (second.returncode, second.stdout) == (0, "2\n"), second.stderr
    assert peer.count(stream_name(subject), on) == 2

    usage = good.run(nats.url, "list")
    assert usage.returncode == 2 and "show only" in usage.stderr, usage.stderr
    usage = good.run("http://example.org", "show", "x")
    assert usage.returncode == 2 and "nats://" in usage.stderr, usage.stderr
    usage = good.run(nats.url, "show", "--after", "3", "x")
    assert usage.returncode == 2 and "--after" in usage.stderr, usage.stderr


# MARK: - On the desk's screen


def test_a_relayed_notice_pops_up_on_the_desks_screen_as_app_at_host(nats_server, bare_host, session):
    """The desk draws relayed notices as it draws its own (headless sway, grim): published with no
    daemon on the sending host, it pops up, and the desk knows it as backup@cron."""
    from test_popups_wayland import OUTPUT, MARGIN, WIDTH, display_config
    sway, make_daemon = session
    nats = nats_server()
    desk = make_daemon(display_config() + (
        f"[Relay]\nURL={nats.url}\nSubject={bare_host.subject}\nHost=desk\nPublish=no\nSubscribe=yes\n"))
    wait_for(lambda: json.loads(desk.notifyctl("status", "--json", check=True).stdout)["relay"]["state"] == "connected",
             timeout=30, interval=0.05, what="the desk's relay to connect")
    host = bare_host()
    sent = host.run(nats.url, "show", "--app", "backup", "--fade-in", "0", "--hold", "60s", "Backup done",
                    "412 GiB in 3h12m")
    assert sent.returncode == 0, sent.stderr
    shot = wait_for(lambda: (lambda image: image if image.box() else None)(sway.screenshot()), timeout=30,
                    what="the relayed notice's popup")
    x0, y0, x1, _ = shot.box()
    assert (x0, y0, x1) == (OUTPUT[0] - MARGIN - WIDTH, MARGIN, OUTPUT[0] - MARGIN), shot.box()
    listed = json.loads(desk.notifyctl("list", "--json", check=True).stdout)["notices"]
    assert [(n["app"], n["title"], n["origin"]["host"]) for n in listed] == [("backup@cron", "Backup done", "cron")]
    keep = os.environ.get("NOTIFYD_SCREENSHOTS")
    if keep:
        sway.save(Path(keep) / "relayed-notice.png")
