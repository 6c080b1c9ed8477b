/*
 * Copyright (c) 2022-2024, Example Labs, Inc.
 * All rights reserved.
 *
 * This source code is licensed under the terms found in the LICENSE file;
 * see LICENSE for details.
 */
#include "quant.h"

#include <algorithm>
#include <cmath>

namespace torchkv {

void quantize_int8(const float* src, int8_t* dst, float* scales,
                   int64_t n, int64_t group_size) {
  for (int64_t g = 0; g * group_size < n; ++g) {
    int64_t lo = g * group_size, hi = std::min(n, lo + group_size);
    float amax = 0.f;
    for (int64_t i = lo; i < hi; ++i) amax = std::max(amax, std::fabs(src[i]));
    float s = amax > 0.f ? amax / 127.f : 1.f;
    scales[g] = s;
    for (int64_t i = lo; i < hi; ++i)
      dst[i] = static_cast<int8_t>(std::lrint(src[i] / s));
  }
}

void dequantize_int8(const int8_t* src, const float* scales, float* dst,
                     int64_t n, int64_t group_size) {
  for (int64_t i = 0; i < n; ++i) dst[i] = src[i] * scales[i / group_size];
}

}  // namespace torchkv
