#include "notify_bus.h"
