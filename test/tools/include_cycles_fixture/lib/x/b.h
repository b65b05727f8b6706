#pragma once
#include "lib/x/a.h"
