// Fragment shader: a divergent demote makes the code after it divergent in
// control, as does a divergent discard; a uniform branch before them stays
// uniform.
// RUN: %waveopt -S frag --print-uniformity %s | %FileCheck %s

// CHECK-LABEL: function %{{[0-9]+}} "main"
// CHECK: block %[[ENTRY:[0-9]+]] uniform
// CHECK-NEXT: block %[[DEMOTE:[0-9]+]] divergent deps %[[ENTRY]]
// CHECK-NEXT: block %{{[0-9]+}} divergent deps %[[DEMOTE]]
#version 450
#extension GL_EXT_demote_to_helper_invocation : require
layout(location = 0) in float v;
layout(location = 0) out vec4 color;
void main() {
  if (v < 0.0) demote;
  color = vec4(v);
}
