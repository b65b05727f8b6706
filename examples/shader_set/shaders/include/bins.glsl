// The 16-bin histogram both histogram.comp and tile_max.comp fill.
const uint kBins = 16u;
layout(set = 0, binding = 1) buffer Histogram { uint bins[kBins]; };

uint BinOf(float value) { return min(uint(value * float(kBins)), kBins - 1u); }
