// waverun isa: one ray query per invocation against the acceleration
// structure at binding 0; the hit distance (or -1) goes to a buffer.
#version 460
#extension GL_EXT_ray_query : require
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) uniform accelerationStructureEXT scene;
layout(set = 0, binding = 1) writeonly buffer Out { float t[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  vec3 origin = vec3(float(i & 15u), float(i >> 4), -1.0);
  rayQueryEXT q;
  rayQueryInitializeEXT(q, scene, gl_RayFlagsOpaqueEXT, 0xFFu, origin, 0.0, vec3(0, 0, 1), 100.0);
  while (rayQueryProceedEXT(q)) {
  }
  bool hit = rayQueryGetIntersectionTypeEXT(q, true) != gl_RayQueryCommittedIntersectionNoneEXT;
  t[i] = hit ? rayQueryGetIntersectionTEXT(q, true) : -1.0;
}
