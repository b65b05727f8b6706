// What to run: sizes, fills, compare modes, dispatch, seed and constants, read
// from a spec file next to the shader ("foo.comp" -> "foo.waverun") and from
// command-line lines. The format is in docs/waverun.md:
//
//   # comment
//   dispatch 4 1 1
//   draw fullscreen 37x23        (fragment shaders, instead of dispatch)
//   seed 7
//   binding 0.1 size=256 fill=mod:16 compare=exact words=1,2
//   binding 0.3 size=64x64 format=rgba8 fill=float:0:1
//   push fill=zero words=20
//   const 3 = 20
//   separate-kinds
#ifndef WAVEOPT_TOOLS_WAVERUN_SPEC_H_
#define WAVEOPT_TOOLS_WAVERUN_SPEC_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tools/waverun/data.h"

namespace waverun {

struct Compare {
  enum class Kind {
    kExact,          // every byte
    kMultiset,       // the trailing array's elements as a multiset
    kMultisetCount,  // the first N elements, N read from a counter binding
    kUlp,            // floats within |ulps| units in the last place
    kIgnore,
  };
  Kind kind = Kind::kExact;
  uint32_t ulps = 0;
  uint32_t counter_set = 0;  // kMultisetCount: where N is
  uint32_t counter_binding = 0;
  uint32_t counter_word = 0;  // 32-bit word index inside that binding
};

// Parses "exact", "multiset", "multiset-count:S.B[@W]", "ulp:N", "ignore".
bool ParseCompare(const std::string& text, Compare* compare, std::string* error);
std::string CompareName(const Compare& compare);

using BindingKey = std::pair<uint32_t, uint32_t>;  // (set, binding)

// Parses "S.B" or "B" (set 0).
bool ParseBindingKey(const std::string& text, BindingKey* key);
std::string BindingKeyName(const BindingKey& key);

struct BindingSpec {
  // Buffers: runtime array length; texel buffers and 1-D images: texels.
  std::optional<uint64_t> elements;
  // Images: size=WxH[xD] (0: not given); D is the depth of 3-D images and
  // the layers of arrayed ones (cube images: faces, 6 per cube).
  uint32_t width = 0, height = 0, depth = 0;
  std::optional<uint32_t> count;  // runtime descriptor arrays: descriptors
  std::optional<Fill> fill;
  std::optional<Compare> compare;
  std::optional<ImageFormat>
      format;                   // sampled images, texel buffers, unknown-format storage images
  std::vector<uint32_t> words;  // overwrite the first words after filling
  int line = 0;                 // where it came from, for messages
  std::string origin;
};

// A buffer reached through a device address (pointer fields): "pointer
// LABEL size=N fill=... compare=... words=...".
struct PointerSpec {
  std::optional<uint64_t> elements;  // the pointee's trailing array (or its type repeated)
  std::optional<Fill> fill;
  std::optional<Compare> compare;
  std::vector<uint32_t> words;
  std::string origin;
};

// The largest W and H of "draw fullscreen WxH".
constexpr uint32_t kMaxDrawSize = 4096;

struct RunSpec {
  uint32_t dispatch[3] = {1, 1, 1};
  uint64_t seed = 1;
  uint32_t reps = 10;
  std::map<BindingKey, BindingSpec> bindings;
  std::optional<Fill> push_fill;
  std::vector<uint32_t> push_words;
  std::map<uint32_t, uint64_t> constants;       // specialization constant id -> bits
  std::map<std::string, PointerSpec> pointers;  // by label ("0.1+8", "push+0")
  // "separate-kinds": every descriptor variable moves to binding B*8+K (K:
  // its kind, SeparateBindingKinds in reflect.h), so that variables of
  // different kinds declared on one binding (HLSL registers b0, t0, u0, s0
  // compiled without binding shifts) can be bound.
  bool separate_kinds = false;
  // "ulp N" (diff --ulp=N): every float output without a compare= of its
  // own (buffers of 32-bit floats alone, images of float formats) is
  // compared as ulp:N.
  std::optional<uint32_t> float_ulps;
  bool dispatch_given = false;  // a dispatch line was applied
  std::string dispatch_origin;  // where the last dispatch line came from
  // "draw fullscreen WxH": fragment shaders run as one triangle covering a
  // W x H target (1..4096 each).
  uint32_t draw_width = 0, draw_height = 0;
  bool draw_given = false;
  std::string draw_origin;
  bool seed_given = false;
};

// Applies one spec line (no-op for blank lines and comments) to |spec|. Keys
// given again replace the earlier value. |origin| names the line in errors
// ("foo.waverun:3"). Returns false with a one-line |error|.
bool ApplySpecLine(const std::string& line, const std::string& origin, RunSpec* spec,
                   std::string* error);

// Applies every line of |text| (the contents of |path|).
bool ApplySpecText(const std::string& text, const std::string& path, RunSpec* spec,
                   std::string* error);

// "dir/foo.comp" -> "dir/foo.waverun".
std::string SpecPathFor(const std::string& shader_path);

// |spec| as spec-file lines that ApplySpecText reads back to the same spec
// (every key that is set, in a fixed order).
std::string FormatSpec(const RunSpec& spec);

}  // namespace waverun

#endif  // WAVEOPT_TOOLS_WAVERUN_SPEC_H_
