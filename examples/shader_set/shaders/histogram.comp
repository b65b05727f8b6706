#version 450
#extension GL_GOOGLE_include_directive : require
// Luminance histogram: prereduce-atomics turns one atomic per lane into one
// per distinct bin per subgroup.
#include "bins.glsl"
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer Pixels { vec4 pixels[]; };

void main() {
  vec4 c = pixels[gl_GlobalInvocationID.x];
  atomicAdd(bins[BinOf(dot(c.rgb, vec3(0.2126, 0.7152, 0.0722)))], 1u);
}
