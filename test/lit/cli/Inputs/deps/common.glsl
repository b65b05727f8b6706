#include "nested/inner.glsl"
layout(set = 0, binding = 0) buffer Data { uint counter; };
