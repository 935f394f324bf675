// libnats (the NATS C client, with JetStream), loaded when the relay is first used rather than linked:
// linking it maps libnats, libssl and libcrypto into every `notifyctl` and `notifyd` at start (about
// 2 ms of `notifyctl show`, measured), and makes them refuse to start where libnats is not installed.
// Every libnats function notifyd calls is defined here as a hidden function that calls the library's
// own, looked up by `notifyd_nats_open`; the declarations are libnats' own header's.
#pragma once
#include <nats/nats.h>
#include <stddef.h>

/// Loads libnats and every function notifyd uses from it, once; later calls answer the first one's
/// result. Returns 0, or -1 with what is missing in `error` (the library, or a function in it).
int notifyd_nats_open(char *error, size_t size);
