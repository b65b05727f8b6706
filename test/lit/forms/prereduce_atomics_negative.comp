// A bin that looks like prereduce_atomics_bins.comp's but is not provably
// one of a few: (int(x) - 4) % 4 as DXC compiles HLSL's % (OpSRem, the
// sign of the dividend) is in -3..3, and a negative index is out of the
// set the pass would enumerate: refused (DivergentAddress). glslang
// compiles % of an int to OpSMod (the sign of the divisor, always 0..3):
// that one is a small bin set.
// RUN: %glslang -V --target-env vulkan1.1 %s -o %t.smod.spv
// RUN: %spirv-dis %t.smod.spv | sed 's/OpSMod/OpSRem/' | %spirv-as --target-env vulkan1.1 -o %t.srem.spv -
// RUN: %spirv-opt -O %t.srem.spv -o %t.srem.opt.spv
// RUN: %waveopt %t.srem.spv --prereduce-atomics --remarks=prereduce --remarks-missed=prereduce -o %t.1.spv 2>&1 | %FileCheck %s --check-prefix=SREM
// RUN: %waveopt %t.srem.opt.spv --prereduce-atomics --remarks=prereduce --remarks-missed=prereduce -o %t.2.spv 2>&1 | %FileCheck %s --check-prefix=SREM
// SREM-NOT: applied
// SREM: missed DivergentAddress in main
// SREM-NOT: applied
// RUN: %waveopt %t.smod.spv --prereduce-atomics --remarks=prereduce -o %t.3.spv 2>&1 | %FileCheck %s --check-prefix=SMOD
// SMOD: applied SmallBinSet in main
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer In { uint v[]; };
shared uint bins[256];

void main() {
  bins[gl_LocalInvocationIndex] = 0u;
  barrier();
  int b = (int(v[gl_GlobalInvocationID.x]) - 4) % 4;
  atomicAdd(bins[b + 4], 1u);
}
