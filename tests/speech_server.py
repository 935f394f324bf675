"""A real speech-dispatcher for the suites that hear what is said: its dummy output module
(headless with `AudioOutputMethod "libao"`), on a socket of its own, and its protocol log, which
records what each client asked it to say."""

import os
import re
import signal
import subprocess
from pathlib import Path

from conftest import wait_for

SPEECHD_CONFIG = """\
LogLevel 4
LogDir "{directory}/log"
CustomLogFile "protocol" "{directory}/protocol.log"
AudioOutputMethod "libao"
AddModule "dummy" "sd_dummy" ""
DefaultModule dummy
"""


class SpeechServer:
    """speech-dispatcher in `directory`, on its socket there, with the dummy module; `utterances()`
    reads its protocol log: what each SPEAK was asked to say, with the priority then."""

    def __init__(self, directory: Path):
        self.directory = directory / "speechd"
        (self.directory / "config").mkdir(parents=True)
        (self.directory / "log").mkdir()
        (self.directory / "run").mkdir(mode=0o700)
        (self.directory / "config" / "speechd.conf").write_text(SPEECHD_CONFIG.format(directory=self.directory))
        self.socket = self.directory / "run" / "speech-dispatcher" / "speechd.sock"
        self.process = None

    def start(self):
        self.process = subprocess.Popen(
            ["speech-dispatcher", "-s", "-t", "0", "-C", str(self.directory / "config")],
            env={**os.environ, "XDG_RUNTIME_DIR": str(self.directory / "run")}, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True)
        wait_for(lambda: self.socket.exists(), timeout=10, what="speech-dispatcher's socket")
        return self

    def stop(self):
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(timeout=10)

    def utterances(self):
        """[(priority, text)] in the order asked."""
        log = self.directory / "protocol.log"
        if not log.exists():
            return []
        data = re.findall(r"DATA:\|(.*?)\n\|", log.read_text(errors="replace"), re.S)
        spoken, priority, body = [], "message", None
        for line in (entry.rstrip("\r\n") for entry in data):
            if body is not None:
                if line == ".":
                    spoken.append((priority, " ".join(body)))
                    body = None
                else:
                    body.append(line)
            elif line == "SPEAK":
                body = []
            elif line.startswith("SET SELF PRIORITY "):
                priority = line.split()[-1]
        return spoken

    def texts(self):
        return [text for _, text in self.utterances()]

    def plain_texts(self):
        """What was said, without the SSML a screen reader wraps it in (`<speak><mark …/>…`)."""
        return [re.sub(r"<[^>]*>", "", text) for text in self.texts()]

    def said(self, words):
        """Waits until something with `words` was said; answers everything said."""
        return wait_for(lambda: (lambda texts: texts if any(words in text for text in texts) else None)(self.texts()),
                        timeout=15, what=f"speech-dispatcher to be asked to say {words!r}")
