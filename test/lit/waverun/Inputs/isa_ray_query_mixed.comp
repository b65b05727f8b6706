// An acceleration structure and a storage buffer on one binding: isa would
// have to separate the kinds, and that renumbering has no acceleration
// structure kind.
#version 460
#extension GL_EXT_ray_query : require
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) uniform accelerationStructureEXT scene;
layout(set = 0, binding = 0) buffer Out { uint o[]; };
void main() {
  rayQueryEXT q;
  rayQueryInitializeEXT(q, scene, 0u, 0xFFu, vec3(0), 0.0, vec3(0, 0, 1), 1.0);
  o[0] = rayQueryProceedEXT(q) ? 1u : 0u;
}
