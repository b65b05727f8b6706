// A 16-bin luminance histogram of an image, counted in a global buffer.
#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(set = 0, binding = 0) uniform sampler2D hdr;
layout(set = 0, binding = 1) buffer Histogram { uint bins[16]; };
void main() {
  const ivec2 pixel = ivec2(gl_GlobalInvocationID.xy);
  const vec3 c = texelFetch(hdr, pixel, 0).rgb;
  const float luma = dot(c, vec3(0.2126, 0.7152, 0.0722));
  const uint bin = min(uint(clamp(log2(luma + 1.0), 0.0, 1.0) * 16.0), 15u);
  atomicAdd(bins[bin], 1u);
}
