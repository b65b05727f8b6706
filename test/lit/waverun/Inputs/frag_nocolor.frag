// A fragment shader without color outputs: a draw with no attachments.
#version 450
layout(set = 0, binding = 0) buffer Counter { uint count; };
void main() {
  atomicAdd(count, uint(gl_FragCoord.x) + 1u);
}
