"""What a person sees: `notifyctl watch` drawn in a real terminal (tmux) against a real daemon, and
`notifyctl run` end to end.

Each test gets its own tmux server (`tmux -L <private socket>`), a 100×30 window running a plain
shell, and reads the screen back with `capture-pane` (`-e` keeps the colour escapes).
"""

import json
import os
import re
import shutil
import signal
import subprocess
import time
import unicodedata
import uuid
from pathlib import Path

import pytest

from conftest import BIN, wait_for

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")

COLUMNS, ROWS = 100, 30
NOTIFYCTL = str(BIN / "notifyctl")
SGR = re.compile(r"\x1b\[([0-9;:]*)m")
TITLE_WHITE = (242, 242, 242)  # WatchPalette.dark().title: a title at full opacity


class Tmux:
    """A private tmux server with one window running a shell."""

    def __init__(self, directory: Path, env: dict):
        self.name = f"notifyd-test-{uuid.uuid4().hex[:12]}"
        self.env = {key: value for key, value in env.items() if not key.startswith("TMUX")}
        self.env["LANG"] = "C.UTF-8"
        self.env.pop("LC_ALL", None)
        self.env.pop("LC_CTYPE", None)
        self.directory = directory

    def command(self, *args, check=True):
        result = subprocess.run(["tmux", "-L", self.name, "-f", "/dev/null", *args], env=self.env,
                                capture_output=True, text=True, timeout=10)
        if check and result.returncode != 0:
            raise AssertionError(f"tmux {' '.join(args)}: {result.stderr}")
        return result.stdout

    def start(self, pane_env: dict):
        options = []
        for key, value in pane_env.items():
            options += ["-e", f"{key}={value}"]
        self.command("new-session", "-d", "-x", str(COLUMNS), "-y", str(ROWS), *options,
                     "env", "PS1=$ ", "bash", "--norc", "--noprofile")
        self.command("set-option", "-g", "history-limit", "0")
        wait_for(lambda: "$" in self.capture(), what="the shell prompt")
        return self

    def kill(self):
        self.command("kill-server", check=False)

    def type(self, text: str):
        self.command("send-keys", "-l", text)
        self.command("send-keys", "Enter")

    def keys(self, *keys):
        self.command("send-keys", *keys)

    def capture(self, escapes=False) -> str:
        return self.command("capture-pane", "-p", *(["-e"] if escapes else []))

    def lines(self, escapes=False):
        return self.capture(escapes).split("\n")

    def display(self, format_: str) -> str:
        return self.command("display-message", "-p", format_).strip()

    def pane_processes(self):
        """The process ids of the shell's children (the command running in the pane)."""
        shell = self.display("#{pane_pid}")
        children = Path(f"/proc/{shell}/task/{shell}/children")
        return [int(pid) for pid in children.read_text().split()] if children.exists() else []


@pytest.fixture
def tmux(daemon, runtime_dir):
    sessions = []

    def make(**pane_env):
        environment = {"NOTIFYD_SOCKET": daemon.socket_path, "COLORTERM": "truecolor", "TERM": "tmux-256color"}
        environment.update(pane_env)
        for key in [key for key, value in environment.items() if value is None]:
            del environment[key]
        session = Tmux(runtime_dir, daemon.env).start(environment)
        sessions.append(session)
        return session

    yield make
    for session in sessions:
        session.kill()


def start_watch(pane, *args):
    pane.type(" ".join([NOTIFYCTL, "watch", *args]))
    wait_for(lambda: pane.display("#{alternate_on}") == "1", what="watch to take the alternate screen")
    wait_for(lambda: "notifyd · running" in pane.capture(), what="the status line")


def display_width(text: str) -> int:
    """Columns as a terminal counts them: East Asian Wide and Fullwidth take two, marks none."""
    width = 0
    for char in text:
        if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me", "Cf"):
            continue
        width += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return width


