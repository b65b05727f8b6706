// images.comp with one texel of visits counted twice.
// Copies a sampled image into storage images of four formats and counts
// texel visits with an image atomic.
#version 450
layout(local_size_x = 4, local_size_y = 4) in;
layout(set = 0, binding = 0) uniform sampler2D src;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D dst8;
layout(set = 0, binding = 2, rgba16f) uniform writeonly image2D dst16;
layout(set = 0, binding = 3, rgba32f) uniform writeonly image2D dst32;
layout(set = 0, binding = 4, r32ui) uniform uimage2D visits;
layout(set = 0, binding = 5, r32f) uniform readonly image2D weights;
layout(set = 0, binding = 6) buffer Sum { float total[]; };

void main() {
  ivec2 xy = ivec2(gl_GlobalInvocationID.xy);
  vec4 texel = texelFetch(src, xy, 0);
  imageStore(dst8, xy, texel);
  imageStore(dst16, xy, texel);
  imageStore(dst32, xy, texel);
  imageAtomicAdd(visits, xy, xy == ivec2(1, 2) ? 2u : 1u);
  total[xy.y * 4 + xy.x] = imageLoad(weights, xy).x;
}
