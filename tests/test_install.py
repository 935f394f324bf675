"""`make install` and `make uninstall`, the man pages, and the shell completions.

`make install` builds the release binaries first (`make release`): minutes on a fresh checkout,
seconds once .build/release is up to date. The module installs twice, into a staging DESTDIR
(PREFIX=/usr, as a package would) and into a real PREFIX (so that the units point at binaries
that exist, for `systemd-analyze verify` and a user manager), and reuses both installs.
NOTIFYD_RELEASE_SCRATCH points `make release` at another build directory than .build.

The completion tests drive each shell's completion the way the shell does: bash through
COMP_WORDS/COMP_CWORD and the completion function, fish through `complete -C`, zsh by typing
Tab into an interactive zsh inside tmux. Every command and option that `notifyctl help` lists
must be offered, so that the completions cannot drift from the verbs table.
"""

import json
import os
import re
import shlex
import shutil
import stat
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from conftest import BIN, wait_for

REPO = Path(__file__).resolve().parent.parent
COMPLETIONS = REPO / "completions"
MAKE_TIMEOUT = 3600  # a release build from nothing on a loaded 2-core machine
# One worker runs this module: its installs share .build/release and .build/man.
pytestmark = pytest.mark.xdist_group("install")
MAN_PAGES = {"notifyctl.1": "man1", "notifyd.conf.5": "man5", "notifyd.8": "man8"}
# Every file `make install` puts under PREFIX, with its mode.
INSTALLED = {
    "bin/notifyd": 0o755,
    "bin/notifyctl": 0o755,
    "lib/systemd/user/notifyd.service": 0o644,
    "lib/systemd/user/notifyd.socket": 0o644,
    "share/man/man1/notifyctl.1": 0o644,
    "share/man/man5/notifyd.conf.5": 0o644,
    "share/man/man8/notifyd.8": 0o644,
    "share/bash-completion/completions/notifyctl": 0o644,
    "share/zsh/vendor-completions/_notifyctl": 0o644,
    "share/fish/vendor_completions.d/notifyctl.fish": 0o644,
    "share/doc/notifyd/notifyd.conf": 0o644,
    "share/dbus-1/services/io.notifyd.Notifications.service": 0o644,
    "lib/systemd/user-preset/90-notifyd.preset": 0o644,
}


def make(*args, timeout=MAKE_TIMEOUT):
    if not shutil.which("scdoc") and {"install", "man"} & set(args):
        pytest.skip("make install and make man need scdoc (Debian package scdoc)")
    scratch = os.environ.get("NOTIFYD_RELEASE_SCRATCH")
    command = ["make", "-C", str(REPO), *args] + ([f"RELEASE_SCRATCH={scratch}"] if scratch else [])
    result = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, f"{' '.join(command)} exited {result.returncode}:\n{result.stdout[-4000:]}{result.stderr[-4000:]}"
    return result


def files_under(root: Path):
    return {str(path.relative_to(root)) for path in root.rglob("*") if not path.is_dir()}


@pytest.fixture(scope="module")
def staged(tmp_path_factory):
    """`make install DESTDIR=<tmp> PREFIX=/usr`: the tree under DESTDIR/usr."""
    destdir = tmp_path_factory.mktemp("destdir")
    make("install", f"DESTDIR={destdir}", "PREFIX=/usr")
    return destdir


@pytest.fixture(scope="module")
def prefix(tmp_path_factory):
    """`make install PREFIX=<tmp>`, no DESTDIR: the installed files work where they are."""
    root = tmp_path_factory.mktemp("prefix")
    make("install", f"PREFIX={root}")
    return root


def unit_settings(path: Path):
    return dict(line.split("=", 1) for line in path.read_text().splitlines() if "=" in line and not line.startswith("#"))


# MARK: - make install / uninstall


def test_install_puts_every_file_in_place_with_its_mode(staged):
    assert files_under(staged) == {f"usr/{path}" for path in INSTALLED}
    for path, mode in INSTALLED.items():
        assert stat.S_IMODE((staged / "usr" / path).stat().st_mode) == mode, path


