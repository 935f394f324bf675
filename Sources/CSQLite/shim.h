#include <sqlite3.h>

/* SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import. */
static const sqlite3_destructor_type notifyd_sqlite_transient = SQLITE_TRANSIENT;
