// A loop whose repeated load is in a function too large for -O's inliner:
// the pass cannot see it, and says so (LoadInCallee) instead of staying
// silent; the module is otherwise unchanged by batch-uniform-loads.
// RUN: %waveopt %s -O -o %t.spv --remarks=batch --remarks-missed=batch 2> %t.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t.spv
// RUN: %FileCheck %s < %t.remarks
// CHECK: refuse_load_in_callee.comp:{{[0-9]+}}: remark: batch-uniform-loads: missed LoadInCallee in main: the loop calls big(u1;, which loads memory: loads in a called function are not batched (-O inlines functions called in loops of at most 200 instructions) [loop at line {{[0-9]+}}]
// CHECK-NOT: remark
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer W { float w[]; };
layout(set = 0, binding = 1) buffer O { float o[]; };
layout(push_constant) uniform P { uint count; };
float big(uint i) {
  float y = w[i];
#define STEP y = y * 1.0001 + 0.5; y = y * 0.9999 - 0.25; y = sqrt(abs(y)) + y;
#define STEP4 STEP STEP STEP STEP
#define STEP16 STEP4 STEP4 STEP4 STEP4
  STEP16 STEP16
  return y;
}
void main() {
  float acc = 0.0;
  for (uint i = 0u; i < count; ++i) acc += big(i);
  o[gl_GlobalInvocationID.x] = acc;
}
