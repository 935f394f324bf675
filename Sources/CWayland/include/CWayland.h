// libwayland-client and the glue wayland-scanner generated for the protocols notifyd speaks
// beyond the core one (protocols/*.xml; `make protocols` regenerates the glue).
#pragma once
#include <wayland-client.h>
#include "wlr-layer-shell-unstable-v1-client-protocol.h"
#include "xdg-output-unstable-v1-client-protocol.h"
#include "xdg-activation-v1-client-protocol.h"
#include "ext-idle-notify-v1-client-protocol.h"
#include "org-kde-kwin-idle-client-protocol.h"
#include "viewporter-client-protocol.h"
#include "wlr-foreign-toplevel-management-unstable-v1-client-protocol.h"

// memfd_create(2), which glibc declares only under _GNU_SOURCE: the shared-memory buffers.
int memfd_create(const char *name, unsigned int flags);

// The interfaces to bind, by address: Swift sees these `extern const` structs only as copies,
// and libwayland keeps the pointer it is given.
static inline const struct wl_interface *notifyd_wl_compositor_interface(void) { return &wl_compositor_interface; }
static inline const struct wl_interface *notifyd_wl_shm_interface(void) { return &wl_shm_interface; }
static inline const struct wl_interface *notifyd_wl_seat_interface(void) { return &wl_seat_interface; }
static inline const struct wl_interface *notifyd_wl_output_interface(void) { return &wl_output_interface; }
static inline const struct wl_interface *notifyd_layer_shell_interface(void) { return &zwlr_layer_shell_v1_interface; }
static inline const struct wl_interface *notifyd_xdg_output_manager_interface(void) {
  return &zxdg_output_manager_v1_interface;
}
static inline const struct wl_interface *notifyd_xdg_activation_interface(void) { return &xdg_activation_v1_interface; }
static inline const struct wl_interface *notifyd_ext_idle_notifier_interface(void) {
  return &ext_idle_notifier_v1_interface;
}
static inline const struct wl_interface *notifyd_kde_idle_interface(void) { return &org_kde_kwin_idle_interface; }
static inline const struct wl_interface *notifyd_viewporter_interface(void) { return &wp_viewporter_interface; }
static inline const struct wl_interface *notifyd_foreign_toplevel_manager_interface(void) {
  return &zwlr_foreign_toplevel_manager_v1_interface;
}
