#include "CRsvg.h"

#include <dlfcn.h>
#include <librsvg/rsvg.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

// The library's soname: the ABI this was built against (Debian's librsvg2-2).
#define NOTIFYD_RSVG_LIBRARY "librsvg-2.so.2"

// Every function used, as (result, name, parameters). A pointer whose type differs from librsvg's
// declaration does not compile.
#define NOTIFYD_RSVG_FUNCTIONS(F)                                                                    \
  F(RsvgHandle *, rsvg_handle_new_from_data, (const guint8 *data, gsize length, GError **error))    \
  F(gboolean, rsvg_handle_set_stylesheet,                                                            \
    (RsvgHandle * handle, const guint8 *css, gsize length, GError **error))                          \
  F(gboolean, rsvg_handle_render_document,                                                           \
    (RsvgHandle * handle, cairo_t *context, const RsvgRectangle *viewport, GError **error))

#define NOTIFYD_RSVG_POINTER(result, name, parameters) static __typeof__(name) *loaded_##name;
NOTIFYD_RSVG_FUNCTIONS(NOTIFYD_RSVG_POINTER)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[512];

static void load(void) {
  void *library = dlopen(NOTIFYD_RSVG_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  if (library == NULL) {
    snprintf(failure, sizeof failure, "cannot load %s (SVG icons; Debian package librsvg2-2): %s",
             NOTIFYD_RSVG_LIBRARY, dlerror());
    return;
  }
#define NOTIFYD_RSVG_LOOKUP(result, name, parameters)                                               \
  loaded_##name = (result(*) parameters)dlsym(library, #name);                                     \
  if (loaded_##name == NULL) {                                                                       \
    snprintf(failure, sizeof failure, "%s has no function %s", NOTIFYD_RSVG_LIBRARY, #name);        \
    return;                                                                                          \
  }
  NOTIFYD_RSVG_FUNCTIONS(NOTIFYD_RSVG_LOOKUP)
}

/// Copies `problem` (and GLib's message, which it frees) into `error`; returns -1.
static int failed(const char *problem, GError *reason, char *error, size_t size) {
  snprintf(error, size, "%s%s%s", problem, reason ? ": " : "", reason ? reason->message : "");
  if (reason) g_error_free(reason);
  return -1;
}

int notifyd_rsvg_render(const unsigned char *data, size_t length, const char *stylesheet, void *context,
                        double width, double height, char *error, size_t size) {
  pthread_once(&once, load);
  if (failure[0] != 0) return failed(failure, NULL, error, size);
  GError *reason = NULL;
  RsvgHandle *handle = loaded_rsvg_handle_new_from_data(data, length, &reason);
  if (handle == NULL) return failed("not an SVG document", reason, error, size);
  if (stylesheet != NULL &&
      !loaded_rsvg_handle_set_stylesheet(handle, (const guint8 *)stylesheet, strlen(stylesheet), &reason)) {
    g_object_unref(handle);
    return failed("the stylesheet is refused", reason, error, size);
  }
  RsvgRectangle viewport = {.x = 0, .y = 0, .width = width, .height = height};
  gboolean drawn = loaded_rsvg_handle_render_document(handle, (cairo_t *)context, &viewport, &reason);
  g_object_unref(handle);
  return drawn ? 0 : failed("cannot be drawn", reason, error, size);
}
