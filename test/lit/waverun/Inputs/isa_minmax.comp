// waverun isa: a min and a max of per-lane values into one address each
// (uniform address, divergent value: prereduce-atomics' case B).
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Bounds { uint lo; uint hi; };
layout(set = 0, binding = 1) readonly buffer In { uint vals[]; };
layout(push_constant) uniform Push { uint offset; };
void main() {
  uint v = vals[gl_GlobalInvocationID.x + offset];
  atomicMin(lo, v);
  atomicMax(hi, v);
}