def test_installed_units_run_the_installed_binaries(staged):
    service = unit_settings(staged / "usr/lib/systemd/user/notifyd.service")
    assert service["ExecStart"] == "/usr/bin/notifyd"
    assert service["ExecReload"] == "/usr/bin/notifyctl --socket %t/notifyd.sock reload"
    assert "/usr/local" not in (staged / "usr/lib/systemd/user/notifyd.service").read_text()
    assert (staged / "usr/lib/systemd/user/notifyd.socket").read_text() == (REPO / "systemd/notifyd.socket").read_text()


def test_the_d_bus_activation_file_starts_the_service_for_the_notifications_name(staged):
    activation = unit_settings(staged / "usr/share/dbus-1/services/io.notifyd.Notifications.service")
    assert activation == {"Name": "org.freedesktop.Notifications", "Exec": "/usr/bin/notifyd",
                          "SystemdService": "notifyd.service"}


def test_systemctl_preset_enables_the_socket_alone_for_every_user(staged):
    # systemd's own reading of the installed preset (its default for a unit no preset names is to
    # enable it), on the staged tree as the root.
    subprocess.run(["systemctl", "--global", f"--root={staged}", "preset", "notifyd.socket", "notifyd.service"],
                   check=True, capture_output=True, timeout=60)
    try:
        enabled = {str(path.relative_to(staged)) for path in (staged / "etc/systemd/user").rglob("*")
                   if path.is_symlink()}
        assert enabled == {"etc/systemd/user/sockets.target.wants/notifyd.socket"}
    finally:
        shutil.rmtree(staged / "etc", ignore_errors=True)


def test_installed_files_are_the_repository_ones(staged):
    assert (staged / "usr/share/doc/notifyd/notifyd.conf").read_bytes() == (REPO / "config/notifyd.conf").read_bytes()
    for name, installed in [("notifyctl.bash", "bash-completion/completions/notifyctl"),
                            ("_notifyctl", "zsh/vendor-completions/_notifyctl"),
                            ("notifyctl.fish", "fish/vendor_completions.d/notifyctl.fish")]:
        assert (staged / "usr/share" / installed).read_bytes() == (COMPLETIONS / name).read_bytes(), name


def test_installed_binaries_run(staged):
    for name in ("notifyd", "notifyctl"):
        result = subprocess.run([staged / "usr/bin" / name, "--version"], capture_output=True, text=True, timeout=30)
        assert result.returncode == 0 and result.stdout.startswith(f"{name} "), result


