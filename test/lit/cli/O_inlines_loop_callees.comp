// -O's preparation inlines small functions called inside loops (accessors),
// so batch-uniform-loads sees their loads; a call outside any loop, and a
// call in a loop to a function over the size limit, stay calls.
// RUN: %waveopt %s -O --target=none -o %t.spv --remarks=batch 2> %t.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t.spv
// RUN: %FileCheck %s --check-prefix=REMARK < %t.remarks
// RUN: %spirv-dis %t.spv | %FileCheck %s
// The inliner alone, as a pipeline flag:
// RUN: %waveopt %s --inline-loop-callees -o %t.inl.spv
// RUN: %spirv-val --target-env vulkan1.1 %t.inl.spv
// RUN: %spirv-dis %t.inl.spv | %FileCheck %s --check-prefix=ALONE
// ALONE-NOT: OpFunctionCall %float %weight_u1_
// ALONE-DAG: OpFunctionCall %float %big_f1_
// ALONE-DAG: OpFunctionCall %float %shade_f1_
// REMARK: O_inlines_loop_callees.comp:{{[0-9]+}}: remark: batch-uniform-loads: applied BatchedLoads in main: 1 uniform load(s) per iteration
// The accessor is gone; shade() (called outside loops) and big() (called in a
// loop, but over the size limit) are still called.
// CHECK-NOT: OpName %weight_u1_ "weight(u1;"
// CHECK-DAG: OpName %shade_f1_ "shade(f1;"
// CHECK-DAG: OpName %big_f1_ "big(f1;"
// CHECK-DAG: OpFunctionCall %float %shade_f1_
// CHECK-DAG: OpFunctionCall %float %big_f1_
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer W { float w[]; };
layout(set = 0, binding = 1) buffer O { float o[]; };
layout(push_constant) uniform P { uint count; };
float weight(uint i) { return w[i]; }
float shade(float x) { return x * 0.5 + 1.0; }
float big(float x) {
  float y = x;
#define STEP y = y * 1.0001 + 0.5; y = y * 0.9999 - 0.25; y = sqrt(abs(y)) + y;
#define STEP4 STEP STEP STEP STEP
#define STEP16 STEP4 STEP4 STEP4 STEP4
  STEP16 STEP16
  return y;
}
void main() {
  float acc = 0.0;
  for (uint i = 0u; i < count; ++i) {
    acc += weight(i) * float(gl_LocalInvocationIndex);
    acc = big(acc);
  }
  o[gl_GlobalInvocationID.x] = shade(acc);
}
