// waveopt::PrintUniformity: the public entry to the uniformity analysis'
// printed form (waveopt --print-uniformity).
#include <sstream>

#include "analysis/uniformity.h"
#include "source/opt/build_module.h"
#include "source/opt/ir_context.h"
#include "waveopt/analysis.h"

namespace waveopt {

bool PrintUniformity(const std::vector<uint32_t>& words, spv_target_env env, std::string* out,
                     std::string* error) {
  std::string first_message;
  auto consumer = [&first_message](spv_message_level_t, const char*, const spv_position_t&,
                                   const char* message) {
    if (first_message.empty()) first_message = message;
  };
  std::unique_ptr<spvtools::opt::IRContext> context =
      spvtools::BuildModule(env, consumer, words.data(), words.size());
  if (!context) {
    *error =
        "cannot load the module" + (first_message.empty() ? std::string() : ": " + first_message);
    return false;
  }
  UniformityAnalysis analysis(context.get());
  std::ostringstream text;
  analysis.Print(text);
  *out = text.str();
  return true;
}

}  // namespace waveopt
