// Reads an input at a location: waverun's vertex shader passes none.
#version 450
layout(set = 0, binding = 0) buffer Out { float v[]; };
layout(location = 0) in vec2 uv;
void main() {
  v[uint(gl_FragCoord.x)] = uv.x;
}
