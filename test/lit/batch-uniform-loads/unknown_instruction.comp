// An instruction whose effect on memory waveopt does not know stops the
// loop: coopVecStoreNV (SPV_NV_cooperative_vector) writes the buffer the loop
// loads from, and batching w[i] ahead of it would read stale values. The
// refusal names the instruction; the output equals the input.
// RUN: %glslang -V --target-env vulkan1.3 %s -o %t.in.spv
// RUN: %waveopt -O %t.in.spv -o %t.spv --remarks-missed=batch 2> %t.remarks
// RUN: cmp %t.in.spv %t.spv
// RUN: %FileCheck %s < %t.remarks
// CHECK: missed UnknownInstruction in main{{( (at|near) [^:]+)?}}: the loop (or a function it calls) contains OpCooperativeVectorStoreNV, whose effect on memory waveopt does not know [loop %{{[0-9]+}}]
// The same loop with the store written as a plain store is refused for what
// it is.
// RUN: %glslang -V --target-env vulkan1.3 -DPLAIN %s -o %t.plain.spv
// RUN: %waveopt -O %t.plain.spv -o %t.plain.out.spv --remarks-missed=batch 2> %t.plain.remarks
// RUN: %FileCheck %s --check-prefix=PLAIN < %t.plain.remarks
// PLAIN: missed LoopWritesMemory in main
#version 450
#extension GL_NV_cooperative_vector : require
layout(local_size_x = 64) in;
layout(binding = 0) buffer Weights { float w[]; };
layout(binding = 1) buffer Out { float o[]; };
layout(push_constant) uniform P { uint n; };
void main() {
  float acc = 0.0;
  for (uint i = 0; i < n; ++i) {
    acc += w[i];
#ifdef PLAIN
    w[4 * i] = acc;
#else
    coopvecNV<float, 4> v;
    v[0] = acc; v[1] = acc; v[2] = acc; v[3] = acc;
    coopVecStoreNV(v, w, 16 * i);
#endif
  }
  o[gl_GlobalInvocationID.x] = acc;
}
