// A kernel with no spec file: a runtime array read by index, a uniform
// block with a count that bounds a loop, a 2-D storage image written at the
// invocation's pixel, push constants and a workgroup size from a
// specialization constant.
#version 450
layout(local_size_x_id = 0, local_size_y = 4) in;
layout(constant_id = 0) const uint kWidth = 8u;
layout(set = 0, binding = 0) readonly buffer In { vec4 data[]; };
layout(set = 0, binding = 1) uniform Params { uint count; uint stride; };
layout(set = 0, binding = 2, rgba32f) uniform writeonly image2D result;
layout(set = 0, binding = 3) buffer Sums { float sums[]; };
layout(push_constant) uniform Push { float scale; uint offset; };
void main() {
  uvec2 p = gl_GlobalInvocationID.xy;
  uint row = p.y * gl_NumWorkGroups.x * kWidth + p.x;
  vec4 acc = vec4(0.0);
  for (uint k = 0u; k < count; ++k) acc += data[(row + k * stride + offset) % 4096u];
  imageStore(result, ivec2(p), acc * scale);
  sums[row] = acc.x + acc.y;
}
