// A pre-reducible atomic that runs only when a specialization constant the
// pipeline is meant to set (a count, 0 by default, as ncnn's shapes) is
// not 0: --auto's search sets such constants to 4.
#version 450
layout(local_size_x = 32) in;
layout(constant_id = 3) const int count = 0;
layout(set = 0, binding = 0) buffer Counter { uint total; };
layout(set = 0, binding = 1) buffer Out { uint o[]; };
void main() {
  int i = int(gl_GlobalInvocationID.x);
  if (i >= count) return;
  atomicAdd(total, 1u);
  o[i] = uint(i);
}