def colour_of(escaped_line: str, text: str):
    """The foreground colour (r, g, b) in force where `text` starts on a `capture-pane -e` line."""
    foreground = None
    visible = ""
    position = 0
    for match in SGR.finditer(escaped_line):
        visible += escaped_line[position:match.start()]
        if text in visible:
            return foreground
        position = match.end()
        parts = [int(part) if part else 0 for part in re.split("[;:]", match.group(1))] or [0]
        index = 0
        while index < len(parts):
            code = parts[index]
            if code == 0 or code == 39:
                foreground = None
            elif code == 38 and index + 4 < len(parts) and parts[index + 1] == 2:
                foreground = tuple(parts[index + 2:index + 5])
                index += 4
            elif code == 38 and index + 2 < len(parts) and parts[index + 1] == 5:
                foreground = ("palette", parts[index + 2])
                index += 2
            index += 1
    visible += escaped_line[position:]
    return foreground if text in visible else None


def line_with(pane, text, escapes=False):
    for line in pane.lines(escapes):
        if text in (SGR.sub("", line) if escapes else line):
            return line
    return None


# MARK: - The live view


def test_notice_fades_in_holds_and_disappears_after_its_fade_out(daemon, tmux):
    pane = tmux()
    start_watch(pane)
    assert "No notices on screen." in pane.capture()

    daemon.notifyctl("show", "Fading hello", "from the daemon", "--app", "pytest", "--fade-in", "2s",
                     "--hold", "2s", "--fade-out", "1s", "--ease-in", "linear", check=True)
    wait_for(lambda: line_with(pane, "Fading hello"), what="the notice to appear")

    # During the fade-in the title is drawn darker than white, and brightens from one look to the next.
    samples = []
    deadline = time.monotonic() + 1.2
    while time.monotonic() < deadline:
        line = line_with(pane, "Fading hello", escapes=True)
        if line:
            samples.append(colour_of(line, "Fading hello"))
        time.sleep(0.15)
    fading = [colour for colour in samples if colour is not None]
    assert fading, samples
    assert all(sum(colour) < sum(TITLE_WHITE) for colour in fading), fading
    assert sum(fading[-1]) > sum(fading[0]), fading

    # Holding: full colour, the app and the urgency in the frame, the time left counting down.
    wait_for(lambda: colour_of(line_with(pane, "Fading hello", escapes=True) or "", "Fading hello") == TITLE_WHITE,
             timeout=5, what="the hold's full colour")
    screen = pane.capture()
    assert "#1 · pytest" in screen and "normal" in screen
    assert re.search(r"Fading hello\s+\d s left │", screen), screen
    assert "from the daemon" in screen
    assert "1 visible" in screen

    # After the fade-out it is gone.
    wait_for(lambda: "Fading hello" not in pane.capture(), timeout=8, what="the notice to disappear")
    assert "No notices on screen." in pane.capture()


def test_escape_laden_title_arrives_sanitised(daemon, tmux):
    pane = tmux()
    start_watch(pane)
    title_before = pane.display("#{pane_title}")
    hostile = "\x1b[31mred\x1b]0;pwned\x07\x1b[2J"
    daemon.notifyctl("show", hostile, "body\x1b[5m\x9b2J\ttab", "--hold", "30", check=True)
    wait_for(lambda: "red" in pane.capture(), what="the hostile notice")

    plain = pane.capture()
    assert "\ufffd[31mred\ufffd]0;pwned\ufffd\ufffd[2J" in plain
    assert "body\ufffd[5m\ufffd2J tab" in plain
    # The clear-screen did not happen, the OSC did not retitle the pane, nothing turned red.
    assert "notifyd · running" in plain
    assert pane.display("#{pane_title}") == title_before != "pwned"
    escaped = pane.capture(escapes=True)
    assert "\x07" not in escaped and "\x1b]" not in escaped
    # Every escape left on screen is a colour or attribute (SGR) the view set itself: no plain red.
    assert not re.search(r"\x1b(?!\[[0-9;:]*m)", escaped)
    # Drawn in the view's own title colour once faded in, the title's red ignored.
    wait_for(lambda: colour_of(line_with(pane, "pwned", escapes=True), "\ufffd[31mred") == TITLE_WHITE,
             what="the title at full opacity")


