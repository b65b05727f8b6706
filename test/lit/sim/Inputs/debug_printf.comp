// debugPrintfEXT becomes an OpExtInst of NonSemantic.DebugPrintf, which
// changes nothing a shader computes: the simulator skips it (as lavapipe
// without a debug layer does).
#version 450
#extension GL_EXT_debug_printf : require
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) buffer Out { uint o[8]; };
void main() {
  uint i = gl_LocalInvocationID.x;
  debugPrintfEXT("lane %u", i);
  o[i] = i * 3u;
}
