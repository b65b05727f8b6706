#version 450
#extension GL_GOOGLE_include_directive : require
// 2:1 downsampling of luma, one output per two inputs.
#include "common.glsl"
#include "tile.glsl"
layout(set = 0, binding = 1) writeonly buffer Out { float half_res[]; };

void main() {
  uint p = gl_GlobalInvocationID.x;
  float a = Luma(data[2u * p]);
  float b = Luma(data[2u * p + 1u]);
  half_res[TileOf(p) * kTile * kTile + p % (kTile * kTile)] = Prepare(0.5 * (a + b));
}
