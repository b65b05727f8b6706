// A loop over a buffer of n words.
#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer Data { uint data[]; };
layout(push_constant) uniform Params { uint n; };

void main() {
  uint sum = 0u;
  for (uint i = 1u; i < n; ++i) sum += data[i];
  data[0] = sum;
}
