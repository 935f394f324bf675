#include <ini.h>
#include <stdbool.h>

/* libinih's options are process-wide globals, which Swift 6 will not touch directly: set them
   here, systemd style: no inline comments, no continuation lines, lines of any length, stop at
   the first error. */
static inline void notifyd_ini_configure(void) {
  ini_allow_inline_comments = false;
  ini_allow_multiline = false;
  ini_use_stack = false;
  ini_allow_realloc = true;
  ini_max_line = 1 << 20;
  ini_stop_on_first_error = true;
}
