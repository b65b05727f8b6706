// Models: a GPU skinning/morphing compute pass of a character renderer (runs
// before the draw, writes the deformed vertex stream). Per vertex: apply the
// active blend shapes (morph-target weights packed 4 per vec4 in a UBO, the
// target count from push constants, zero weights skipped), then linear blend
// skinning with 4 joints packed 8 bits each and unorm8 weights.
// Exercises: batch-uniform-loads on the morph loop (the weight load is
// uniform, indexed by the loop with a dynamic vector component; the delta
// loads are per vertex), and its refusal on the joint loop (constant trip
// count 4, the bone matrix address depends on the vertex's joint:
// DivergentAddress). 1-D workgroups of 48 over 200 vertices: the last
// workgroup has 8 live vertices, the rest return early.
// With -DWEIGHT_ACCESSOR the weight is fetched through a helper function
// called in the loop (morphWeight(t)): -O inlines small functions called in
// loops first, so the loop is batched all the same.
// --no-check-sim: lavapipe and the wave simulator already disagree on the
// original module (matrix x vector products round differently: lavapipe
// contracts them to fma, up to 256 ulps apart near zero); original vs
// rewrite is still compared exactly on both.
// RUN: %diff %s --no-check-sim --waveopt-flags="-O --target=none --remarks=.* --remarks-missed=.*" 2>&1 | %FileCheck %s
// RUN: %diff %s --no-check-sim --waveopt-flags="-O --target=none --remarks=.* --remarks-missed=.* -DWEIGHT_ACCESSOR" --waverun="-DWEIGHT_ACCESSOR" 2>&1 | %FileCheck %s --check-prefix=ACCESSOR
// CHECK: morton-remap: missed LinearIndex in main: the 48x1x1 workgroup
// CHECK-DAG: batch-uniform-loads: applied BatchedLoads in applyMorphTargets(u1;vf3;vf3;: 1 uniform load(s) per iteration (1 shuffled part(s))
// CHECK-DAG: batch-uniform-loads: missed DivergentAddress in main: the address differs between lanes
// CHECK: PASS: equal at sizes 4,8,16,32,64
// ACCESSOR: morton-remap: missed LinearIndex
// ACCESSOR-DAG: batch-uniform-loads: applied BatchedLoads in applyMorphTargets(u1;vf3;vf3;: 1 uniform load(s) per iteration (1 shuffled part(s))
// ACCESSOR-DAG: batch-uniform-loads: missed DivergentAddress in main
// ACCESSOR: PASS: equal at sizes 4,8,16,32,64
#version 450
layout(local_size_x = 48) in;

layout(push_constant) uniform SkinParams {
  uint vertexCount;
  uint morphTargetCount;
  uint outputStride;     // floats per output vertex
  float morphEpsilon;
} pc;

layout(set = 0, binding = 0, std140) uniform MorphWeights { vec4 packedWeights[16]; } morph;
layout(set = 0, binding = 1, std140) uniform Skeleton { mat4 boneMatrices[64]; } skeleton;

struct SkinnedVertexIn {
  float px, py, pz;
  float nx, ny, nz;
  uint joints;        // 4 x uint8
  uint jointWeights;  // 4 x unorm8
};

layout(set = 0, binding = 2, std430) readonly buffer BaseVertices { SkinnedVertexIn baseVertices[]; };
// [target][vertex]: position delta, normal delta
layout(set = 0, binding = 3, std430) readonly buffer MorphDeltas { vec4 morphDeltas[]; };
layout(set = 0, binding = 4, std430) writeonly buffer DeformedVertices { float deformed[]; };

float morphWeight(uint target) {
  return morph.packedWeights[target >> 2][target & 3u];
}

void applyMorphTargets(uint vertex, inout vec3 position, inout vec3 normal) {
  for (uint t = 0u; t < pc.morphTargetCount; ++t) {
#ifdef WEIGHT_ACCESSOR
    float w = morphWeight(t);
#else
    float w = morph.packedWeights[t >> 2][t & 3u];
#endif
    if (abs(w) <= pc.morphEpsilon) {
      continue;
    }
    uint base = (t * pc.vertexCount + vertex) * 2u;
    position += w * morphDeltas[base].xyz;
    normal += w * morphDeltas[base + 1u].xyz;
  }
}

void main() {
  uint v = gl_GlobalInvocationID.x;
  if (v >= pc.vertexCount) {
    return;
  }
  SkinnedVertexIn src = baseVertices[v];
  vec3 position = vec3(src.px, src.py, src.pz);
  vec3 normal = vec3(src.nx, src.ny, src.nz);

  applyMorphTargets(v, position, normal);

  // Linear blend skinning: 4 influences, weights renormalised.
  vec4 jointWeights = unpackUnorm4x8(src.jointWeights);
  float total = max(dot(jointWeights, vec4(1.0)), 1.0 / 255.0);
  mat4 skin = mat4(0.0);
  for (int k = 0; k < 4; ++k) {
    float w = jointWeights[k] / total;
    if (w == 0.0) {
      continue;
    }
    uint joint = (src.joints >> (8 * k)) & 63u;
    skin += w * skeleton.boneMatrices[joint];
  }
  vec3 outPos = (skin * vec4(position, 1.0)).xyz;
  vec3 outNrm = mat3(skin) * normal;

  uint o = v * pc.outputStride;
  deformed[o + 0u] = outPos.x;
  deformed[o + 1u] = outPos.y;
  deformed[o + 2u] = outPos.z;
  deformed[o + 3u] = outNrm.x;
  deformed[o + 4u] = outNrm.y;
  deformed[o + 5u] = outNrm.z;
}
