// Compute derivatives (GL_NV_compute_shader_derivatives) are taken over
// quads of invocations: the pass leaves the shader alone.
// RUN: %waveopt %s -o %t.orig.spv
// RUN: %waveopt %s --morton-remap -o %t.spv --remarks-missed=morton 2> %t.remarks
// RUN: cmp %t.orig.spv %t.spv
// RUN: %FileCheck %s < %t.remarks
// CHECK: missed ComputeDerivatives in main: the entry point computes derivatives over 2x2 quads of invocation ids (DerivativeGroupQuadsNV)
#version 450
#extension GL_NV_compute_shader_derivatives : require
layout(local_size_x = 8, local_size_y = 8) in;
layout(derivative_group_quadsNV) in;
layout(set = 0, binding = 0) uniform sampler2D tex;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D dst;
void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  vec2 uv = (vec2(p) + 0.5) / 64.0;
  imageStore(dst, p, texture(tex, uv));
}
