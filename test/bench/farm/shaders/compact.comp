#version 450
#extension GL_GOOGLE_include_directive : require
// Stream compaction: one atomic per kept element.
#include "common.glsl"
layout(set = 0, binding = 1) buffer Count { uint count; };
layout(set = 0, binding = 2) writeonly buffer Kept { uint kept[]; };

void main() {
  uint p = gl_GlobalInvocationID.x;
  if (Prepare(Luma(data[p])) > 0.5) kept[atomicAdd(count, 1u)] = p;
}
