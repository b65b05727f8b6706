#version 450
// FidelityFX SPD's pattern: every workgroup writes its partial result, then
// one invocation increments a counter (after a barrier); the workgroup that
// sees the count reach the number of workgroups minus one reads every
// partial result. Ordered by the atomic when the counter starts at zero and
// the push constant is the dispatch's size; with more workgroups than that,
// the later ones write partial results the last one already read (a race).
layout(local_size_x = 64) in;
layout(push_constant) uniform P { uint num_workgroups; };
layout(set = 0, binding = 0) buffer Partial { uint partial[]; };
layout(set = 0, binding = 1) buffer Counter { uint counter; };
layout(set = 0, binding = 2) buffer Out { uint total; };
shared uint seen;
void main() {
  if (gl_LocalInvocationID.x == 0u) partial[gl_WorkGroupID.x] = gl_WorkGroupID.x * 10u + 1u;
  barrier();
  if (gl_LocalInvocationID.x == 0u) seen = atomicAdd(counter, 1u);
  barrier();
  if (seen != num_workgroups - 1u) return;
  if (gl_LocalInvocationID.x == 0u) {
    uint t = 0u;
    for (uint k = 0u; k < num_workgroups + 2u; ++k) t += partial[k];
    total = t;
  }
}
