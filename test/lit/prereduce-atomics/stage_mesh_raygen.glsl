// Task/mesh shaders are compute-like and on by default; ray tracing stages
// take stages=raytracing.
// RUN: %waveopt -S mesh --target-env=vulkan1.2 -DMESH %s --prereduce-atomics -o %t.mesh.spv --remarks=prereduce 2> %t.mesh.remarks
// RUN: %spirv-val --target-env vulkan1.2 %t.mesh.spv
// RUN: %FileCheck %s --check-prefix=MESH < %t.mesh.remarks
// MESH: applied UniformAddressDivergentValue in main{{( (at|near) [^:]+)?}}: one atomic per subgroup: OpAtomicIAdd of a divergent value
// (waveopt's front end has no ray tracing stages: glslang compiles it.)
// RUN: %glslang -V --target-env vulkan1.2 -S rgen %s -o %t.rgen.in.spv
// RUN: %waveopt %t.rgen.in.spv --target-env=vulkan1.2 --prereduce-atomics --remarks-missed=prereduce -o %t.rgen0.spv 2> %t.rgen0.remarks
// RUN: %FileCheck %s --check-prefix=RGEN0 < %t.rgen0.remarks
// RGEN0: missed StageNotPromised in main{{( (at|near) [^:]+)?}}: the function runs in the raytracing stage
// RUN: %waveopt %t.rgen.in.spv --target-env=vulkan1.2 --prereduce-atomics=stages=raytracing --remarks=prereduce -o %t.rgen.spv 2> %t.rgen.remarks
// RUN: %spirv-val --target-env vulkan1.2 %t.rgen.spv
// RUN: %FileCheck %s --check-prefix=RGEN < %t.rgen.remarks
// RGEN: applied UniformAddressDivergentValue in main{{( (at|near) [^:]+)?}}: one atomic per subgroup: OpAtomicIAdd of a divergent value
#version 460
#ifdef MESH
#extension GL_EXT_mesh_shader : require
layout(local_size_x = 32) in;
layout(triangles, max_vertices = 3, max_primitives = 1) out;
#else
#extension GL_EXT_ray_tracing : require
#endif
layout(set = 0, binding = 0) buffer Data { uint total; };
void main() {
#ifdef MESH
  atomicAdd(total, gl_LocalInvocationIndex);
  SetMeshOutputsEXT(0, 0);
#else
  atomicAdd(total, gl_LaunchIDEXT.x);
#endif
}
