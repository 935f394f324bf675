// librsvg (SVG icons), loaded when the first SVG icon is drawn rather than linked: linking it maps
// librsvg, gio and gdk-pixbuf into every daemon at start, about 4.5 MiB of resident pages (measured
// on Debian 12, librsvg 2.54), and a first render brings in as much again. A daemon whose cards
// have no SVG icon never pays it. The few functions used are looked up by `notifyd_rsvg_render`;
// their declarations are librsvg's own header's.
#pragma once
#include <stddef.h>

/// Renders the SVG document in `data` (`length` bytes) into the cairo context `context` (a
/// `cairo_t *`), fitted to the `width`×`height` box at its origin, proportions kept and centred,
/// with the CSS `stylesheet` applied over the document's own (NULL: none). The document may load
/// nothing else (it is read from memory, without a base file). Loads librsvg the first time.
/// Returns 0, or -1 when the library is missing or the document is refused (the card is then
/// drawn without its icon, as for any file that is no image).
int notifyd_rsvg_render(const unsigned char *data, size_t length, const char *stylesheet, void *context,
                        double width, double height);
