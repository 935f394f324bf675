#ifndef NOTIFY_BUS_H
#define NOTIFY_BUS_H

#include <systemd/sd-bus.h>

/* The org.freedesktop.Notifications vtable lives in notify_bus.c: Swift cannot import the
   SD_BUS_METHOD / SD_BUS_VTABLE macros. */

#endif