def test_wide_character_title_lines_up(daemon, tmux):
    pane = tmux()
    start_watch(pane)
    title = "백업 완료 — 備份完成"
    daemon.notifyctl("show", title, "🎉 새 백업 — 新的備份 ready", "--app", "백업", "--hold", "30", check=True)
    wait_for(lambda: title in pane.capture(), what="the wide title")

    lines = pane.lines()
    top = next(i for i, line in enumerate(lines) if line.startswith("╭"))
    card = lines[top:top + 4]
    assert card[1].startswith("│ " + title + " ")
    assert card[2].startswith("│ 🎉 새 백업 — 新的備份 ready")
    # Every line of the card is the window's width, its right edge in the last column.
    for line in card:
        assert display_width(line) == COLUMNS, (display_width(line), line)
        assert line[-1] in "╮│╯"
    assert card[3] == "╰" + "─" * (COLUMNS - 2) + "╯"
    # The time left sits flush against the right border, after the wide title.
    assert re.fullmatch(r"│ " + re.escape(title) + r" +\d+ s left │", card[1]), card[1]


def test_ctrl_c_leaves_the_alternate_screen_and_gives_the_shell_back(daemon, tmux):
    pane = tmux()
    pane.type("echo before-watch-marker")
    wait_for(lambda: "before-watch-marker\n" in pane.capture(), what="the marker")
    start_watch(pane)
    daemon.notifyctl("show", "On screen when Ctrl-C comes", "--hold", "30", check=True)
    wait_for(lambda: "On screen when" in pane.capture(), what="the notice")
    assert "before-watch-marker" not in pane.capture()
    assert pane.display("#{cursor_flag}") == "0"

    pane.keys("C-c")
    wait_for(lambda: pane.display("#{alternate_on}") == "0", what="the normal screen")
    screen = pane.capture()
    assert "before-watch-marker" in screen
    assert "On screen when" not in screen
    assert pane.display("#{cursor_flag}") == "1"
    # Echo and line editing are back: the typed command shows, and its output follows.
    pane.type("echo status=$?; stty -a | grep -o -- '-\\?icanon' ; stty -a | grep -o -- '-\\?echo '")
    wait_for(lambda: "status=0" in pane.capture(), what="the shell to run a command")
    wait_for(lambda: "\nicanon\n" in pane.capture() and "\necho\n" in pane.capture(),
             what="stty to report icanon and echo on")


def test_q_quits_and_sigterm_restores_the_terminal_too(daemon, tmux):
    pane = tmux()
    start_watch(pane)
    pane.keys("q")
    wait_for(lambda: pane.display("#{alternate_on}") == "0", what="q to quit")
    pane.type("echo q-status=$?")
    wait_for(lambda: "q-status=0" in pane.capture(), what="the exit status of q")

    start_watch(pane)
    watchers = pane.pane_processes()
    assert len(watchers) == 1
    os.kill(watchers[0], signal.SIGTERM)
    wait_for(lambda: pane.display("#{alternate_on}") == "0", what="SIGTERM to restore the screen")
    pane.type("echo term-status=$?")
    wait_for(lambda: "term-status=143" in pane.capture(), what="the exit status of SIGTERM")
    assert pane.display("#{cursor_flag}") == "1"


def test_ctrl_z_gives_the_terminal_back_and_fg_draws_the_view_again(daemon, tmux):
    pane = tmux()
    start_watch(pane)
    daemon.notifyctl("show", "Still here after fg", "--hold", "30", check=True)
    wait_for(lambda: "Still here after fg" in pane.capture(), what="the notice")
    pane.keys("C-z")
    wait_for(lambda: pane.display("#{alternate_on}") == "0", what="Ctrl-Z to give the screen back")
    wait_for(lambda: "Stopped" in pane.capture(), what="the shell to report the stopped job")
    assert pane.display("#{cursor_flag}") == "1"
    pane.type("fg")
    wait_for(lambda: pane.display("#{alternate_on}") == "1", what="fg to take the screen again")
    wait_for(lambda: "Still here after fg" in pane.capture(), what="the view drawn again")
    pane.keys("q")
    wait_for(lambda: pane.display("#{alternate_on}") == "0", what="q to quit")


