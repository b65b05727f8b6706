#version 450
// Every workgroup writes its id into the same 64 words: invocation i of
// workgroup 0 and invocation i of workgroup 1 race (write/write), and the
// winner is whichever workgroup runs last.
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint data[]; };
void main() {
  data[gl_LocalInvocationID.x] = gl_WorkGroupID.x + 1u;
}
