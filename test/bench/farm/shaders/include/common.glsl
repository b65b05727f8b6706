// The permutation axes every farm kernel reads (-D on the command line),
// with their defaults, and the input buffer they share.
#ifndef WG_SIZE
#define WG_SIZE 64
#endif
#ifndef MODE
#define MODE 0
#endif
#ifndef CLAMP
#define CLAMP 0
#endif
#ifndef SCALE
#define SCALE 0
#endif
#ifndef FAST
#define FAST 0
#endif
layout(local_size_x = WG_SIZE) in;
layout(set = 0, binding = 0) readonly buffer Input { vec4 data[]; };

float Luma(vec4 c) {
#if FAST
  return c.g;
#else
  return dot(c.rgb, vec3(0.2126, 0.7152, 0.0722));
#endif
}

float Prepare(float v) {
#if SCALE
  v *= 0.5;
#endif
#if CLAMP
  v = clamp(v, 0.0, 1.0);
#endif
  return v;
}
