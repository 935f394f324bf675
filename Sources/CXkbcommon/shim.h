// libxkbcommon: a keyboard's keymap and state, keys to the text they type (the reply field).
#pragma once
#include <xkbcommon/xkbcommon.h>
