// A histogram of 8 << MODE bins.
const uint kBins = 8u << MODE;
layout(set = 0, binding = 1) buffer Histogram { uint bins[kBins]; };

uint BinOf(float v) { return min(uint(v * float(kBins)), kBins - 1u); }
