// Writes i*3 to items[i]; count = 40.
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Counter { uint count; };
layout(set = 0, binding = 1) buffer Items { uint items[]; };
layout(set = 0, binding = 2) buffer Floats { float f[]; };

void main() {
  uint i = gl_LocalInvocationIndex;
  if (i == 0u) count = 40u;
  items[i] = i * 3u;
  f[i] = float(i) * 0.37;
}
