// A light loop over a read-only buffer: AMD loads the lights with scalar
// loads (portable and amd leave it), NVIDIA gains by the batch (a version).
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer Lights { vec4 lights[]; };
layout(set = 0, binding = 1) buffer Out { vec4 color[]; };
layout(push_constant) uniform Count { uint count; } pc;
#ifdef COLLIDE
layout(constant_id = 1001) const float scale = 1.0;
#else
const float scale = 1.0;
#endif
void main() {
  vec4 sum = vec4(0.0);
  for (uint i = 0u; i < pc.count; ++i) sum += lights[i] * float(gl_LocalInvocationID.x) * scale;
  color[gl_GlobalInvocationID.x] = sum;
}
