// A cycle for include_cycles.py to find: a.cpp needs b, b.h needs a.
#include "lib/x/b.h"