def test_installed_example_config_passes_check_config(staged):
    result = subprocess.run(
        [staged / "usr/bin/notifyd", "--check-config", "--config", staged / "usr/share/doc/notifyd/notifyd.conf"],
        capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr


needs_man = pytest.mark.skipif(not shutil.which("man"), reason="needs man (Debian packages man-db, groff-base)")


@needs_man
def test_installed_man_pages_render_without_warnings_and_point_at_the_prefix(staged):
    for page, section in MAN_PAGES.items():
        path = staged / "usr/share/man" / section / page
        rendered = subprocess.run(["man", "-l", path], capture_output=True, text=True, timeout=60,
                                  env=dict(os.environ, MANWIDTH="80"))
        assert rendered.returncode == 0 and rendered.stderr == "", f"{page}: {rendered.stderr}"
        assert "NAME" in rendered.stdout and "SEE ALSO" in rendered.stdout
    # The installed pages name the example config where this install put it.
    for page in ("man5/notifyd.conf.5", "man8/notifyd.8"):
        text = (staged / "usr/share/man" / page).read_text()
        assert "/usr/share/doc/notifyd/notifyd" in text and "/usr/local" not in text, page


@needs_man
def test_man_finds_the_installed_pages(prefix):
    for name, page in [("notifyctl", "man1/notifyctl.1"), ("notifyd", "man8/notifyd.8"),
                       ("notifyd.conf", "man5/notifyd.conf.5")]:
        found = subprocess.run(["man", "-w", name], capture_output=True, text=True, timeout=60,
                               env=dict(os.environ, MANPATH=str(prefix / "share/man")))
        assert found.stdout.strip() == str(prefix / "share/man" / page), found


@pytest.mark.skipif(not shutil.which("systemd-analyze"), reason="needs systemd-analyze (Debian package systemd)")
def test_installed_units_pass_systemd_analyze_verify(prefix, tmp_path):
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    units = prefix / "lib/systemd/user"
    assert unit_settings(units / "notifyd.service")["ExecStart"] == f"{prefix}/bin/notifyd"
    result = subprocess.run(
        ["systemd-analyze", "verify", "--user", units / "notifyd.socket", units / "notifyd.service"],
        capture_output=True, text=True, timeout=120,
        env=dict(os.environ, XDG_RUNTIME_DIR=str(runtime), XDG_CONFIG_HOME=str(tmp_path / "config")))
    assert result.returncode == 0 and result.stdout.strip() == "" and result.stderr.strip() == "", result


def test_uninstall_removes_every_file(tmp_path):
    destdir = tmp_path / "destdir"
    make("install", f"DESTDIR={destdir}", "PREFIX=/opt/notifyd")
    assert files_under(destdir / "opt/notifyd") == set(INSTALLED)
    make("uninstall", f"DESTDIR={destdir}", "PREFIX=/opt/notifyd")
    assert files_under(destdir) == set()
    assert not (destdir / "opt/notifyd/share/doc/notifyd").exists()


@needs_man
def test_make_man_builds_every_page():
    make("man")
    for page in MAN_PAGES:
        built = REPO / ".build/man" / page
        assert built.stat().st_mtime >= (REPO / "man" / f"{page}.scd").stat().st_mtime
        rendered = subprocess.run(["man", "-l", built], capture_output=True, text=True, timeout=60,
                                  env=dict(os.environ, MANWIDTH="80"))
        assert rendered.stderr == "", f"{page}: {rendered.stderr}"


# MARK: - the README's path, under a real systemd --user


@pytest.mark.parametrize("found_by", ["unit path", "systemctl link"])
def test_installed_units_start_on_the_first_client_under_systemd(prefix, found_by):
    """`make install`, `systemctl --user enable --now notifyd.socket`, `notifyctl show`, and the
    notice seen by `notifyctl watch`, with the installed units: found where the install put them
    (on the unit search path, as /usr/local/lib/systemd/user is), or linked from a prefix that is
    not (`systemctl --user link`, for PREFIX=~/.local)."""
    import test_systemd

    if not (test_systemd.SYSTEMD.exists() and shutil.which("systemctl") and os.geteuid() == 0
            and shutil.which("unshare")):
        pytest.skip("needs systemd --user in a private mount namespace: root, systemd, util-linux")
    base = Path(os.environ.get("TMPDIR", "/tmp")) / f"notifyd-install-{uuid.uuid4().hex[:8]}"
    base.mkdir(mode=0o700)
    manager = test_systemd.UserManager(base)
    try:
        # Only the installed units, through the unit search path, as on a machine.
        shutil.rmtree(manager.unit_dir)
        manager.unit_dir.mkdir(parents=True)
        units = prefix / "lib/systemd/user"
        if found_by == "unit path":
            manager.env["SYSTEMD_UNIT_PATH"] = f"{units}:"
        manager.start()
        if found_by == "systemctl link":
            manager.systemctl("link", units / "notifyd.socket", units / "notifyd.service")
        manager.systemctl("enable", "--now", "notifyd.socket")
        notifyctl = prefix / "bin/notifyctl"
        env = dict(manager.env)
        watch = subprocess.Popen([notifyctl, "watch"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True)
        try:
            wait_for(lambda: manager.show()["SubState"] == "running", timeout=60, what="notifyd to be activated")
            shown = subprocess.run([notifyctl, "show", "Installed", "--hold", "0.2", "--fade-in", "0.1",
                                    "--fade-out", "0.1"], env=env, capture_output=True, text=True, timeout=60)
            assert shown.returncode == 0, shown.stderr
            notice_id = shown.stdout.strip()
            lines = []
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                line = watch.stdout.readline()
                lines.append(line)
                if f"finished #{notice_id} completed Installed" in line:
                    break
            assert any(f"added #{notice_id}" in line and "Installed" in line for line in lines), lines
        finally:
            watch.kill()
            watch.wait()
        assert manager.show()["MainPID"] != "0"
        exec_start = manager.systemctl("show", "notifyd.service", "-p", "ExecStart", "--value").stdout
        assert f"path={prefix}/bin/notifyd" in exec_start
    finally:
        try:
            manager.stop()
        finally:
            shutil.rmtree(base, ignore_errors=True)


# MARK: - the verbs, from notifyctl itself


def notifyctl_help(*args):
    return subprocess.run([BIN / "notifyctl", *args], capture_output=True, text=True, timeout=30, check=True).stdout


def verbs():
    overview = notifyctl_help("--help")
    commands = overview.split("Commands:")[1].split("Options:")[0]
    return [line.split()[0] for line in commands.splitlines() if line.strip()]


def options_of(verb):
    """The long options `notifyctl help VERB` lists, besides the common ones."""
    text = notifyctl_help("help", verb).split("Options:")[1]
    return sorted(set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", text)) - {"--socket", "--help"})


def accepted_values(verb, option):
    """The values notifyctl accepts for an option, as it lists them when given a wrong one
    (`--format: 'nope' is not one of lines, json, waybar`): the enums themselves."""
    title = ["x"] if verb in ("show", "progress") else []
    result = subprocess.run([BIN / "notifyctl", verb, *title, f"{option}=not-a-value"], capture_output=True,
                            text=True, timeout=30)
    assert result.returncode == 2, result
    listed = re.search(r"one of (.*)$", result.stderr.strip()).group(1)
    return {value.strip() for value in listed.split(",")}


# The options whose values come from a fixed list.
VALUE_OPTIONS = [("show", "--urgency"), ("progress", "--urgency"), ("show", "--style"), ("progress", "--style"),
                 ("show", "--ease-in"), ("show", "--ease-out"), ("history", "--outcome"), ("watch", "--format")]


def value_lists():
    return [((verb, option), accepted_values(verb, option)) for verb, option in VALUE_OPTIONS]


# MARK: - bash


def bash_complete(*words, env=None):
    """What the bash completion offers for `words`, the last being the word under the cursor."""
    script = (f"source {shlex.quote(str(COMPLETIONS / 'notifyctl.bash'))}\n"
              f"COMP_WORDS=({' '.join(shlex.quote(w) for w in ('notifyctl', *words))})\n"
              f"COMP_CWORD={len(words)}\n"
              "_notifyctl notifyctl \"${COMP_WORDS[COMP_CWORD]}\" \"${COMP_WORDS[COMP_CWORD-1]}\"\n"
              "printf '%s\\n' \"${COMPREPLY[@]}\"\n")
    result = subprocess.run(["bash", "--norc", "--noprofile", "-c", script], capture_output=True, text=True,
                            timeout=30, env=env or dict(os.environ))
    assert result.returncode == 0 and result.stderr == "", result.stderr
    return [line for line in result.stdout.splitlines() if line]


def test_bash_completion_loads():
    result = subprocess.run(["bash", "--norc", "-c", f"source {COMPLETIONS / 'notifyctl.bash'}; complete -p notifyctl"],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 0 and result.stdout.strip() == "complete -F _notifyctl notifyctl", result


def test_bash_completes_every_command_and_its_options():
    assert sorted(bash_complete("")) == sorted(verbs())
    assert bash_complete("sus") == ["suspend"]
    assert sorted(bash_complete("-")) == ["--help", "--relay", "--socket", "--version"]
    for verb in verbs():
        offered = bash_complete(verb, "--")
        missing = [option for option in options_of(verb) if option not in offered]
        assert not missing, f"bash offers no {missing} for {verb}"
        assert "--socket" in offered and "--help" in offered
    assert bash_complete("history", "-") and "-n" in bash_complete("history", "-")


def test_bash_completes_every_value_list():
    for (verb, option), values in value_lists():
        assert set(bash_complete(verb, "x", option, "")) == values, (verb, option)


def test_bash_completes_values_after_an_equals_sign():
    # `--urgency=c` reaches the function as `--urgency`, `=`, `c` (COMP_WORDBREAKS has `=`).
    assert bash_complete("show", "x", "--urgency", "=", "c") == ["critical"]
    assert set(bash_complete("show", "x", "--urgency", "=")) == {"low", "normal", "critical"}


def test_bash_completes_help_call_and_run():
    assert bash_complete("help", "wa") == ["wait", "watch"]
    assert "org.varlink.service.GetInfo" in bash_complete("call", "org")
    assert "sh" in bash_complete("run", "--title", "t", "s")  # a command name
    assert "sh" in bash_complete("run", "--", "s")


def test_bash_completes_live_notice_ids_and_actions(daemon):
    daemon.notifyctl("suspend", check=True)
    first = daemon.notifyctl("show", "one", "--action", "yes=Yes", "--action", "no=No", check=True).stdout.strip()
    second = daemon.notifyctl("progress", "two", check=True).stdout.strip()
    env = dict(daemon.env, PATH=f"{BIN}:{os.environ['PATH']}", NOTIFYD_SOCKET=daemon.socket_path)
    for verb in ("update", "end", "get", "wait", "cancel", "invoke"):
        assert sorted(bash_complete(verb, "", env=env)) == sorted([first, second]), verb
    assert sorted(bash_complete("show", "--after", "", env=env)) == sorted([first, second])
    assert sorted(bash_complete("invoke", first, "", env=env)) == ["no", "yes"]
    # With --socket on the command line, the ids come from that daemon.
    elsewhere = dict(env, NOTIFYD_SOCKET="/nonexistent/notifyd.sock")
    assert bash_complete("get", "", env=elsewhere) == []
    assert sorted(bash_complete("--socket", daemon.socket_path, "get", "", env=elsewhere)) == sorted([first, second])


# MARK: - fish


needs_fish = pytest.mark.skipif(not shutil.which("fish"), reason="needs fish (Debian package fish)")


def fish_complete(line, env=None):
    script = f"source {COMPLETIONS / 'notifyctl.fish'}; complete -C {shlex.quote(line)}"
    result = subprocess.run(["fish", "--no-config", "-c", script], capture_output=True, text=True, timeout=60,
                            env=env or dict(os.environ))
    assert result.returncode == 0 and result.stderr == "", result.stderr
    return [line.split("\t")[0] for line in result.stdout.splitlines()]


@needs_fish
def test_fish_completion_parses():
    result = subprocess.run(["fish", "-n", COMPLETIONS / "notifyctl.fish"], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr


@needs_fish
def test_fish_completes_commands_options_and_values():
    assert sorted(fish_complete("notifyctl ")) == sorted(verbs())
    for verb in verbs():
        offered = fish_complete(f"notifyctl {verb} --")
        missing = [option for option in options_of(verb) if option not in offered]
        assert not missing, f"fish offers no {missing} for {verb}"
    for (verb, option), values in value_lists():
        assert set(fish_complete(f"notifyctl {verb} x {option} ")) == values, (verb, option)
    assert fish_complete("notifyctl help wa") == ["wait", "watch"]


@needs_fish
def test_fish_completes_live_notice_ids(daemon):
    daemon.notifyctl("suspend", check=True)
    first = daemon.notifyctl("show", "one", "--action", "ok=OK", check=True).stdout.strip()
    env = dict(daemon.env, PATH=f"{BIN}:{os.environ['PATH']}", NOTIFYD_SOCKET=daemon.socket_path)
    for verb in ("update", "end", "get", "wait", "cancel", "invoke"):
        assert fish_complete(f"notifyctl {verb} ", env=env) == [first], verb
    assert fish_complete(f"notifyctl invoke {first} ", env=env) == ["ok"]


# MARK: - zsh


needs_zsh = pytest.mark.skipif(not (shutil.which("zsh") and shutil.which("tmux")),
                               reason="needs zsh and tmux (Debian packages zsh, tmux)")


class ZshSession:
    """An interactive `zsh -f` in a detached tmux session on a private tmux server, with compinit
    and the completion directory on $fpath."""

    def __init__(self, env):
        self.server = f"notifyd-zsh-{uuid.uuid4().hex[:8]}"
        self.session = "completion"
        self.env = env

    def tmux(self, *args, check=True):
        return subprocess.run(["tmux", "-L", self.server, *args], capture_output=True, text=True, timeout=30,
                              check=check)

    def start(self):
        environment = " ".join(f"{key}={shlex.quote(value)}" for key, value in self.env.items())
        self.tmux("new-session", "-d", "-s", self.session, "-x", "200", "-y", "50", f"env -i {environment} zsh -f")
        self.tmux("send-keys", "-t", self.session,
                  f"fpath=({COMPLETIONS} $fpath); autoload -U compinit; compinit -u -D; "
                  "zstyle ':completion:*' format '%d'; PS1='READY> '; clear", "Enter")
        wait_for(lambda: self.screen().strip() == "READY>", timeout=30, what="zsh to be ready")
        return self

    def screen(self):
        return self.tmux("capture-pane", "-p", "-t", self.session).stdout

    def complete(self, line, expected, timeout=30):
        """Types `line` and Tab; returns the screen once every string in `expected` is on it."""
        self.tmux("send-keys", "-t", self.session, "C-u", "clear", "Enter")
        wait_for(lambda: self.screen().strip() == "READY>", timeout=timeout, what="a clear screen")
        self.tmux("send-keys", "-t", self.session, "-l", line)
        self.tmux("send-keys", "-t", self.session, "Tab")
        try:
            return wait_for(lambda: (lambda screen: screen if all(e in screen for e in expected) else None)(
                self.screen()), timeout=timeout, what=f"zsh to complete {line!r} with {expected}")
        except AssertionError as error:
            raise AssertionError(f"{error}; screen:\n{self.screen()}") from None

    def stop(self):
        self.tmux("kill-server", check=False)


@pytest.fixture
def zsh_session(daemon):
    env = {"HOME": str(daemon.runtime_dir), "TERM": "xterm", "PATH": f"{BIN}:/usr/bin:/bin",
           "NOTIFYD_SOCKET": daemon.socket_path, "LANG": "C.UTF-8"}
    session = ZshSession(env).start()
    yield session
    session.stop()


@needs_zsh
def test_zsh_completion_loads():
    script = f"fpath=({COMPLETIONS} $fpath); autoload -U compinit; compinit -u -D; print -r -- $_comps[notifyctl]"
    result = subprocess.run(["zsh", "-f", "-c", script], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0 and result.stdout.strip() == "_notifyctl", result


@needs_zsh
def test_zsh_completion_names_every_command_and_option():
    text = (COMPLETIONS / "_notifyctl").read_text()
    for verb in verbs():
        assert re.search(rf"['\"]{verb}:", text), f"_notifyctl lists no {verb}"
        for option in options_of(verb):
            assert re.search(rf"['\"{{,)*]{re.escape(option)}[=\[+,}}]", text), f"_notifyctl has no {option} ({verb})"
    groups = [set(group.split()) for group in re.findall(r"\(([A-Za-z0-9 ]+)\)", text)]
    for (verb, option), values in value_lists():
        assert values in groups, (verb, option, values)


@needs_zsh
def test_zsh_completes_commands_values_and_live_ids(daemon, zsh_session):
    zsh_session.complete("notifyctl ", ["show", "progress", "watch", "queue a notice and print its id"])
    zsh_session.complete("notifyctl show x --urgency ", ["low", "normal", "critical"])
    zsh_session.complete("notifyctl watch --format ", ["lines", "json", "waybar"])
    zsh_session.complete("notifyctl cancel --", ["--all", "--now", "--tag"])
    daemon.notifyctl("suspend", check=True)
    first = daemon.notifyctl("show", "first notice", "--action", "yes=Yes", "--action", "no=No",
                             check=True).stdout.strip()
    second = daemon.notifyctl("show", "second notice", check=True).stdout.strip()
    screen = zsh_session.complete("notifyctl get ", ["first notice", "second notice"])
    assert re.search(rf"^{first} +-- queued normal first notice", screen, re.M), screen
    assert re.search(rf"^{second} +-- queued normal second notice", screen, re.M), screen
    daemon.notifyctl("resume", check=True)
    wait_for(lambda: json.loads(daemon.notifyctl("get", first, "--json").stdout)["notice"]["phase"] == "holding",
             what="the first notice to be visible")
    zsh_session.complete(f"notifyctl invoke {first} ", ["yes", "Yes", "no", "No"])
