// Shaders that depend on which invocations share a subgroup or quad are
// left alone (output == input), each with its remark; gl_SubgroupSize and
// gl_NumSubgroups do not depend on membership and do not stop the pass.
// RUN: %waveopt %s -DCASE=1 -o %t1.orig.spv
// RUN: %waveopt %s -DCASE=1 --morton-remap -o %t1.spv --remarks-missed=morton 2> %t1.remarks
// RUN: cmp %t1.orig.spv %t1.spv
// RUN: %FileCheck %s --check-prefix=ARITH < %t1.remarks
// RUN: %waveopt %s -DCASE=2 -o %t2.orig.spv
// RUN: %waveopt %s -DCASE=2 --morton-remap -o %t2.spv --remarks-missed=morton 2> %t2.remarks
// RUN: cmp %t2.orig.spv %t2.spv
// RUN: %FileCheck %s --check-prefix=QUAD < %t2.remarks
// RUN: %waveopt %s -DCASE=3 -o %t3.orig.spv
// RUN: %waveopt %s -DCASE=3 --morton-remap -o %t3.spv --remarks-missed=morton 2> %t3.remarks
// RUN: cmp %t3.orig.spv %t3.spv
// RUN: %FileCheck %s --check-prefix=LANE < %t3.remarks
// RUN: %waveopt %s -DCASE=4 -o %t4.orig.spv
// RUN: %waveopt %s -DCASE=4 --morton-remap -o %t4.spv --remarks-missed=morton 2> %t4.remarks
// RUN: cmp %t4.orig.spv %t4.spv
// RUN: %FileCheck %s --check-prefix=SGID < %t4.remarks
// RUN: %waveopt %s -DCASE=5 -o %t5.orig.spv
// RUN: %waveopt %s -DCASE=5 --morton-remap -o %t5.spv --remarks-missed=morton 2> %t5.remarks
// RUN: cmp %t5.orig.spv %t5.spv
// RUN: %FileCheck %s --check-prefix=BARRIER < %t5.remarks
// RUN: %waveopt %s -DCASE=6 --morton-remap -o %t6.spv --remarks=morton 2> %t6.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t6.spv
// RUN: %FileCheck %s --check-prefix=SIZE < %t6.remarks
// ARITH: missed UsesSubgroupOps in main: OpGroupNonUniformFAdd: the result depends on which invocations share a subgroup (or a quad); relabelling invocations would change it (--morton-remap=force overrides)
// QUAD: missed UsesSubgroupOps in main: OpGroupNonUniformQuadSwap: the result depends
// LANE: missed UsesSubgroupBuiltIn in main: the SubgroupLocalInvocationId built-in depends on which invocations share a subgroup
// SGID: missed UsesSubgroupBuiltIn in main: the SubgroupId built-in depends
// BARRIER: missed UsesSubgroupOps in main: OpControlBarrier at Subgroup scope
// SIZE: applied Remapped in main: 8x8x1 workgroup
#version 450
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_quad : require
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0, r32f) uniform image2D img;
void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  float v = imageLoad(img, p).r;
#if CASE == 1
  v = subgroupAdd(v);
#elif CASE == 2
  v = subgroupQuadSwapVertical(v);
#elif CASE == 3
  v += float(gl_SubgroupInvocationID);
#elif CASE == 4
  v += float(gl_SubgroupID);
#elif CASE == 5
  subgroupBarrier();
#elif CASE == 6
  v += float(gl_SubgroupSize + gl_NumSubgroups);
#endif
  imageStore(img, p, vec4(v));
}
