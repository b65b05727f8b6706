// A kernel with subgroup operations (each texel gets its subgroup's sum and
// its quad neighbour's value): which invocations share a subgroup or quad
// decides the output, so the pass must not fire (negative_control.test
// shows that forcing it changes the output).
// RUN: %diff %s --waveopt-flags="--morton-remap --remarks=morton --remarks-missed=morton" 2>&1 | %FileCheck %s
// CHECK: missed UsesSubgroupOps in main: OpGroupNonUniform
// CHECK: PASS: equal at sizes 4,8,16
#version 450
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_quad : require
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, r32f) uniform readonly image2D src;
layout(set = 0, binding = 1, r32f) uniform writeonly image2D dst;
void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  float v = imageLoad(src, p).r;
  float s = subgroupAdd(v);
  float h = subgroupQuadSwapHorizontal(v);
  imageStore(dst, p, vec4(s + 0.5 * h));
}
