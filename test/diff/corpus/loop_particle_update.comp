// Models: the simulation step of a GPU particle system (one invocation per
// particle slot): age the particle, apply the emitter's force fields
// (attractor / wind / vortex, a list in a readonly SSBO with the count in
// push constants), kill it in any kill volume (early `return` inside that
// loop), and evaluate the size-over-life curve by a linear search through
// keyframes with a `break` at the segment found.
// Exercises: batch-uniform-loads on the force-field loop (struct of three
// vec4 and a uint, a branch on the field type), which the register rule
// refuses by default (RDNA2, `waverun isa`: VGPRs 24 -> 40 at wave64, 32 ->
// 48 at wave32, a quarter and a third of the waves lost) and which is run
// batched with max-live=64; and the refusal of the two loops whose lanes
// leave at different iterations (the divergent `return` of the kill-volume
// loop, the divergent `break` of the curve search): batching those would
// load elements past the iteration where some lane stopped.
// 1-D workgroups of 100 over 350 slots (the last workgroup has 50 live
// lanes, plus dead particles that return before any loop).
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=.* --remarks-missed=.*" 2>&1 | %FileCheck %s
// CHECK: morton-remap: missed LinearIndex in main: the 100x1x1 workgroup
// RUN: %diff %s --waveopt-flags="--inline-loop-callees --eliminate-dead-functions --scalar-replacement --convert-local-access-chains --eliminate-dead-code-aggressive --ssa-rewrite --batch-uniform-loads=max-live=64 --remarks=batch" 2>&1 | %FileCheck %s --check-prefix=FORCED
// CHECK-DAG: batch-uniform-loads: missed RegisterPressure in main: about 18 values per lane are live in the loop already (the kernel's busiest point: 24); with the batch (16)
// CHECK-DAG: batch-uniform-loads: missed LoopTripCountDivergent in main: lanes may leave the loop at different iterations
// CHECK-DAG: batch-uniform-loads: missed LoopTripCountDivergent in evaluateCurve(f1;: lanes may leave the loop at different iterations
// FORCED: batch-uniform-loads: applied BatchedLoads in main: 1 uniform load(s) per iteration (7 shuffled part(s))
// FORCED: PASS: equal at sizes 4,8,16,32,64
// CHECK: PASS: equal at sizes 4,8,16,32,64
#version 450
layout(local_size_x = 100) in;

struct Particle {
  vec4 positionAge;       // xyz, age in seconds
  vec4 velocityLifetime;  // xyz, lifetime in seconds
  vec4 color;
  vec4 sizeSeed;          // x: size, y: random seed
};

#define FIELD_ATTRACTOR 0u
#define FIELD_WIND      1u
#define FIELD_VORTEX    2u

struct ForceField {
  vec4 positionRadius;    // xyz, radius of influence
  vec4 directionStrength; // xyz (wind direction / vortex axis), strength
  vec4 falloff;           // x: exponent-ish, y: min distance
  uint type;
  uint pad0, pad1, pad2;
};

layout(push_constant) uniform SimParams {
  uint particleCount;
  uint fieldCount;
  uint killVolumeCount;
  uint curveKeyCount;
  float deltaTime;
  float drag;
} sim;

layout(set = 0, binding = 0, std430) buffer Particles { Particle particles[]; };
layout(set = 0, binding = 1, std430) readonly buffer ForceFields { ForceField fields[]; };
layout(set = 0, binding = 2, std140) uniform EmitterConstants {
  vec4 killVolumes[8];  // spheres: xyz center, w radius
  vec4 sizeCurve[16];   // x: normalised age of the key, y: size, z: slope
  vec4 gravity;
} emitter;

vec3 fieldForce(ForceField f, vec3 p) {
  vec3 d = f.positionRadius.xyz - p;
  float dist = length(d);
  if (dist > f.positionRadius.w) {
    return vec3(0.0);
  }
  float fade = 1.0 - dist / max(f.positionRadius.w, 1e-3);
  uint type = f.type % 3u;
  if (type == FIELD_ATTRACTOR) {
    return d / max(dist, f.falloff.y + 1e-3) * f.directionStrength.w * fade;
  } else if (type == FIELD_WIND) {
    return f.directionStrength.xyz * f.directionStrength.w * fade;
  }
  vec3 axis = f.directionStrength.xyz;
  return cross(axis, -d) * f.directionStrength.w * fade;
}

float evaluateCurve(float t) {
  vec4 prev = emitter.sizeCurve[0];
  float value = prev.y;
  for (uint k = 1u; k < sim.curveKeyCount; ++k) {
    vec4 key = emitter.sizeCurve[k];
    if (t < key.x) {
      float s = clamp((t - prev.x) / max(key.x - prev.x, 1e-4), 0.0, 1.0);
      value = mix(prev.y, key.y, s) + prev.z * s * (1.0 - s);
      break;
    }
    prev = key;
    value = key.y;
  }
  return value;
}

void main() {
  uint id = gl_GlobalInvocationID.x;
  if (id >= sim.particleCount) {
    return;
  }
  Particle p = particles[id];
  if (p.positionAge.w >= p.velocityLifetime.w) {
    return;  // dead slot, waiting to be re-emitted
  }

  vec3 force = emitter.gravity.xyz;
  for (uint i = 0u; i < sim.fieldCount; ++i) {
    force += fieldForce(fields[i], p.positionAge.xyz);
  }

  vec3 velocity = p.velocityLifetime.xyz * (1.0 - sim.drag * sim.deltaTime) + force * sim.deltaTime;
  vec3 position = p.positionAge.xyz + velocity * sim.deltaTime;
  float age = p.positionAge.w + sim.deltaTime;

  for (uint v = 0u; v < sim.killVolumeCount; ++v) {
    vec4 sphere = emitter.killVolumes[v];
    if (distance(position, sphere.xyz) < sphere.w) {
      particles[id].positionAge = vec4(position, p.velocityLifetime.w);
      particles[id].color.a = 0.0;
      return;
    }
  }

  float normalisedAge = age / max(p.velocityLifetime.w, 1e-3);
  particles[id].positionAge = vec4(position, age);
  particles[id].velocityLifetime.xyz = velocity;
  particles[id].sizeSeed.x = evaluateCurve(normalisedAge);
  particles[id].color.a = clamp(1.0 - normalisedAge, 0.0, 1.0);
}
