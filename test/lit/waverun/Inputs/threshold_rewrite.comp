// A pre-reducible atomic in a branch that only a push constant of 1000 or
// more takes: the first inputs --auto tries (small parameters) do not run
// the rewrite; its search goes on until some do.
#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Counter { uint count; };
layout(set = 0, binding = 1) buffer Out { uint o[]; };
layout(push_constant) uniform Push { uint threshold; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (threshold >= 1000u) atomicAdd(count, 1u);
  o[i] = i * threshold;
}
