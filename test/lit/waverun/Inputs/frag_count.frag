// A fragment shader for waverun's graphics path: every pixel of the target
// counts itself once and writes its slot (helper invocations' stores and
// atomics have no effect); a push constant is read in the fragment stage;
// color outputs at locations 0 and 2 (location 1 unused) get attachments.
#version 450
layout(set = 0, binding = 0) buffer Counter { uint count; uint helpers; };
layout(set = 0, binding = 1) buffer Pixels { uint pixels[]; };
layout(push_constant) uniform Push { uint width; uint tag; };
layout(location = 0) out vec4 color;
layout(location = 2) out uvec4 id;
void main() {
  uvec2 p = uvec2(gl_FragCoord.xy);
  float slope = dFdx(gl_FragCoord.x * gl_FragCoord.y);
  atomicAdd(count, 1u);
  if (gl_HelperInvocation) atomicAdd(helpers, 1u);
  pixels[p.y * width + p.x] = tag + p.y * 100u + p.x + (slope > 0.0 ? 0x10000u : 0u);
  color = vec4(slope);
  id = uvec4(p, 0u, 1u);
}
