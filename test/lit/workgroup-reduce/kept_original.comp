// Two trees over one array with a specialization-constant size (a softmax:
// a max tree, a loop bounded by a push constant, a sum tree). Each rewrite
// keeps the original for other sizes; the kept steps of the second tree
// are no candidate of their own (behind the barrier that ends the first
// tree's readers, with the push-constant loop before them they used to be
// refused as UnknownBranch: a remark about a tree that was rewritten).
// RUN: %waveopt %s -O --target=nvidia --float-reassoc --remarks=workgroup-reduce --remarks-missed=workgroup-reduce -o %t.spv 2> %t.remarks
// RUN: %spirv-val --target-env vulkan1.1 %t.spv
// RUN: %FileCheck %s < %t.remarks
// CHECK: kept_original.comp:[[@LINE+16]]: remark: workgroup-reduce: applied ReducedTree in main: a float max tree over vals (10 steps, 11 barriers, 1 reader(s)) becomes one shared slot per subgroup and one barrier; other workgroup sizes than powers of two up to 1024 keep the original
// CHECK: kept_original.comp:[[@LINE+29]]: remark: workgroup-reduce: applied ReducedTree in main: a float add tree over vals (10 steps, 11 barriers, 1 reader(s)) becomes one shared slot per subgroup and one barrier; other workgroup sizes than powers of two up to 1024 keep the original
// CHECK-NOT: missed
#version 450
layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint BLOCK_SIZE = 64;
layout(push_constant) uniform P { uint n; } p;
layout(set = 0, binding = 0) buffer In { float src[]; };
layout(set = 0, binding = 1) buffer Out { float dst[]; };
shared float vals[BLOCK_SIZE];
void main() {
  uint tid = gl_LocalInvocationID.x;
  uint row = gl_WorkGroupID.x * p.n;
  float m = -1e30;
  for (uint c = tid; c < p.n; c += BLOCK_SIZE) m = max(m, src[row + c]);
  vals[tid] = m;
  barrier();
  for (uint s = BLOCK_SIZE / 2; s > 0; s >>= 1) {
    if (tid < s) vals[tid] = max(vals[tid], vals[tid + s]);
    barrier();
  }
  m = vals[0];
  barrier();
  float sum = 0.0;
  for (uint c = tid; c < p.n; c += BLOCK_SIZE) {
    float e = exp(src[row + c] - m);
    dst[row + c] = e;
    sum += e;
  }
  vals[tid] = sum;
  barrier();
  for (uint s = BLOCK_SIZE / 2; s > 0; s >>= 1) {
    if (tid < s) vals[tid] += vals[tid + s];
    barrier();
  }
  sum = vals[0];
  for (uint c = tid; c < p.n; c += BLOCK_SIZE) dst[row + c] /= sum;
}
