// Models: a GPU audio / signal-processing block (e.g. convolution effects or
// sensor preprocessing): one invocation per output sample of an interleaved
// stereo stream. A causal FIR low-pass whose taps (vec4-packed in a UBO)
// stop at the start of the stream (`k < taps && k <= n` in the loop test),
// then a matched filter (cross-correlation with a pulse template, also in
// the UBO) over a clamped window, and a gain/limit stage. Muted channels
// return before filtering.
// Exercises: batch-uniform-loads refusing a loop whose exit test is
// per-lane (LoopTripCountDivergent: near the stream start lanes stop after
// different numbers of taps, so nothing may be fetched for iterations a lane
// never runs) and batching the correlation loop (uniform trip count, the tap
// is the only uniform load). 1-D workgroups of 40 (partial subgroups at 16,
// 32, 64) over 2 x 90 samples. With the right channel muted (second RUN)
// only every other lane enters the loops: the lanes in the batched loop are
// not consecutive, so each slot's owner comes from a ballot.
// RUN: %diff %s --waveopt-flags="-O --target=none --remarks=.* --remarks-missed=.*" 2>&1 | %FileCheck %s
// RUN: %diff %s --waveopt-flags="-O --target=none" --waverun="-s 'push fill=zero words=90,33,13,2,0x3fc00000,0x3f666666'" 2>&1 | %FileCheck %s --check-prefix=EQUAL
// CHECK: morton-remap: missed LinearIndex in main: the 40x1x1 workgroup
// CHECK-DAG: batch-uniform-loads: missed LoopTripCountDivergent in main: lanes may leave the loop at different iterations (an exit test is not subgroup-uniform)
// CHECK-DAG: batch-uniform-loads: applied BatchedLoads in main: 1 uniform load(s) per iteration (1 shuffled part(s))
// CHECK: PASS: equal at sizes 4,8,16,32,64
// EQUAL: PASS: equal at sizes 4,8,16,32,64
#version 450
layout(local_size_x = 40) in;

layout(push_constant) uniform FilterParams {
  uint frames;          // samples per channel
  uint firTaps;         // <= 64
  uint templateLength;  // <= 32
  uint channelMuteMask; // bit c: channel c muted
  float gain;
  float limit;
} params;

layout(set = 0, binding = 0, std140) uniform FilterTables {
  vec4 firCoefficients[16];  // 64 taps, 4 per vec4
  vec4 pulseTemplate[32];    // .x
} tables;

layout(set = 0, binding = 1, std430) readonly buffer InputStream { float samplesIn[]; };   // interleaved L R
layout(set = 0, binding = 2, std430) writeonly buffer FilteredStream { float samplesOut[]; };
layout(set = 0, binding = 3, std430) writeonly buffer Correlation { float correlation[]; };

float inputSample(uint frame, uint channel) {
  return samplesIn[frame * 2u + channel];
}

float softLimit(float x, float limit) {
  return x / (1.0 + abs(x) / limit);  // rational soft clipper
}

void main() {
  uint id = gl_GlobalInvocationID.x;
  uint frame = id >> 1;
  uint channel = id & 1u;
  if (frame >= params.frames) {
    return;
  }
  if ((params.channelMuteMask & (1u << channel)) != 0u) {
    samplesOut[id] = 0.0;
    correlation[id] = 0.0;
    return;
  }

  // Causal FIR: y[n] = sum h[k] x[n-k] over the taps that exist.
  float y = 0.0;
  for (uint k = 0u; k < params.firTaps && k <= frame; ++k) {
    y += tables.firCoefficients[k >> 2][k & 3u] * inputSample(frame - k, channel);
  }

  // Matched filter over a window clamped to the stream.
  float corr = 0.0;
  for (uint k = 0u; k < params.templateLength; ++k) {
    uint f = min(frame + k, params.frames - 1u);
    corr += tables.pulseTemplate[k].x * inputSample(f, channel);
  }

  samplesOut[id] = softLimit(y * params.gain, params.limit);
  correlation[id] = corr / float(max(params.templateLength, 1u));
}
