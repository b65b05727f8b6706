// The public headers alone, under the consumer's strictest settings (built
// at C++14 and C++20, -Wall -Wextra -Wpedantic -Werror, no exceptions, no
// RTTI): they must compile in any engine.
#include "waveopt/io.h"
#include "waveopt/waveopt.h"
#include "waveopt/waveopt_c.h"

int main() { return waveopt::Version()[0] == '\0'; }
