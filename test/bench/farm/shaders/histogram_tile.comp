#version 450
#extension GL_GOOGLE_include_directive : require
// A histogram of tile indices, weighted by luma.
#include "common.glsl"
#include "bins.glsl"
#include "tile.glsl"

void main() {
  uint p = gl_GlobalInvocationID.x;
  uint bin = (TileOf(p) + BinOf(Prepare(Luma(data[p])))) % kBins;
  atomicAdd(bins[bin], 1u);
}
