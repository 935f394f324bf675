"""What the soak runs with: the hosts' configs, the marker's look, the bounds it holds the daemon to, and
the kinds of fault."""

import os

from display import OUTPUT
from test_bounds import HISTORY_KIB


QUEUE = "io.notifyd.Queue"
SUBJECT = "notifyd.soak"
STREAM = "NOTIFYD_notifyd_soak"
HOST = "soakhost"

# The host's cards, top right on sway's 1280×720 output. A person at the screen now and then gets a
# notice in the marker's colour (a rule's look, nothing else is red), finds it by its pixels down
# the column just inside the cards' right border, and clicks it.
WIDTH, MARGIN = 300, 20
COLUMN = OUTPUT[0] - MARGIN - 8
CLICK_X = OUTPUT[0] - MARGIN - 40
PARKED = (5, OUTPUT[1] - 5)
MARKER_APP = "soak-marker"
MARKER = (0xE0, 0x10, 0x10)
# A card is gone this long after its notice finished (its 50 ms fade-out is in `finished`): a frame,
# the compositor's repaint and a screenshot, on a machine running the whole load (measured: p50
# 0.04 s, at most 0.9 s); a card left on the screen stays for good.
GONE_WITHIN = 2.0

HOST_CONFIG = """\
[Queue]
MaxVisible=6
Capacity=200000
HistorySize={history}
StackDuplicates=no

[Timing]
FadeIn=50ms
Hold=300ms
FadeOut=50ms

[DBus]
Mode=server

[Display]
Mode=wayland
Anchor=top-right
Margin={margin}
Width={width}
Gap=6
Font=DejaVu Sans 9
Background=#303030
Border=#808080
Progress=#40a040

[Display:critical]
Background=#30304a
Border=#8080ff
Progress=#40a040

[Rule:marker]
MatchApp={marker_app}
Background={marker}
Border={marker}

[Idle]
After=off

[Relay]
URL={urls}
Subject={subject}
Host={host}
Publish=yes
Subscribe=no
MaxAge=1h
"""

DESK_CONFIG = """\
[Queue]
MaxVisible=1000
Capacity=200000
HistorySize={history}
StackDuplicates=no

[Timing]
FadeIn=0
Hold=10ms
FadeOut=0

[DBus]
Mode=off

[Display]
Mode=off

[Relay]
URL={urls}
Subject={subject}
Host=desk
Publish=no
Subscribe=yes
MaxAge=1h
"""

# How many finished notices each daemon keeps: a full history is part of what the host holds, and
# an hour's run goes past it (a history read as the run goes, `HistoryRecorder`, keeps what it forgets
# for the checker).
HISTORY = 150_000
# The bounds the daemon must be within after each fault and at the end: RSS for the debug build
# with a full history (64 MiB, some 20 over what it has at rest, and HISTORY_KIB a notice kept, the
# bound `test_bounds.py` holds a history to); descriptors and threads over what it had at rest
# before the load. Under load
# the descriptors are the clients' connections, and the threads Dispatch's overcommit pool at work:
# six serial queues of the daemon's (the root, the display, three buses, the session's sockets)
# each hold a worker while they run, and a worker that finished lingers 5 s before it leaves, so
# that more can be alive than are busy (the soak saw up to nine more than at rest, on ASan).
BOUNDS = {"rss_mib": 64 + HISTORY * HISTORY_KIB // 1024, "fds": 64, "threads": 16}
# Once the load has stopped the lingering workers leave: within REST_SECONDS of the idle window the
# daemon is back within REST_THREADS of the threads it had at rest before. A thread left blocked by
# a fault, or one started per reconnection and never joined, stays, and fails this.
REST_THREADS = 2
REST_SECONDS = 15
# At rest afterwards the daemon uses under this share of a core: the soak's watchdog wants a ping
# every second (the debug build measured 0.3%, the ASan one 1.6%); a spinning daemon, or one
# pacing frames for nothing, uses far more.
IDLE_SHARE = 0.05
# Every RECORD_EVERY seconds the newest RECORD_LIMIT finished notices of each daemon are read: a
# thousand a second, where at most 3,919 finished in any 10 s of the runs measured (a sweep of the
# backlog on top of the load). A read that is full and whose oldest notice was not read before may
# have missed some: a problem of the soak's, reported (as it was with a history of 3,000).
RECORD_EVERY = 10
RECORD_LIMIT = 10_000
# ASan keeps what is freed in quarantine: the resident set is not bounded on a sanitized build.
SANITIZED = bool(os.environ.get("NOTIFYD_SANITIZER"))
SANITIZER_ENVIRONMENT = ("ASAN_OPTIONS", "LSAN_OPTIONS", "TSAN_OPTIONS", "SWIFT_BACKTRACE", "NOTIFYD_SANITIZER")
FAULT_KINDS = ["kill", "watchdog", "pause", "bus", "nats", "disk", "descriptors", "compositor", "clock"]
# How long a `pause` stops the daemon, at most: it pings the 2 s watchdog every second, so a stop
# that starts up to a second after a ping must end within the other second, with room left for the
# loop's latency under load (a History read of 10,000 takes 0.1 s). The first hour-long run drew
# stops of up to 1.2 s, and at 3,260 s one that began late after a ping was taken for a hang.
PAUSE_SECONDS = (0.2, 0.7)


