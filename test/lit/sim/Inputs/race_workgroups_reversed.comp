#version 450
// race_workgroups.comp with the workgroups' roles swapped: the same race,
// another winner in the simulator's order.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint data[]; };
void main() {
  data[gl_LocalInvocationID.x] = gl_NumWorkGroups.x - gl_WorkGroupID.x;
}
