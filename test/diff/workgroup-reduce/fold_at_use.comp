// Where the slots are folded: two trees (a min and a max over two arrays)
// whose results only some invocations use, compared with the original at
// subgroup sizes 4, 8, 16 (lavapipe) and 32, 64 (the simulator). The pass
// folds each tree's slots where its result is used, in one loop for both
// trees, drops the first tree's slot barrier and stores both slots under
// one election (tile_minmax_tree's hand-written kernel).
//   WX, WY     the workgroup (WX * WY invocations; 200: partial subgroups)
//   COND       which invocations use the results (default: tid == 0u;
//              also the last one, x == 0 && y == 0, all(equal(id, 0)),
//              !any(notEqual(id.xy, 0)): the same decision)
//   REUSE      the first array is written again after the trees (behind
//              barriers): its fold must stay before that write
//   ALL        every invocation also uses the first tree's result before
//              the second tree (its fold stays after its barrier, and the
//              barrier stays: the slots are read there)
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce" 2>&1 | %FileCheck %s --check-prefix=JOIN
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce -DWX=16 -DWY=6" --waverun="-DWX=16 -DWY=6" 2>&1 | %FileCheck %s --check-prefix=JOIN
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce -DWX=200 -DWY=1" --waverun="-DWX=200 -DWY=1" 2>&1 | %FileCheck %s --check-prefix=JOIN
// RUN: %diff %s --waveopt-flags="-O --assume-driver=radv --remarks=workgroup-reduce -DWX=200 -DWY=1" --waverun="-DWX=200 -DWY=1" --widths= --sim-widths=32,64 2>&1 | %FileCheck %s --check-prefix=JOIN
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce '-DCOND=tid==WX*WY-1u'" --waverun="'-DCOND=tid==WX*WY-1u'" 2>&1 | %FileCheck %s --check-prefix=JOIN
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce '-DCOND=gl_LocalInvocationID.x==0u&&gl_LocalInvocationID.y==0u'" --waverun="'-DCOND=gl_LocalInvocationID.x==0u&&gl_LocalInvocationID.y==0u'" 2>&1 | %FileCheck %s --check-prefix=JOIN
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce '-DCOND=all(equal(gl_LocalInvocationID,uvec3(0u)))'" --waverun="'-DCOND=all(equal(gl_LocalInvocationID,uvec3(0u)))'" 2>&1 | %FileCheck %s --check-prefix=JOIN
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce '-DCOND=!any(notEqual(gl_LocalInvocationID.xy,uvec2(0u)))'" --waverun="'-DCOND=!any(notEqual(gl_LocalInvocationID.xy,uvec2(0u)))'" 2>&1 | %FileCheck %s --check-prefix=JOIN
// RUN: %diff %s --spirv-opt-O --waveopt-flags="--workgroup-reduce --remarks=workgroup-reduce" 2>&1 | %FileCheck %s --check-prefix=JOIN
// Five invocations, or a row of the 2-D workgroup, use the results: the
// fold is there, by rank (no loop to join).
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce '-DCOND=tid<5u'" --waverun="'-DCOND=tid<5u'" 2>&1 | %FileCheck %s --check-prefix=RANK5
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce '-DCOND=gl_LocalInvocationID.y==1u'" --waverun="'-DCOND=gl_LocalInvocationID.y==1u'" 2>&1 | %FileCheck %s --check-prefix=ROW
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce -DREUSE" --waverun="-DREUSE" 2>&1 | %FileCheck %s --check-prefix=REUSE
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce -DALL" --waverun="-DALL" 2>&1 | %FileCheck %s --check-prefix=ALL
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=workgroup-reduce --pass-params=workgroup-reduce:no-sink" 2>&1 | %FileCheck %s --check-prefix=NOSINK
// JOIN: applied ReducedTree in main{{( (at|near) [^:]+)?}}: {{.*}} over smin {{.*}}; the slots are folded where the result is used (1 invocation(s) reach it)
// JOIN: applied ReducedTree in main{{( (at|near) [^:]+)?}}: {{.*}} over smax {{.*}}; the slots are folded where the result is used (1 invocation(s) reach it, in the loop that folds an earlier tree's slots)
// JOIN: applied MergedBarrier in main{{( (at|near) [^:]+)?}}: the barrier after the slots of the tree over smin
// JOIN: PASS: equal at sizes
// RANK5: over smin {{.*}} (5 invocation(s) reach it)
// RANK5: over smax {{.*}} (5 invocation(s) reach it)
// RANK5: applied MergedBarrier
// RANK5: PASS: equal at sizes 4,8,16,32,64
// ROW: over smin {{.*}} (16 invocation(s) reach it)
// ROW: PASS: equal at sizes 4,8,16,32,64
// REUSE: applied ReducedTree in main{{( (at|near) [^:]+)?}}: {{.*}} over smin {{.*}} becomes one shared slot per subgroup and one barrier{{$}}
// REUSE: over smax {{.*}} (1 invocation(s) reach it)
// REUSE-NOT: MergedBarrier
// REUSE: PASS: equal at sizes 4,8,16,32,64
// ALL: applied ReducedTree in main{{( (at|near) [^:]+)?}}: {{.*}} over smin {{.*}} becomes one shared slot per subgroup and one barrier{{$}}
// ALL-NOT: MergedBarrier
// ALL: PASS: equal at sizes 4,8,16,32,64
// NOSINK-NOT: folded where
// NOSINK-NOT: MergedBarrier
// NOSINK: PASS: equal at sizes 4,8,16,32,64
#version 450
#ifndef WX
#define WX 16
#endif
#ifndef WY
#define WY 16
#endif
#ifndef COND
#define COND tid == 0u
#endif
#define WG (WX * WY)
#if WG > 128
#define NP2 256
#elif WG > 64
#define NP2 128
#else
#define NP2 64
#endif
layout(local_size_x = WX, local_size_y = WY) in;
layout(set = 0, binding = 0) readonly buffer In { uint data[]; };
layout(set = 0, binding = 1) writeonly buffer Out { uint result[]; };
shared uint smin[WG];
shared uint smax[WG];

void main() {
  uint tid = gl_LocalInvocationIndex;
  uint g = gl_WorkGroupID.x * WG + tid;
  uint v = data[g] % 100000u;
  smin[tid] = v;
  barrier();
  for (uint s = NP2 / 2u; s > 0u; s >>= 1) {
    if (tid < s && tid + s < WG) smin[tid] = min(smin[tid], smin[tid + s]);
    barrier();
  }
  uint lo = smin[0];
#ifdef ALL
  result[g] = lo + tid;
#endif
  smax[tid] = v;
  barrier();
  for (uint s = NP2 / 2u; s > 0u; s >>= 1) {
    if (tid < s && tid + s < WG) smax[tid] = max(smax[tid], smax[tid + s]);
    barrier();
  }
#ifdef REUSE
  barrier();
  smin[tid] = v ^ 0x5555u;
  barrier();
  if (tid == 7u) v = smin[3];
#endif
  if (COND) {
    result[g] = lo * 3u + smax[0] * 5u + v;
  }
}
