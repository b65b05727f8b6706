// Models: a bounds pass over a point cloud / vertex buffer (as used to build
// meshlet culling data or fit shadow cascades): one workgroup per 72-point
// cluster, every point transformed to world space, non-finite points
// rejected; the cluster's AABB (both corners as atomicMax, the min corner
// stored inverted so that a zero-cleared buffer is the identity) and the
// scene AABB and centroid reduced straight into global buffers: floats
// encoded as order-preserving uints for atomicMin/atomicMax, the centroid
// as a signed fixed-point sum.
// Exercises: uint atomicMin/atomicMax of divergent values at uniform
// addresses (global, and per workgroup through gl_WorkGroupID) inside a
// constant 3-iteration loop, signed atomicAdd of divergent (negative and
// positive) values, counters on both sides of a divergent rejection test,
// early return when gid >= pointCount (push constant), workgroups of 72
// (partial subgroups at 16, 32 and 64).
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=.* --remarks-missed=.*" 2>&1 | %FileCheck %s
// CHECK: morton-remap: missed LinearIndex in main: the 72x1x1 workgroup
// CHECK: :70:{{.*}} applied UniformAddressUniformValue in main: one atomic per subgroup: OpAtomicIAdd of a uniform value; the returned value is unused
// CHECK: :78:{{.*}} applied UniformAddressDivergentValue in main: one atomic per subgroup: OpAtomicUMax of a divergent value; the returned value is unused
// CHECK: :79:{{.*}} applied UniformAddressDivergentValue in main: one atomic per subgroup: OpAtomicUMax of a divergent value; the returned value is unused
// CHECK: :80:{{.*}} applied UniformAddressDivergentValue in main: one atomic per subgroup: OpAtomicUMin of a divergent value; the returned value is unused
// CHECK: :81:{{.*}} applied UniformAddressDivergentValue in main: one atomic per subgroup: OpAtomicUMax of a divergent value; the returned value is unused
// CHECK: :82:{{.*}} applied UniformAddressDivergentValue in main: one atomic per subgroup: OpAtomicIAdd of a divergent value; the returned value is unused
// CHECK: :84:{{.*}} applied UniformAddressUniformValue in main: one atomic per subgroup: OpAtomicIAdd of a uniform value; the returned value is unused
// CHECK: PASS: equal at sizes 4,8,16,32,64
#version 450
layout(local_size_x = 72) in;

layout(set = 0, binding = 0, std430) readonly buffer Points { vec4 points[]; };

layout(set = 0, binding = 1, std140) uniform Transform {
  mat4 objectToWorld;
};

layout(set = 0, binding = 2, std430) buffer Bounds {
  uint minKey[3];
  uint maxKey[3];
  int centroidFixed[3];
  uint acceptedCount;
  uint rejectedCount;
} bounds;

struct ClusterBounds {
  uint invMinKey[3];       // ~key of the min corner
  uint maxKey[3];
};
layout(set = 0, binding = 3, std430) buffer Clusters { ClusterBounds clusters[]; };

layout(push_constant) uniform BoundsPush {
  uint pointCount;
  float fixedPointScale;   // centroid sum resolution
} pc;

// Maps float ordering onto uint ordering: negative floats flip all bits,
// positive floats set the sign bit.
uint floatToOrderedUint(float f) {
  uint u = floatBitsToUint(f);
  return (u & 0x80000000u) != 0u ? ~u : (u | 0x80000000u);
}

bool isFinite(vec3 v) {
  return !any(isnan(v)) && !any(isinf(v));
}

void main() {
  uint gid = gl_GlobalInvocationID.x;
  if (gid >= pc.pointCount) return;

  vec4 local = vec4(points[gid].xyz, 1.0);
  if (!isFinite(local.xyz)) {
    atomicAdd(bounds.rejectedCount, 1u);
    return;
  }
  vec3 world = (objectToWorld * local).xyz;

  uint cluster = gl_WorkGroupID.x;
  for (int axis = 0; axis < 3; ++axis) {
    uint key = floatToOrderedUint(world[axis]);
    atomicMax(clusters[cluster].invMinKey[axis], ~key);
    atomicMax(clusters[cluster].maxKey[axis], key);
    atomicMin(bounds.minKey[axis], key);
    atomicMax(bounds.maxKey[axis], key);
    atomicAdd(bounds.centroidFixed[axis], int(round(world[axis] * pc.fixedPointScale)));
  }
  atomicAdd(bounds.acceptedCount, 1u);
}
