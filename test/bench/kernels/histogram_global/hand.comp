// 16-bin luminance histogram straight to global memory (seed 003),
// hand-tuned: ballot-emulated WaveMatch, one global atomic per distinct bin
// per subgroup, issued by the lowest lane of the bin's set.
#version 450
#extension GL_KHR_shader_subgroup_ballot : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, rgba8) readonly uniform image2D img;
layout(set = 0, binding = 1) buffer Hist { uint bins[16]; };

uint lum_bin(ivec2 p) {
  vec3 c = imageLoad(img, p).rgb;
  float lum = dot(c, vec3(0.2126, 0.7152, 0.0722));
  float grad = float(p.x + p.y) / 3000.0;
  return min(uint((0.8 * grad + 0.2 * lum) * 16.0), 15u);
}

uvec4 bit_match(uint bin, uint bit) {
  bool set = ((bin >> bit) & 1u) != 0u;
  uvec4 b = subgroupBallot(set);
  return set ? b : ~b;
}

void main() {
  uint bin = lum_bin(ivec2(gl_GlobalInvocationID.xy));
  uvec4 peers = subgroupBallot(true) & bit_match(bin, 0u) & bit_match(bin, 1u) &
                bit_match(bin, 2u) & bit_match(bin, 3u);
  uvec4 below = peers & gl_SubgroupLtMask;
  if ((below.x | below.y | below.z | below.w) == 0u) {
    uvec4 c = bitCount(peers);
    atomicAdd(bins[bin], uint(c.x + c.y + c.z + c.w));
  }
}
