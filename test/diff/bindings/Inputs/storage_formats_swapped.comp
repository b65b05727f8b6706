// storage_formats.comp with the rg16f channels swapped.
#version 450
layout(local_size_x = 8, local_size_y = 5) in;
layout(set = 0, binding = 0, rgba16) uniform readonly image2D src;
layout(set = 0, binding = 1, r16f) uniform writeonly image2D half1;
layout(set = 0, binding = 2, rg16f) uniform writeonly image2D half2;
layout(set = 0, binding = 3, r11f_g11f_b10f) uniform writeonly image2D packedf;
layout(set = 0, binding = 4, rgba8_snorm) uniform writeonly image2D snorm;
layout(set = 0, binding = 5, rgb10_a2) uniform writeonly image2D packed10;
layout(set = 0, binding = 6, r8ui) uniform writeonly uimage2D bytes;
layout(set = 0, binding = 7, r32ui) uniform uimage2D tally;
void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  vec4 s = imageLoad(src, p);
  imageStore(half1, p, vec4(s.x * 3000.0 - 1000.0));
  imageStore(half2, p, vec4(s.z * 70000.0, s.y, 0.0, 0.0));
  imageStore(packedf, p, s * 100.0 - 10.0);
  imageStore(snorm, p, s * 2.5 - 1.25);
  imageStore(packed10, p, s.wzyx);
  imageStore(bytes, p, uvec4(uint(s.x * 400.0)));
  if (s.w > 0.5) imageAtomicAdd(tally, ivec2(gl_WorkGroupID.xy), 1u);
}
