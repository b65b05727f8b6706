#version 450
// A loop whose trip count is specialization constant 0: its instruction
// count shows which value the pipeline was created with.
layout(local_size_x = 64) in;
layout(constant_id = 0) const uint N = 1;
layout(set = 0, binding = 0) buffer B { uint d[]; };
void main() {
  uint x = d[gl_GlobalInvocationID.x];
  for (uint i = 0; i < N; ++i) x = x * 3u + (x >> 5);
  d[gl_GlobalInvocationID.x] = x;
}
