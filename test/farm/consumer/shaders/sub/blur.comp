#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Data { float data[]; };
shared float tile[66];
void main() {
  uint i = gl_GlobalInvocationID.x, l = gl_LocalInvocationID.x;
  tile[l + 1] = data[i];
  barrier();
  data[i] = (tile[l] + tile[l + 1] + tile[l + 2]) / 3.0;
}
