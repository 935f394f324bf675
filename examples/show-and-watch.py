#!/usr/bin/env python3
"""Shows a notice with the Python `varlink` package, then follows it until it has finished.

    examples/show-and-watch.py TITLE [BODY] [--urgency U] [--hold SECONDS] [--frames]

Prints one line per change of the notice (`#12 fadingIn 0.00`, ..., `#12 finished completed`)
and exits as `notifyctl wait` does: 0 completed, 3 cancelled, 4 timed out, 5 replaced,
6 dismissed, 1 when notifyd is not there or answers with an error.

Two connections: Watch (a call with `more`) streams replies on one, Show goes out on the other.
Watch starts first and its snapshot is read before Show is sent, so no event of the new notice
can be missed. `pip install varlink` (Debian: python3-varlink).
"""

import argparse
import os
import sys

import varlink

EXIT_STATUS = {"completed": 0, "cancelled": 3, "timedOut": 4, "replaced": 5, "dismissed": 6}


def socket_address():
    """notifyctl's lookup: $NOTIFYD_SOCKET, else $XDG_RUNTIME_DIR/notifyd.sock."""
    path = os.environ.get("NOTIFYD_SOCKET")
    if not path:
        runtime = os.environ.get("XDG_RUNTIME_DIR") or f"/run/user/{os.getuid()}"
        path = os.path.join(runtime, "notifyd.sock")
    return "unix:" + path


def main():
    parser = argparse.ArgumentParser(description="Show a notice and follow it until it has finished.")
    parser.add_argument("title")
    parser.add_argument("body", nargs="?")
    parser.add_argument("--urgency", choices=["low", "normal", "critical"])
    parser.add_argument("--hold", type=float, help="seconds to stay fully visible")
    parser.add_argument("--frames", action="store_true", help="also print the opacity as it fades")
    args = parser.parse_args()

    # Fields left out take the daemon's configured defaults, so only what was given is sent.
    notice = {"title": args.title}
    for field in ("body", "urgency", "hold"):
        if getattr(args, field) is not None:
            notice[field] = getattr(args, field)

    try:
        with varlink.Client(address=socket_address()) as client, \
                client.open("io.notifyd.Queue") as queue, \
                client.open("io.notifyd.Queue") as watcher:
            events = watcher.Watch(frames=args.frames, _more=True)
            next(events)  # the snapshot: from here on every event reaches us
            notice_id = queue.Show(**notice)["id"]
            for reply in events:
                event = reply["event"]
                about = event.get("id") or (event.get("notice") or {}).get("id")
                if about != notice_id:
                    continue
                if event["kind"] == "finished":
                    outcome = event["notice"]["outcome"]
                    print(f"#{notice_id} finished {outcome}", flush=True)
                    return EXIT_STATUS.get(outcome, 1)
                if event["kind"] in ("phase", "frame"):
                    print(f"#{notice_id} {event['phase']} {event['opacity']:.2f}", flush=True)
                else:
                    print(f"#{notice_id} {event['kind']}", flush=True)
    except varlink.VarlinkError as error:
        print(f"{sys.argv[0]}: notifyd answered {error.error()}: {error.parameters()}", file=sys.stderr)
    except BrokenPipeError:  # our reader went away (`| head`): nothing left to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (ConnectionError, FileNotFoundError) as error:
        print(f"{sys.argv[0]}: cannot reach notifyd at {socket_address()}: {error}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
