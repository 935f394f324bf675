#include "notify_bus.h"

#include <errno.h>
#include <stdlib.h>

#define NOTIFICATIONS_PATH "/org/freedesktop/Notifications"
#define NOTIFICATIONS_INTERFACE "org.freedesktop.Notifications"

static int method_notify(sd_bus_message *call, void *userdata, sd_bus_error *error) {
  const notify_bus_server_handlers *handlers = userdata;
  return handlers->notify(handlers->context, call, error);
}

static int method_close_notification(sd_bus_message *call, void *userdata, sd_bus_error *error) {
  const notify_bus_server_handlers *handlers = userdata;
  return handlers->close_notification(handlers->context, call, error);
}

static int method_get_capabilities(sd_bus_message *call, void *userdata, sd_bus_error *error) {
  const notify_bus_server_handlers *handlers = userdata;
  return handlers->get_capabilities(handlers->context, call, error);
}

static int method_get_server_information(sd_bus_message *call, void *userdata, sd_bus_error *error) {
  const notify_bus_server_handlers *handlers = userdata;
  return handlers->get_server_information(handlers->context, call, error);
}

static const sd_bus_vtable notifications_vtable[] = {
  SD_BUS_VTABLE_START(0),
  SD_BUS_METHOD_WITH_NAMES(
    "Notify", "susssasa{sv}i",
    SD_BUS_PARAM(app_name) SD_BUS_PARAM(replaces_id) SD_BUS_PARAM(app_icon) SD_BUS_PARAM(summary)
      SD_BUS_PARAM(body) SD_BUS_PARAM(actions) SD_BUS_PARAM(hints) SD_BUS_PARAM(expire_timeout),
    "u", SD_BUS_PARAM(id), method_notify, SD_BUS_VTABLE_UNPRIVILEGED),
  SD_BUS_METHOD_WITH_NAMES(
    "CloseNotification", "u", SD_BUS_PARAM(id), "", , method_close_notification, SD_BUS_VTABLE_UNPRIVILEGED),
  SD_BUS_METHOD_WITH_NAMES(
    "GetCapabilities", "", , "as", SD_BUS_PARAM(capabilities), method_get_capabilities,
    SD_BUS_VTABLE_UNPRIVILEGED),
  SD_BUS_METHOD_WITH_NAMES(
    "GetServerInformation", "", , "ssss",
    SD_BUS_PARAM(name) SD_BUS_PARAM(vendor) SD_BUS_PARAM(version) SD_BUS_PARAM(spec_version),
    method_get_server_information, SD_BUS_VTABLE_UNPRIVILEGED),
  SD_BUS_SIGNAL_WITH_NAMES("NotificationClosed", "uu", SD_BUS_PARAM(id) SD_BUS_PARAM(reason), 0),
  SD_BUS_SIGNAL_WITH_NAMES("ActionInvoked", "us", SD_BUS_PARAM(id) SD_BUS_PARAM(action_key), 0),
  SD_BUS_SIGNAL_WITH_NAMES("ActivationToken", "us", SD_BUS_PARAM(id) SD_BUS_PARAM(activation_token), 0),
  SD_BUS_SIGNAL_WITH_NAMES("NotificationReplied", "us", SD_BUS_PARAM(id) SD_BUS_PARAM(text), 0),
  SD_BUS_VTABLE_END,
};

static void release_handlers(void *userdata) {
  notify_bus_server_handlers *handlers = userdata;
  if (handlers->release)
    handlers->release(handlers->context);
  free(handlers);
}

int notify_bus_add_server_object(sd_bus *bus, sd_bus_slot **slot, const notify_bus_server_handlers *handlers) {
  if (!bus || !slot || !handlers || !handlers->notify || !handlers->close_notification
      || !handlers->get_capabilities || !handlers->get_server_information)
    return -EINVAL;
  notify_bus_server_handlers *copy = malloc(sizeof *copy);
  if (!copy)
    return -ENOMEM;
  *copy = *handlers;
  int r = sd_bus_add_object_vtable(bus, slot, NOTIFICATIONS_PATH, NOTIFICATIONS_INTERFACE, notifications_vtable, copy);
  if (r < 0) {
    free(copy);
    return r;
  }
  sd_bus_slot_set_destroy_callback(*slot, release_handlers);
  return r;
}
