// Writes one value into an rgba16f and an rgba8 (unorm) image; texels_b
// writes texel (1,2) a quarter higher: diff shows the texels as values.
#version 450
layout(local_size_x = 4, local_size_y = 4) in;
layout(set = 0, binding = 0, rgba16f) uniform writeonly image2D halves;
layout(set = 0, binding = 1, rgba8) uniform writeonly image2D unorms;

void main() {
  ivec2 xy = ivec2(gl_GlobalInvocationID.xy);
  float v = float(xy.y * 4 + xy.x) / 16.0;
  if (xy == ivec2(1, 2)) v += 0.25;
  imageStore(halves, xy, vec4(v, 0.5, 0.25, 1.0));
  imageStore(unorms, xy, vec4(v, 0.5, 0.25, 1.0));
}
