// Order-independent transparency, the shape the corpus has in fragment
// shaders: each fragment takes a node from a global counter (returned value
// used) and pushes it onto its pixel's list with an exchange (left alone).
// Derivatives keep helper lanes in the quads; they must neither take a node
// nor be elected to take the subgroup's nodes.
// RUN: %diff %s --waveopt-flags="-S frag --prereduce-atomics --remarks=prereduce --remarks-missed=prereduce" 2>&1 | %FileCheck %s
// CHECK: note: oit_append.frag is a fragment shader: the wave simulator runs compute shaders only, so its sizes 32,64 are skipped
// CHECK: applied UniformAddressUniformValue in main: one atomic per subgroup: OpAtomicIAdd of a uniform value; each lane's returned value is rebuilt; helper invocations are kept out
// CHECK: missed UnsupportedAtomicOp in main: OpAtomicExchange
// CHECK: [sg=4] equal
// CHECK: [sg=8] equal
// CHECK: [sg=16] equal
// CHECK: PASS: equal at sizes 4,8,16
#version 450
layout(set = 0, binding = 0) buffer Count { uint node_count; };
layout(set = 0, binding = 1) buffer Heads { uint heads[]; };
layout(set = 0, binding = 2) buffer Nodes { uvec2 nodes[]; };
layout(location = 0) out vec4 color;
const uint kMaxNodes = 800u;  // fewer than the 851 pixels: some fragments find the pool empty
void main() {
  uvec2 p = uvec2(gl_FragCoord.xy);
  float shade = fract(dFdx(gl_FragCoord.x * gl_FragCoord.y) * 0.01);
  uint node = atomicAdd(node_count, 1u);
  if (node < kMaxNodes) {
    uint previous = atomicExchange(heads[p.y * 37u + p.x], node);
    nodes[node] = uvec2(p.y * 37u + p.x, previous);
  }
  color = vec4(shade);
}
