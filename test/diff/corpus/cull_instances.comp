// Models: GPU-driven rendering, instance culling pass. One invocation per
// instance: bounding sphere against the six frustum planes, distance-based
// LOD pick, survivors appended to a compacted visible-instance list whose
// length is the instanceCount of an indexed indirect draw command; per-LOD
// and culled statistics counters.
// Exercises: atomic append whose returned slot indexes the output (uniform
// address, uniform value, under a divergent branch), a small-bin counter
// (LOD index bounded by min(.., 3)), a counter on the other side of the
// branch, early return on gid >= count from push constants, workgroups of
// 48 (partial subgroups at 32 and 64). The append order across subgroups is
// not defined, so the list is compared as a multiset of the first
// cmd.instanceCount elements.
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=.* --remarks-missed=.*" 2>&1 | %FileCheck %s
// CHECK: morton-remap: missed LinearIndex in main: the 48x1x1 workgroup
// CHECK: batch-uniform-loads: missed LoopTripCountDivergent in sphereInFrustum
// CHECK: :89:{{.*}} applied UniformAddressUniformValue in main: one atomic per subgroup: OpAtomicIAdd of a uniform value; each lane's returned value is rebuilt
// CHECK: :92:{{.*}} applied SmallBinSet in main: one atomic per distinct address per subgroup (the index takes at most 4 values; lanes sharing it found by 2 ballot(s)): OpAtomicIAdd of a uniform value; the returned value is unused
// CHECK: :94:{{.*}} applied UniformAddressUniformValue in main: one atomic per subgroup: OpAtomicIAdd of a uniform value; the returned value is unused
// CHECK: PASS: equal at sizes 4,8,16,32,64
#version 450
layout(local_size_x = 48) in;

struct InstanceData {
  vec4 sphere;    // xyz: world-space center, w: radius
  vec4 params;    // x: lod bias, y: fade (< 0: hidden), zw: unused
};

struct DrawIndexedIndirectCommand {
  uint indexCount;
  uint instanceCount;
  uint firstIndex;
  int  vertexOffset;
  uint firstInstance;
};

layout(set = 0, binding = 0, std140) uniform Camera {
  vec4 frustumPlanes[6];
  vec4 cameraPos;
} camera;

layout(set = 0, binding = 1, std430) readonly buffer Instances {
  InstanceData instances[];
};

layout(set = 0, binding = 2, std430) buffer DrawArgs {
  DrawIndexedIndirectCommand cmd;
  uint lodCounts[4];
  uint culledCount;
} draw;

layout(set = 0, binding = 3, std430) writeonly buffer VisibleList {
  uint visibleIds[];
};

layout(push_constant) uniform CullPush {
  uint instanceCount;
  uint maxVisible;
  float lodStep;
} pc;

const uint LOD_COUNT = 4u;

bool sphereInFrustum(vec3 center, float radius) {
  for (int i = 0; i < 6; ++i) {
    vec4 plane = camera.frustumPlanes[i];
    float len = length(plane.xyz);
    if (len < 1e-4) continue;               // degenerate plane: ignore
    if (dot(plane.xyz, center) / len + plane.w < -radius) return false;
  }
  return true;
}

uint selectLod(vec3 center, float bias) {
  float dist = distance(center, camera.cameraPos.xyz) + bias;
  uint lod = uint(max(dist, 0.0) / pc.lodStep);
  return min(lod, LOD_COUNT - 1u);
}

void main() {
  uint instanceId = gl_GlobalInvocationID.x;
  if (instanceId >= pc.instanceCount) return;

  InstanceData inst = instances[instanceId];
  float radius = abs(inst.sphere.w) * 0.5;
  bool visible = inst.params.y >= -0.75 && sphereInFrustum(inst.sphere.xyz, radius);

  if (visible) {
    uint lod = selectLod(inst.sphere.xyz, inst.params.x * 0.25);
    uint slot = atomicAdd(draw.cmd.instanceCount, 1u);
    if (slot < pc.maxVisible)
      visibleIds[slot] = (lod << 24) | instanceId;
    atomicAdd(draw.lodCounts[lod], 1u);
  } else {
    atomicAdd(draw.culledCount, 1u);
  }
}
