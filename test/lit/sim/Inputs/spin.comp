// Loops forever unless the input says otherwise.
#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer Data { uint stop; uint n; };
void main() {
  while (stop == 0u) n += 1u;
}
