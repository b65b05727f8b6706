// --assume-driver=radv: 32-bit uniform-address atomics are left to the
// driver; a 64-bit counter is still pre-reduced, its lanes' ranks by
// OpGroupNonUniformIAdd ExclusiveScan of 1 (ACO's v_mbcnt) instead of a
// ballot's exclusive bit count. Workgroups of 100 (partial subgroups) and a
// divergent branch around the atomics (any set of active lanes).
// RUN: %diff %s --waveopt-flags="-O --assume-driver=radv --remarks=prereduce --remarks-missed=prereduce" 2>&1 | %FileCheck %s
// CHECK: missed DriverPreReduces in main
// CHECK: applied UniformAddressUniformValue in main: one atomic per subgroup: OpAtomicIAdd of a uniform value; each lane's returned value is rebuilt
// CHECK: PASS
// The same rank taken inclusively (off by one in every lane) is caught:
// RUN: %diff %s --against %S/Inputs/radv_profile_inclusive_rank.comp --expect=differ 2>&1 | %FileCheck %s --check-prefix=WRONG
// WRONG: PASS: the difference was caught
#version 450
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 100) in;
layout(set = 0, binding = 0) readonly buffer In { uint values[]; };
layout(set = 0, binding = 1) buffer Out { uint count; uint pad; uint64_t total; uint64_t seen[]; };
void main() {
  uint g = gl_GlobalInvocationID.x;
  if ((values[g] & 3u) != 1u) {
    uint slot = atomicAdd(count, 1u);
    uint64_t before = atomicAdd(total, 0x100000005ul);
    seen[g] = before + uint64_t(slot);
  }
}
