// frag_input.frag with uv's components swapped in the color output: a
// wrong partner that only the color outputs show.
#version 450
layout(set = 0, binding = 0) buffer Out { float v[]; };
layout(location = 0) in vec2 uv;
layout(location = 1) flat in ivec2 tile;
layout(location = 2) noperspective in float shade;
layout(location = 3, component = 0) in float first;
layout(location = 3, component = 1) in float second;
layout(location = 4) in float pair[2];
layout(location = 0) out vec4 color;
layout(location = 1) out uvec2 id;
void main() {
  uvec2 p = uvec2(gl_FragCoord.xy);
  color = vec4(uv.yx, shade, first + second + pair[0] + pair[1]);
  id = uvec2(tile);
  v[p.y * 9u + p.x] = uv.x + 10.0 * shade;
}
