// t0, u0 and b0: apart in HLSL's register classes, one binding in Vulkan's
// single binding space until the classes are shifted.
Buffer<float> input : register(t0);
RWStructuredBuffer<float> output : register(u0);
cbuffer Params : register(b0) { uint count; float scale; };

[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
  if (id.x < count) output[id.x] = input[id.x] * scale;
}
