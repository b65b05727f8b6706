// Lanes demoted mid-shader become helpers: their later atomics have no
// effect, so the pass must keep them out with OpIsHelperInvocationEXT (the
// built-in is not exact after a demote). A 16-bin histogram (case C, lanes
// matched by ballots) and a divergent max (case B), returned values kept.
// RUN: %diff %s --waveopt-flags="-S frag --prereduce-atomics --remarks=prereduce" 2>&1 | %FileCheck %s
// CHECK: note: demote_bins.frag is a fragment shader: the wave simulator runs compute shaders only, so its sizes 32,64 are skipped
// CHECK: applied SmallBinSet in main: {{.*}}OpAtomicIAdd of a uniform value; each lane's returned value is rebuilt; helper invocations are kept out
// CHECK: applied UniformAddressDivergentValue in main: one atomic per subgroup: OpAtomicUMax of a divergent value; each lane's returned value is rebuilt; helper invocations are kept out
// CHECK: [sg=4] equal
// CHECK: [sg=8] equal
// CHECK: [sg=16] equal
// CHECK: PASS: equal at sizes 4,8,16
#version 450
#extension GL_EXT_demote_to_helper_invocation : require
layout(set = 0, binding = 0) readonly buffer In { uint noise[]; };
layout(set = 0, binding = 1) buffer Out {
  uint bins[16]; uint highest; uint pad[15]; uint seen[];
};
layout(location = 0) out vec4 color;
void main() {
  uvec2 p = uvec2(gl_FragCoord.xy);
  uint id = p.y * 37u + p.x;
  uint n = noise[id];
  if (n % 3u == 0u) demote;
  uint before = atomicAdd(bins[n & 15u], 1u);
  uint top = atomicMax(highest, n >> 4);
  seen[2u * id] = before;
  seen[2u * id + 1u] = top;
  color = vec4(dFdx(float(n)));
}
