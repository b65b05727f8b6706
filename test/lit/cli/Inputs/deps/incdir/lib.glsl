#include "../nested/inner.glsl"
