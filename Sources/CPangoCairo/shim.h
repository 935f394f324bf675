// cairo (drawing into shared-memory buffers), pango (text shaping, wrapping, ellipsizing) and the
// PNG loader of cairo: the popup painter's C libraries.
#pragma once
#include <cairo.h>
#include <pango/pangocairo.h>
