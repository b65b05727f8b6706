// A 64-bit input: waverun's vertex shader feeds 32-bit ones only.
#version 450
layout(set = 0, binding = 0) buffer Out { double v[]; };
layout(location = 0) flat in dvec2 wide;
void main() {
  v[uint(gl_FragCoord.x)] = wide.x;
}