def test_resize_lays_the_view_out_again(daemon, tmux):
    pane = tmux()
    start_watch(pane)
    daemon.notifyctl("show", "Resize me", "--hold", "30", check=True)
    wait_for(lambda: "Resize me" in pane.capture(), what="the notice")
    pane.command("resize-window", "-x", "60", "-y", "20")
    wait_for(lambda: any(line == "╰" + "─" * 58 + "╯" for line in pane.lines()), what="a card 60 columns wide")
    assert all(display_width(line) <= 60 for line in pane.lines())
    assert pane.display("#{alternate_on}") == "1"


def test_suspended_state_and_backlog_in_the_status_line(daemon, tmux):
    pane = tmux()
    start_watch(pane)
    daemon.notifyctl("suspend", check=True)
    daemon.notifyctl("show", "held one", check=True)
    daemon.notifyctl("show", "held two", check=True)
    daemon.notifyctl("show", "later", "--delay", "1h", check=True)
    wait_for(lambda: "notifyd · suspended · 0 visible · 2 queued · 1 waiting" in pane.capture(),
             what="the suspended status line")
    daemon.notifyctl("resume", check=True)
    wait_for(lambda: "notifyd · running · 2 visible · 0 queued · 1 waiting" in pane.capture(),
             what="the running status line")


def test_blur_style_is_a_band_across_the_width(daemon, tmux):
    pane = tmux()
    start_watch(pane)
    daemon.notifyctl("show", "Blurred", "--style", "blur", "--hold", "30", check=True)
    wait_for(lambda: "Blurred" in pane.capture(), what="the blur notice")
    wait_for(lambda: colour_of(line_with(pane, "Blurred", escapes=True) or "", "Blurred") == TITLE_WHITE,
             what="full opacity")
    line = line_with(pane, "Blurred", escapes=True)
    assert "48;2;46;46;54" in line  # WatchPalette.dark().band behind the text
    assert "│" not in SGR.sub("", line)


@pytest.mark.parametrize("env, expected, forbidden", [
    ({"COLORTERM": None}, "38;5;", "38;2;"),
    ({"COLORTERM": "truecolor", "NO_COLOR": "1"}, None, "38;"),
])
def test_colour_modes(daemon, tmux, env, expected, forbidden):
    pane = tmux(**env)
    start_watch(pane)
    daemon.notifyctl("show", "Colour mode", "--hold", "30", check=True)
    wait_for(lambda: "Colour mode" in pane.capture(), what="the notice")
    time.sleep(1.5)  # past the fade-in
    escaped = pane.capture(escapes=True)
    if expected:
        assert expected in escaped
    assert forbidden not in escaped


def test_daemon_restart_is_survived_by_reconnecting(daemon, tmux):
    pane = tmux()
    start_watch(pane)
    daemon.stop()
    wait_for(lambda: "not reachable at" in pane.capture(), what="the disconnected status line")
    daemon.start()
    wait_for(lambda: "notifyd · running" in pane.capture(), timeout=10, what="the view to reconnect")
    daemon.notifyctl("show", "After the restart", "--hold", "30", check=True)
    wait_for(lambda: "After the restart" in pane.capture(), what="a notice after reconnecting")


# MARK: - Piped and status-bar output


