// Resources that share a binding: found in a compiled module, so the front
// end can warn about HLSL that no register() or option placed.
#ifndef WAVEOPT_LIB_RESOURCE_BINDINGS_H_
#define WAVEOPT_LIB_RESOURCE_BINDINGS_H_

#include <cstdint>
#include <string>
#include <vector>

namespace waveopt {

// Two resource variables of different descriptor types (a sampled image and
// a storage buffer, ...) decorated with the same set and binding: no
// pipeline layout can hold both. Two of the same type are not reported
// (aliasing one descriptor with several declarations is legal and common).
struct BindingCollision {
  std::string first, first_kind;
  std::string second, second_kind;
  // HLSL's register class of each ('t', 'u', 'b' or 's'; 0 when none fits).
  char first_class = 0, second_class = 0;
  uint32_t set = 0, binding = 0;
};

// Every such pair in |words|, in the order of the bindings, then of the
// variables' declarations.
std::vector<BindingCollision> FindBindingCollisions(const std::vector<uint32_t>& words);

// DXC's options that move HLSL's register classes of |words|' resources
// apart, every space at once: the class with the lowest letter in "tubs"
// order stays, each next one starts at the next multiple of 10 past the
// one before ("-fvk-u-shift 10 all -fvk-b-shift 20 all"). "" when the
// resources use one class.
std::string ClassShiftOptions(const std::vector<uint32_t>& words);

}  // namespace waveopt

#endif  // WAVEOPT_LIB_RESOURCE_BINDINGS_H_
