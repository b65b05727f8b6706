// Included by common.glsl, and again (guarded) by lib.glsl.
#ifndef INNER_GLSL
#define INNER_GLSL
uint Scale(uint x) { return x; }
#endif
