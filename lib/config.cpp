// The configuration layer's functions: versions and driver profiles.
#include "waveopt/config.h"

#ifndef WAVEOPT_VERSION_STRING
#define WAVEOPT_VERSION_STRING "0.0.0"
#endif
#ifndef WAVEOPT_SPIRV_TOOLS_VERSION_STRING
#define WAVEOPT_SPIRV_TOOLS_VERSION_STRING "unknown"
#endif

namespace waveopt {

const char* Version() { return WAVEOPT_VERSION_STRING; }
const char* SpirvToolsVersion() { return WAVEOPT_SPIRV_TOOLS_VERSION_STRING; }

bool ParseAssumedDriver(const std::string& name, AssumedDriver* driver) {
  if (name == "generic") {
    *driver = AssumedDriver::kGeneric;
  } else if (name == "radv") {
    *driver = AssumedDriver::kRadv;
  } else if (name == "cpu") {
    *driver = AssumedDriver::kCpu;
  } else {
    return false;
  }
  return true;
}

const char* AssumedDriverName(AssumedDriver driver) {
  switch (driver) {
    case AssumedDriver::kRadv: return "radv";
    case AssumedDriver::kCpu: return "cpu";
    case AssumedDriver::kGeneric: break;
  }
  return "generic";
}

}  // namespace waveopt
