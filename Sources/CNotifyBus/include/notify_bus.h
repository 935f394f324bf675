#ifndef NOTIFY_BUS_H
#define NOTIFY_BUS_H

#include <systemd/sd-bus.h>

/* The org.freedesktop.Notifications vtable lives in notify_bus.c: Swift cannot import the
   SD_BUS_METHOD / SD_BUS_VTABLE macros. Each method is a trampoline into one of these handlers;
   the handler reads the call's arguments and replies (now, or later through a reference it took). */

/// A method handler: answers >= 0 when it replied (or will reply), or a negative errno with
/// `error` set, which sd-bus turns into an error reply.
typedef int (*notify_bus_method_handler)(void *context, sd_bus_message *call, sd_bus_error *error);

/// The Swift side of the object: one handler per method, the context they receive, and `release`,
/// called with the context once the object is gone from the bus.
typedef struct notify_bus_server_handlers {
  void *context;
  notify_bus_method_handler notify;
  notify_bus_method_handler close_notification;
  notify_bus_method_handler get_capabilities;
  notify_bus_method_handler get_server_information;
  void (*release)(void *context);
} notify_bus_server_handlers;

/// Puts the org.freedesktop.Notifications object at /org/freedesktop/Notifications on `bus`
/// (methods Notify, CloseNotification, GetCapabilities, GetServerInformation; signals
/// NotificationClosed and ActionInvoked, for introspection). `handlers` is copied. Unreferencing
/// `*slot` removes the object and calls `handlers->release`; on failure (a negative errno) nothing
/// is kept and `release` is not called. Wraps sd_bus_add_object_vtable(3).
int notify_bus_add_server_object(sd_bus *bus, sd_bus_slot **slot, const notify_bus_server_handlers *handlers);

#endif
