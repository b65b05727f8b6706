// Models: the emission pass of a GPU particle system with a dead-list
// allocator: each emission request pops a free particle index from the dead
// list (signed counter, atomicAdd(-1); a failed pop gives the slot back),
// initialises the particle from the emitter's parameters and a hash of the
// particle index, and appends the index to the alive list.
// Exercises: atomicAdd(int, -1) with the returned index used, the give-back
// atomicAdd(+1) and a dropped-request counter under the divergent
// pool-exhausted branch, an alive-list append with the slot used, early
// return on gid >= emitCount (push constants), workgroups of 30. 130
// requests for 100 free slots: the pool runs dry in the middle of a
// subgroup. Particles are seeded from their slot, so the particle array is
// order-independent (exact); the alive list is compared as a multiset of its
// first aliveCount entries.
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=.* --remarks-missed=.*" 2>&1 | %FileCheck %s
// CHECK: morton-remap: missed LinearIndex in main: the 30x1x1 workgroup
// CHECK: :80:{{.*}} applied UniformAddressUniformValue in main: one atomic per subgroup: OpAtomicIAdd of a uniform value; the returned value is unused
// CHECK: :92:{{.*}} applied UniformAddressUniformValue in main: one atomic per subgroup: OpAtomicIAdd of a uniform value; each lane's returned value is rebuilt
// CHECK: :94:{{.*}} applied UniformAddressUniformValue in main: one atomic per subgroup: OpAtomicIAdd of a uniform value; the returned value is unused
// CHECK: :65:{{.*}} applied UniformAddressUniformValue in allocateParticle{{.*}}: one atomic per subgroup: OpAtomicIAdd of a uniform value; each lane's returned value is rebuilt
// CHECK: :67:{{.*}} applied UniformAddressUniformValue in allocateParticle{{.*}}: one atomic per subgroup: OpAtomicIAdd of a uniform value; the returned value is unused
// CHECK: PASS: equal at sizes 4,8,16,32,64
#version 450
layout(local_size_x = 30) in;

struct Particle {
  vec4 positionLife;   // xyz position, w remaining life (s)
  vec4 velocityAge;    // xyz velocity, w age (s)
};

layout(set = 0, binding = 0, std430) buffer ParticlePool { Particle particles[]; };
layout(set = 0, binding = 1, std430) buffer DeadList {
  int deadCount;
  uint deadIndices[];
};
layout(set = 0, binding = 2, std430) buffer AliveList {
  uint aliveCount;
  uint aliveIndices[];
};
layout(set = 0, binding = 3, std430) buffer EmitStats {
  uint emitted;
  uint dropped;
} stats;

layout(push_constant) uniform EmitterParams {
  vec4 position;       // xyz, w: spawn radius
  vec4 velocity;       // xyz, w: speed jitter
  uint emitCount;
  float lifetime;
} emitter;

uint hashU32(uint x) {
  x ^= x >> 16; x *= 0x7feb352du;
  x ^= x >> 15; x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

float unorm(uint h) { return float(h >> 8) * (1.0 / 16777216.0); }

vec3 randomInUnitCube(uint seed) {
  return vec3(unorm(hashU32(seed)), unorm(hashU32(seed + 1u)), unorm(hashU32(seed + 2u))) * 2.0 - 1.0;
}

bool allocateParticle(out uint particleIndex) {
  int before = atomicAdd(deadCount, -1);
  if (before <= 0) {
    atomicAdd(deadCount, 1);          // pool exhausted: undo the pop
    return false;
  }
  particleIndex = deadIndices[before - 1];
  return true;
}

void main() {
  uint gid = gl_GlobalInvocationID.x;
  if (gid >= emitter.emitCount) return;

  uint index;
  if (!allocateParticle(index)) {
    atomicAdd(stats.dropped, 1u);
    return;
  }

  uint seed = hashU32(index * 3u + 0x9e3779b9u);
  Particle p;
  p.positionLife.xyz = emitter.position.xyz + randomInUnitCube(seed) * emitter.position.w;
  p.positionLife.w = emitter.lifetime * (0.5 + 0.5 * unorm(hashU32(seed ^ 0xabcdu)));
  p.velocityAge.xyz = emitter.velocity.xyz + randomInUnitCube(seed + 7u) * emitter.velocity.w;
  p.velocityAge.w = 0.0;
  particles[index] = p;

  uint slot = atomicAdd(aliveCount, 1u);
  aliveIndices[slot] = index;
  atomicAdd(stats.emitted, 1u);
}
