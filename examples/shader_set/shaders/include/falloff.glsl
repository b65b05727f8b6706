// Included by lighting.glsl only.
float Falloff(float d, float radius) { return max(0.0, 1.0 - d / radius); }
