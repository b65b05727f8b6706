// Nested structs and arrays of structs in std430, std140 and scalar blocks,
// for fill=typed: every field at its absolute offset, padding left 0.
#version 450
#extension GL_EXT_scalar_block_layout : require
layout(local_size_x = 1) in;

struct Inner { uint pad; uvec2 v; };  // std430: pad@0 v@8, 16 bytes
struct Mid { uint m; Inner x; };      // std430: m@0 x@8, 24 bytes
layout(std430, set = 0, binding = 0) buffer B430 {
  uint a[3];      // @0
  Mid mid;        // @16
  Inner arr[2];   // @40, stride 16
  uint last;      // @72
} b430;

struct U { float s; mat2 m; };        // std140: s@0 m@16 (columns 16 apart), 48 bytes
layout(std140, set = 0, binding = 1) uniform B140 {
  float h;        // @0
  U u;            // @16
  U arr[2];       // @64, stride 48
} b140;

struct SInner { uint a; uvec3 v; };   // scalar: a@0 v@4, 16 bytes
struct SMid { uint m; SInner x; };    // scalar: m@0 x@4, 20 bytes
layout(scalar, set = 0, binding = 2) buffer BS {
  uint h[2];      // @0
  SMid mid;       // @8
  SMid arr[];     // @28, stride 20
} bs;

layout(set = 0, binding = 3) buffer Out { uint o[]; };

void main() {
  o[0] = b430.a[2] + b430.mid.x.v.y + b430.arr[1].v.x + b430.last;
  o[1] = uint(b140.h + b140.u.m[1][1] + b140.arr[1].m[0][0]);
  o[2] = bs.h[1] + bs.mid.x.v.z + bs.arr[1].x.a;
}
