// workgroup-reduce on pair trees over a workgroup whose x size is a
// specialization constant, the arrays and the steps sized by the kernel's
// own `constant_id` of the same SpecId: rewritten for its default (64; the
// size's own constant, glslang's, defaults to 1), the original kept behind
// `size == 64 && BS == 64`, which the driver folds. The size is read from
// the built-in's composite (SPIRV-Cross's GLSL names it only as
// gl_WorkGroupSize.x; test/lit/robustness/reemit.test re-emits the diff
// suite's argmax_spec). (Run at every width and
// at another size: test/diff/workgroup-reduce/argmax_spec.comp.)
//
// CASE 1: the WorkgroupSize built-in's spec-constant composite (SPIR-V 1.3).
// RUN: %waveopt %s -O -DCASE=1 --target=none --remarks=workgroup-reduce -o %t1.spv 2>&1 | %FileCheck %s --check-prefix=FIRE
// RUN: %spirv-val --target-env vulkan1.1 %t1.spv
// RUN: %spirv-dis %t1.spv | %FileCheck %s --check-prefix=KEEP
// FIRE: applied ReducedPairTree in main: an arg-max pair tree over v and ix (6 steps, 7 barriers; ties go to the lowest index; elements from a uniform bound on take no part) becomes one shared slot per subgroup and one barrier; other workgroup sizes than constant 0 = 64 keep the original
// KEEP-DAG: OpDecorate %[[SIZE:[0-9]+]] SpecId 0
// KEEP-DAG: OpDecorate %BS SpecId 0
// KEEP-DAG: %gl_WorkGroupSize = OpSpecConstantComposite %v3uint %[[SIZE]] %uint_1 %uint_1
// KEEP-DAG: %[[X:[0-9]+]] = OpCompositeExtract %uint %gl_WorkGroupSize 0
// KEEP-DAG: OpIEqual %bool %[[X]] %uint_64
// KEEP-DAG: OpIEqual %bool %BS %uint_64
// KEEP: %[[FAST:[0-9]+]] = OpLogicalAnd %bool
// KEEP-NEXT: OpSelectionMerge
// KEEP-NEXT: OpBranchConditional %[[FAST]]
// KEEP: OpGroupNonUniformSMax %int %uint_3 Reduce
// KEEP: OpLoopMerge
//
// CASE 1 for SPIR-V 1.6: OpExecutionModeId LocalSizeId.
// RUN: %glslang -V --target-env vulkan1.3 -DCASE=1 %s -o %t6.in.spv
// RUN: %waveopt %t6.in.spv -O --target=none --remarks=workgroup-reduce -o %t6.spv 2>&1 | %FileCheck %s --check-prefix=FIRE6
// RUN: %spirv-val --target-env vulkan1.3 %t6.spv
// FIRE6: applied ReducedPairTree in main at OpControlBarrier 2 after %{{[0-9]+}}: an arg-max {{.*}}; other workgroup sizes than constant 0 = 64 keep the original
//
// Refused, the module unchanged: a y size given by a specialization
// constant (CASE 2), and a default whose half is no power of two (CASE 3,
// 96: as `local_size_x = 96` would be).
// RUN: %waveopt %s -O -DCASE=2 --remarks-missed=workgroup-reduce -o %t2.spv 2>&1 | %FileCheck %s --check-prefix=REFUSED
// RUN: %waveopt %s -O -DCASE=3 --remarks-missed=workgroup-reduce -o %t3.spv 2>&1 | %FileCheck %s --check-prefix=SHAPE
// RUN: for i in 2 3; do %spirv-dis %t$i.spv | %FileCheck %s --check-prefix=UNCHANGED; done
// REFUSED: missed UnknownWorkgroupSize in main: a pair tree needs a one-dimensional workgroup size, literal or one specialization constant of a default up to 1024 (layout(local_size_x = N) in, or local_size_x_id) [array v]
// SHAPE: missed UnknownBranch in main
// UNCHANGED-NOT: OpGroupNonUniform
#version 450
#if CASE == 2
layout(local_size_x = 64, local_size_y_id = 1) in;
const uint BS = 64;
#elif CASE == 3
layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint BS = 96;
#else
layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint BS = 64;
#endif
layout(push_constant) uniform Push { uint limit; } pc;
layout(set = 0, binding = 0) buffer In { uint data[]; };
layout(set = 0, binding = 1) writeonly buffer Out { uint result[]; };
shared int v[BS];
shared uint ix[BS];

void main() {
  uint t = gl_LocalInvocationID.x;
  uint g = gl_GlobalInvocationID.x;
  v[t] = int(data[g]);
  ix[t] = t;
  barrier();
  for (uint s = BS / 2u; s > 0u; s >>= 1) {
    if (t < s && t + s < pc.limit) {
      if (v[t] < v[t + s] || (v[t] == v[t + s] && ix[t + s] < ix[t])) {
        v[t] = v[t + s];
        ix[t] = ix[t + s];
      }
    }
    barrier();
  }
  if (t == 0u) result[gl_WorkGroupID.x] = ix[0];
}
