#version 450
layout(local_size_x = 64) in;
layout(binding = 0) buffer Placed { uint a[]; } placed;
buffer Unplaced { uint b[]; } unplaced;
void main() { unplaced.b[gl_GlobalInvocationID.x] = placed.a[gl_GlobalInvocationID.x]; }
