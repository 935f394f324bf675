#!/usr/bin/env bash
# Shows a notice and waits until it has finished, talking Varlink to notifyd with nothing but
# bash and socat: no notifyctl, no JSON library.
#
#   examples/varlink-socat.sh TITLE [BODY]
#
# Prints the notice's id once notifyd has accepted it, then its outcome once it has finished, and
# exits as `notifyctl wait` does: 0 completed, 3 cancelled, 4 timed out, 5 replaced, 6 dismissed,
# 1 when notifyd is not there or answers with an error.
#
# The wire format (varlink.org): every message is one JSON object followed by a NUL byte, and
# replies come back in the order of the calls. One connection carries both calls, so it is kept
# open in a coprocess: `read -d ''` reads up to the NUL that ends each reply. (A one-shot
# `printf ... | socat` would shut its side of the connection down when printf is done, and
# notifyd drops a connection as soon as the client shuts it down, replies and all.)
set -euo pipefail

socket=${NOTIFYD_SOCKET:-${XDG_RUNTIME_DIR:-/run/user/$(id -u)}/notifyd.sock}
if (($# < 1 || $# > 2)); then
    echo "usage: $0 TITLE [BODY]" >&2
    exit 2
fi

# A JSON string: quotes and backslashes escaped, control characters as \uXXXX.
json_string() {
    local text=$1 escaped='' character i
    text=${text//\\/\\\\}
    text=${text//\"/\\\"}
    for ((i = 0; i < ${#text}; i++)); do
        character=${text:i:1}
        if [[ $character == [[:cntrl:]] ]]; then
            printf -v character '\\u%04x' "'$character"
        fi
        escaped+=$character
    done
    printf '"%s"' "$escaped"
}

if [[ ! -S $socket ]]; then
    echo "$0: no notifyd socket at $socket" >&2
    exit 1
fi
trap '' PIPE # a write to a socat that is gone fails, and says so below, instead of killing us
coproc NOTIFYD { exec socat - "UNIX-CONNECT:$socket"; }
to_notifyd=${NOTIFYD[1]} from_notifyd=${NOTIFYD[0]}
# Bash unsets NOTIFYD_PID as soon as the coprocess exits: keep a copy for `wait`.
socat_pid=$NOTIFYD_PID

# Sends one call and reads its reply into $reply; an error reply ends the script.
call() {
    if ! printf '%s\0' "$1" 2>/dev/null 1>&"$to_notifyd" ||
        ! IFS= read -r -d '' reply <&"$from_notifyd"; then
        echo "$0: no reply from notifyd at $socket" >&2
        exit 1
    fi
    if [[ $reply == *'"error":'* ]]; then
        echo "$0: notifyd answered: $reply" >&2
        exit 1
    fi
}

parameters="\"title\":$(json_string "$1")"
(($# == 2)) && parameters+=",\"body\":$(json_string "$2")"
call "{\"method\":\"io.notifyd.Queue.Show\",\"parameters\":{$parameters}}"
[[ $reply =~ \"id\":([0-9]+) ]] || { echo "$0: no id in $reply" >&2; exit 1; }
id=${BASH_REMATCH[1]}
echo "id $id"

# Wait replies once the notice has finished, with the notice and its outcome.
call "{\"method\":\"io.notifyd.Queue.Wait\",\"parameters\":{\"id\":$id}}"
[[ $reply =~ \"outcome\":\"([A-Za-z]+)\" ]] || { echo "$0: no outcome in $reply" >&2; exit 1; }
outcome=${BASH_REMATCH[1]}
echo "outcome $outcome"

exec {to_notifyd}>&- # end of input: socat closes the connection and exits
wait "$socat_pid" 2>/dev/null || true

case $outcome in
    completed) exit 0 ;;
    cancelled) exit 3 ;;
    timedOut) exit 4 ;;
    replaced) exit 5 ;;
    dismissed) exit 6 ;;
    *) exit 1 ;;
esac
