// A pre-reducible atomic in a branch that only one push constant value
// takes: --auto's search never finds it.
#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Counter { uint count; };
layout(set = 0, binding = 1) buffer Out { uint o[]; };
layout(push_constant) uniform Push { uint threshold; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (threshold == 123456789u) atomicAdd(count, 1u);
  o[i] = i * threshold;
}