def watch_lines(daemon, *args, count, action):
    watcher = subprocess.Popen([NOTIFYCTL, "watch", *args], env={**daemon.env, "NOTIFYD_SOCKET": daemon.socket_path},
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines = [watcher.stdout.readline()]
        action()
        while len(lines) < count:
            lines.append(watcher.stdout.readline())
        return lines
    finally:
        watcher.terminate()
        watcher.wait(10)


def test_piped_watch_prints_lines_not_the_view(daemon):
    lines = watch_lines(daemon, count=3, action=lambda: daemon.notifyctl("show", "piped", "--hold", "0.2",
                                                                        "--fade-in", "0", check=True))
    assert "\x1b" not in "".join(lines)
    assert " snapshot 0 notices" in lines[0]
    assert "added #1" in lines[1] and "piped" in lines[1]


def test_waybar_objects_follow_the_notice(daemon):
    lines = watch_lines(daemon, "--format", "waybar", count=2,
                        action=lambda: daemon.notifyctl("show", "bar", "--urgency", "critical", check=True))
    first, second = (json.loads(line) for line in lines)
    assert first == {"alt": "none", "class": ["idle"], "percentage": 0, "text": "", "tooltip": ""}
    assert second["text"] == "bar" and second["class"][0] == "critical"


def test_i3bar_stream_has_a_header_and_an_endless_array(daemon):
    lines = watch_lines(daemon, "--format", "i3bar", count=4,
                        action=lambda: daemon.notifyctl("show", "i3", "--urgency", "critical", check=True))
    assert json.loads(lines[0]) == {"version": 1}
    assert lines[1].strip() == "["
    assert json.loads(lines[2]) == []
    block = json.loads(lines[3].lstrip(","))[0]
    assert block["full_text"] == "i3" and block["urgent"] is True and block["name"] == "notifyd"


# MARK: - notifyctl run


def indicator_messages(daemon):
    with daemon.queue() as queue:
        notices = queue.List()["notices"] + queue.History()["notices"]
    return {notice["id"]: notice for notice in notices if notice["kind"] == "progress"}


def test_run_passes_streams_and_status_through_and_ends_the_indicator(daemon):
    ok = daemon.notifyctl("run", "--title", "copy", "--", "sh", "-c", "cat; echo err >&2", input="untouched\n")
    assert ok.returncode == 0
    assert ok.stdout == "untouched\n"
    assert ok.stderr == "err\n"
    failing = daemon.notifyctl("run", "--", "sh", "-c", "exit 3")
    assert failing.returncode == 3
    assert failing.stdout == "" and failing.stderr == ""
    messages = sorted(notice.get("message") or "" for notice in indicator_messages(daemon).values())
    assert messages == ["failed (exit 3) after 0 s", "succeeded in 0 s"]


def test_run_shows_elapsed_time_while_the_command_runs(daemon):
    runner = subprocess.Popen([NOTIFYCTL, "run", "--title", "sleeper", "--", "sleep", "2.6"],
                              env={**daemon.env, "NOTIFYD_SOCKET": daemon.socket_path})
    try:
        wait_for(lambda: any(notice.get("body") == "running for 1 s" for notice in indicator_messages(daemon).values()),
                 timeout=5, what="the elapsed time on the indicator")
    finally:
        assert runner.wait(10) == 0
    (indicator,) = indicator_messages(daemon).values()
    assert indicator["title"] == "sleeper"
    assert indicator["message"] == "succeeded in 3 s"


def test_run_ctrl_c_reaches_the_command_and_cancels_the_indicator(daemon, tmux):
    pane = tmux()
    pane.type(f"{NOTIFYCTL} run -- sh -c 'echo child-started; sleep 30; echo not-reached'")
    wait_for(lambda: "child-started" in pane.capture(), what="the command to start")
    wait_for(lambda: indicator_messages(daemon), what="the indicator")
    pane.keys("C-c")
    pane.type("echo run-status=$?")
    wait_for(lambda: "run-status=130" in pane.capture(), what="run to exit 130")
    assert "\nnot-reached" not in pane.capture()
    (indicator,) = wait_for(lambda: [notice for notice in indicator_messages(daemon).values()
                                     if notice["phase"] == "finished"], timeout=5, what="the indicator to finish")
    assert indicator["outcome"] == "cancelled"
    assert indicator["body"].startswith("cancelled after")
