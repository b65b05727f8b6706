// --assume-driver: radv leaves 32-bit uniform-address atomics (cases A and B)
// to the driver, which pre-reduces them itself (test/lit/waverun/isa.test
// pins that), and keeps the small-bin case C and 64-bit atomics; cpu keeps
// only case B, the one measured faster on lavapipe. none (the default of a
// pass named on its own) rewrites all of them; generic is portable now, which
// holds both drivers' facts (docs/targets.md). Evidence: docs/design/prereduce-atomics.md.
// RUN: %waveopt %s --prereduce-atomics --assume-driver=radv -o %t.radv.spv --remarks=prereduce --remarks-missed=prereduce 2> %t.radv
// RUN: %spirv-val --target-env vulkan1.1 %t.radv.spv
// RUN: %FileCheck %s --check-prefix=RADV < %t.radv
// RUN: %waveopt %s --prereduce-atomics --assume-driver=cpu -o %t.cpu.spv --remarks=prereduce --remarks-missed=prereduce 2> %t.cpu
// RUN: %spirv-val --target-env vulkan1.1 %t.cpu.spv
// RUN: %FileCheck %s --check-prefix=CPU < %t.cpu
// RUN: %waveopt %s --prereduce-atomics --target=none -o %t.gen.spv --remarks=prereduce --remarks-missed=prereduce 2> %t.gen
// RUN: %waveopt %s --prereduce-atomics --assume-driver=generic -o %t.portable.spv --remarks=prereduce --remarks-missed=prereduce 2> %t.portable
// RUN: %FileCheck %s --check-prefix=PORTABLE < %t.portable
// RUN: %waveopt %s --prereduce-atomics -o %t.default.spv
// RUN: cmp %t.gen.spv %t.default.spv
// RUN: %FileCheck %s --check-prefix=GENERIC < %t.gen
// RUN: %not %waveopt %s --prereduce-atomics --assume-driver=amdvlk -o %t.bad.spv 2>&1 | %FileCheck %s --check-prefix=BAD
// RUN: test ! -e %t.bad.spv
//
// RADV: assume_driver.comp:57: remark: prereduce-atomics: missed DriverPreReduces in main: --target=amd: RADV pre-reduces a 32-bit uniform-address atomic itself
// RADV: assume_driver.comp:58: remark: prereduce-atomics: missed DriverPreReduces in main
// RADV: assume_driver.comp:59: remark: prereduce-atomics: applied SmallBinSet in main
// RADV: assume_driver.comp:60: remark: prereduce-atomics: applied UniformAddressUniformValue in main
// RADV-NOT: remark
// CPU: assume_driver.comp:57: remark: prereduce-atomics: missed NotProfitableOnCpu in main: --target=cpu: the uniform-value pre-reduction (append counters) measured slower than one atomic per lane on lavapipe
// CPU: assume_driver.comp:58: remark: prereduce-atomics: applied UniformAddressDivergentValue in main
// CPU: assume_driver.comp:59: remark: prereduce-atomics: missed NotProfitableOnCpu in main: --target=cpu: the small-bin pre-reduction (histograms)
// CPU: assume_driver.comp:60: remark: prereduce-atomics: missed NotProfitableOnCpu in main
// CPU-NOT: remark
// GENERIC: applied UniformAddressUniformValue
// GENERIC: applied UniformAddressDivergentValue
// GENERIC: applied SmallBinSet
// GENERIC: applied UniformAddressUniformValue
// PORTABLE: assume_driver.comp:57: remark: prereduce-atomics: missed DriverPreReduces in main: --target=portable: RADV pre-reduces
// PORTABLE: assume_driver.comp:58: remark: prereduce-atomics: missed DriverPreReduces in main
// PORTABLE: assume_driver.comp:59: remark: prereduce-atomics: missed NotProfitableOnCpu in main: --target=portable: the small-bin pre-reduction (histograms)
// PORTABLE: assume_driver.comp:60: remark: prereduce-atomics: missed NotProfitableOnCpu in main
// PORTABLE-NOT: remark
// BAD: waveopt: error: --assume-driver is portable, amd, nvidia, intel, cpu or none (--assume-driver also takes generic and radv), not 'amdvlk'
#version 450
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Data {
  uint count;       // case A: an append counter
  uint hi;          // case B: a maximum of per-lane values
  uint bins[16];    // case C: a 16-bin histogram
  uint64_t total;   // case A, 64 bits
  uint slots[];
};
layout(set = 0, binding = 1) readonly buffer In { uint vals[]; };
void main() {
  uint g = gl_GlobalInvocationID.x;
  uint v = vals[g];
  slots[g] = atomicAdd(count, 1u);
  atomicMax(hi, v);
  atomicAdd(bins[v & 15u], 1u);
  atomicAdd(total, 5ul);
}
