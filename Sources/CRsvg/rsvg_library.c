#include "CRsvg.h"

#include <dlfcn.h>
#include <librsvg/rsvg.h>
#include <pthread.h>
#include <stdbool.h>
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
static bool loaded;

static void load(void) {
  void *library = dlopen(NOTIFYD_RSVG_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  if (library == NULL) return;
#define NOTIFYD_RSVG_LOOKUP(result, name, parameters)                                               \
  loaded_##name = (result(*) parameters)dlsym(library, #name);                                     \
  if (loaded_##name == NULL) return;
  NOTIFYD_RSVG_FUNCTIONS(NOTIFYD_RSVG_LOOKUP)
  loaded = true;
}

int notifyd_rsvg_render(const unsigned char *data, size_t length, const char *stylesheet, void *context,
                        double width, double height) {
  pthread_once(&once, load);
  if (!loaded) return -1;
  GError *reason = NULL;
  RsvgHandle *handle = loaded_rsvg_handle_new_from_data(data, length, &reason);
  gboolean drawn = handle != NULL;
  if (drawn && stylesheet != NULL)
    drawn = loaded_rsvg_handle_set_stylesheet(handle, (const guint8 *)stylesheet, strlen(stylesheet), &reason);
  if (drawn) {
    RsvgRectangle viewport = {.x = 0, .y = 0, .width = width, .height = height};
    drawn = loaded_rsvg_handle_render_document(handle, (cairo_t *)context, &viewport, &reason);
  }
  if (handle != NULL) g_object_unref(handle);
  if (reason != NULL) g_error_free(reason);
  return drawn ? 0 : -1;
}
