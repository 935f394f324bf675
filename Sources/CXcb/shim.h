// libxcb and the extensions the X11 popups use: RandR (monitors), XFixes (who owns the
// compositing manager's selection), Shape (rounded corners where nothing composites) and
// MIT-SCREEN-SAVER (how long since the last input, for [Idle] After=).
#pragma once
#include <xcb/xcb.h>
#include <xcb/randr.h>
#include <xcb/xfixes.h>
#include <xcb/shape.h>
#include <xcb/screensaver.h>

// The extensions' ids, by address: Swift cannot see a global of an incomplete type.
static inline xcb_extension_t *notifyd_xcb_randr_id(void) { return &xcb_randr_id; }
static inline xcb_extension_t *notifyd_xcb_xfixes_id(void) { return &xcb_xfixes_id; }
static inline xcb_extension_t *notifyd_xcb_shape_id(void) { return &xcb_shape_id; }
static inline xcb_extension_t *notifyd_xcb_screensaver_id(void) { return &xcb_screensaver_id; }
