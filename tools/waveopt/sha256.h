#ifndef WAVEOPT_TOOLS_WAVEOPT_SHA256_H_
#define WAVEOPT_TOOLS_WAVEOPT_SHA256_H_

#include <string>

namespace waveopt_cli {

// The SHA-256 digest of |data|, 64 lower-case hex digits (sha256sum's).
std::string Sha256Hex(const std::string& data);

}  // namespace waveopt_cli

#endif  // WAVEOPT_TOOLS_WAVEOPT_SHA256_H_
