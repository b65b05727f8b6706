// Only GLCompute entry points are remapped: a mesh shader that reads
// gl_LocalInvocationID is left alone.
// RUN: %waveopt -S mesh %s -o %t.orig.spv
// RUN: %waveopt -S mesh %s --morton-remap -o %t.spv --remarks-missed=morton 2> %t.remarks
// RUN: cmp %t.orig.spv %t.spv
// RUN: %FileCheck %s < %t.remarks
// CHECK: missed NotCompute in main: only GLCompute entry points are remapped
#version 450
#extension GL_NV_mesh_shader : require
layout(local_size_x = 32) in;
layout(triangles, max_vertices = 64, max_primitives = 32) out;
void main() {
  uint i = gl_LocalInvocationID.x;
  gl_MeshVerticesNV[i].gl_Position = vec4(float(i));
  if (i == 0u) gl_PrimitiveCountNV = 1u;
}
