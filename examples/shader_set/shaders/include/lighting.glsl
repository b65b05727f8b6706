// Lights for lights.comp; falloff comes from falloff.glsl.
#include "falloff.glsl"
struct Light { vec4 position_radius; vec4 color; };
layout(set = 0, binding = 0) readonly buffer Lights { uint light_count; Light lights[]; };
