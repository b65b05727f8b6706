// A fragment shader's atomics keep helper lanes out with IsHelperLane(), a
// shader model 6.6 intrinsic glslang's HLSL front end lacks: refused for
// HLSL output by default, with the option that allows it named;
// --hlsl-dialect=dxc (the HLSL is for DXC) rewrites, and the HLSL asks for
// shader model 6.6 and says IsHelperLane().
// RUN: %waveopt -S frag %s --prereduce-atomics --emit=hlsl -o %t.glslang.hlsl --remarks-missed=prereduce 2> %t.missed
// RUN: %FileCheck %s --check-prefix=MISSED < %t.missed
// RUN: %FileCheck %s --check-prefix=PLAIN < %t.glslang.hlsl
// RUN: %waveopt -S frag %s --prereduce-atomics --hlsl-dialect=dxc --emit=hlsl -o %t.dxc.hlsl
// RUN: %FileCheck %s --check-prefix=DXC < %t.dxc.hlsl
// RUN: %not %waveopt -S frag %s --hlsl-dialect=fxc -o %t.bad.hlsl 2>&1 | %FileCheck %s --check-prefix=BAD
// MISSED: missed NotExpressibleInHlsl in main: {{.*}}IsHelperLane(){{.*}}(--hlsl-dialect=dxc if the HLSL is for DXC)
// PLAIN-NOT: IsHelperLane
// DXC: IsHelperLane()
// DXC: WaveActiveBallot(
// BAD: waveopt: error: --hlsl-dialect is glslang or dxc (the compiler the HLSL output is for), not 'fxc'
#version 450
layout(set = 0, binding = 0) buffer Data { uint counter; uint slots[]; };
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;
void main() {
  float slope = dFdx(uv.x);
  uint slot = atomicAdd(counter, 1u);
  slots[slot % 64u] = uint(slope * 100.0);
  color = vec4(1.0);
}
