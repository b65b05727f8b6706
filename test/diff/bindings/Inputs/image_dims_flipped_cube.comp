// image_dims.comp sampling the cube map in the opposite direction.
#version 450
layout(local_size_x = 4, local_size_y = 4, local_size_z = 2) in;
layout(set = 0, binding = 0) uniform sampler1DArray lines;
layout(set = 0, binding = 1) uniform sampler3D volume;
layout(set = 0, binding = 2) uniform samplerCube sky;
layout(set = 0, binding = 3) uniform samplerCubeArray probes;
layout(set = 0, binding = 4, rgba32f) uniform writeonly image2DArray layers;
layout(set = 0, binding = 5, r32f) uniform writeonly image3D density;
layout(set = 0, binding = 6, r32ui) uniform uimage3D tally;
void main() {
  ivec3 p = ivec3(gl_GlobalInvocationID);
  vec3 uvw = (vec3(p) + 0.5) / vec3(8.0, 8.0, 4.0);
  vec3 dir = uvw * 2.0 - 1.0;
  vec4 a = textureLod(lines, vec2(uvw.x, float(p.z)), 0.0);
  vec4 b = textureLod(volume, uvw, 0.0);
  vec4 c = textureLod(sky, -dir, 0.0);
  vec4 d = textureLod(probes, vec4(dir.zxy, float(p.y % 2)), 0.0);
  imageStore(layers, p, a + c);
  imageStore(density, p, vec4(b.x * d.y + imageSize(layers).z));
  if (b.y > 0.5) imageAtomicAdd(tally, ivec3(gl_WorkGroupID), 1u);
}
