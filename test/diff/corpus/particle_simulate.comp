// Models: the simulation pass of a GPU particle system: one invocation per
// entry of the alive list, semi-implicit Euler sub-steps with drag and a
// floor plane, expired particles pushed onto the dead list (index returned
// by the counter atomic) and the alive total decremented (uint add of -1),
// survivors compacted into the next frame's alive list.
// Exercises: two append atomics with the returned slot used on either side
// of a divergent branch, a uint decrement (add 0xFFFFFFFF; GLSL has no
// atomicSub) of a uniform value, a collision counter inside a sub-step loop
// (in a called function) under a divergent condition, the loop count from
// push constants, early return on gid >= count read from a storage buffer,
// workgroups of 50 (partial subgroups at every size). Appended lists are
// compared as multisets of their first count entries; the particle array,
// updated in place, exactly.
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=.* --remarks-missed=.*" 2>&1 | %FileCheck %s
// CHECK: morton-remap: missed LinearIndex in main: the 50x1x1 workgroup
// CHECK-DAG: :50:{{.*}} applied UniformAddressUniformValue in killParticle{{.*}}: one atomic per subgroup: OpAtomicIAdd of a uniform value; each lane's returned value is rebuilt
// CHECK-DAG: :52:{{.*}} applied UniformAddressUniformValue in killParticle{{.*}}: one atomic per subgroup: OpAtomicIAdd of a uniform value; the returned value is unused
// CHECK-DAG: :53:{{.*}} applied UniformAddressUniformValue in killParticle{{.*}}: one atomic per subgroup: OpAtomicIAdd of a uniform value; the returned value is unused
// CHECK-DAG: :65:{{.*}} applied UniformAddressUniformValue in main: one atomic per subgroup: OpAtomicIAdd of a uniform value; the returned value is unused
// CHECK-DAG: :89:{{.*}} applied UniformAddressUniformValue in main: one atomic per subgroup: OpAtomicIAdd of a uniform value; each lane's returned value is rebuilt
// CHECK: PASS: equal at sizes 4,8,16,32,64
#version 450
layout(local_size_x = 50) in;

struct Particle {
  vec4 positionLife;   // xyz position, w remaining life (s)
  vec4 velocityAge;    // xyz velocity, w age (s)
};

layout(set = 0, binding = 0, std430) buffer ParticlePool { Particle particles[]; };
layout(set = 0, binding = 1, std430) readonly buffer AliveIn { uint count; uint indices[]; } aliveIn;
layout(set = 0, binding = 2, std430) buffer AliveOut { uint count; uint indices[]; } aliveOut;
layout(set = 0, binding = 3, std430) buffer DeadList { uint deadCount; uint deadIndices[]; };
layout(set = 0, binding = 4, std430) buffer SimStats {
  uint aliveTotal;
  uint floorHits;
  uint expired;
} stats;

layout(set = 0, binding = 5, std140) uniform SimParams {
  vec4 gravityDt;      // xyz gravity, w frame time
  vec4 floorPlane;     // xyz normal, w offset
  float drag;
  float restitution;
} sim;

layout(push_constant) uniform SimPush { uint substeps; } pc;

void killParticle(uint index) {
  uint slot = atomicAdd(deadCount, 1u);
  deadIndices[slot] = index;
  atomicAdd(stats.aliveTotal, 0xFFFFFFFFu);   // GLSL has no atomicSub: add -1
  atomicAdd(stats.expired, 1u);
}

void integrate(inout Particle p, float h) {
  vec3 v = p.velocityAge.xyz;
  v += sim.gravityDt.xyz * h;
  v *= max(1.0 - sim.drag * h, 0.0);
  vec3 x = p.positionLife.xyz + v * h;
  float d = dot(sim.floorPlane.xyz, x) + sim.floorPlane.w;
  if (d < 0.0) {
    x -= sim.floorPlane.xyz * d;                      // push back onto the floor
    v = reflect(v, sim.floorPlane.xyz) * sim.restitution;
    atomicAdd(stats.floorHits, 1u);
  }
  p.positionLife.xyz = x;
  p.velocityAge.xyz = v;
}

void main() {
  uint gid = gl_GlobalInvocationID.x;
  if (gid >= aliveIn.count) return;

  uint index = aliveIn.indices[gid];
  Particle p = particles[index];
  float dt = sim.gravityDt.w;
  p.positionLife.w -= dt;
  p.velocityAge.w += dt;
  if (p.positionLife.w <= 0.0) {
    killParticle(index);
    return;
  }

  float h = dt / float(max(pc.substeps, 1u));
  for (uint s = 0u; s < pc.substeps; ++s) integrate(p, h);
  particles[index] = p;

  uint slot = atomicAdd(aliveOut.count, 1u);
  aliveOut.indices[slot] = index;
}
