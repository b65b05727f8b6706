// A ray query needs GLSL 460: the GLSL is written at #version 460 (at 450
// SPIRV-Cross refuses: "RayQuery requires Vulkan GLSL 460") and compiles
// again; a kernel without one stays at 450.
// RUN: %waveopt %s --target-env=vulkan1.2 --emit=glsl -o %t.glsl
// RUN: %FileCheck %s < %t.glsl
// RUN: %glslang -V -S comp --target-env vulkan1.2 %t.glsl -o %t.spv
// RUN: %spirv-val --target-env vulkan1.2 %t.spv
// RUN: %waveopt %S/num_workgroups_hlsl.comp --emit=glsl -o %t.plain.glsl
// RUN: %FileCheck %s --check-prefix=PLAIN < %t.plain.glsl
// CHECK: #version 460
// CHECK: rayQueryEXT
// PLAIN: #version 450
#version 460
#extension GL_EXT_ray_query : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform accelerationStructureEXT tlas;
layout(set = 0, binding = 1) buffer Out { uint hit[]; };
void main() {
  rayQueryEXT q;
  rayQueryInitializeEXT(q, tlas, gl_RayFlagsOpaqueEXT, 0xFF, vec3(float(gl_GlobalInvocationID.x), 0, 0),
                        0.0, vec3(0, 0, 1), 100.0);
  while (rayQueryProceedEXT(q)) {
  }
  hit[gl_GlobalInvocationID.x] =
      rayQueryGetIntersectionTypeEXT(q, true) == gl_RayQueryCommittedIntersectionNoneEXT ? 0u : 1u;
}
