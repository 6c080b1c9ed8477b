// Copyright (c) 2022-2024, Example Labs, Inc.
// All rights reserved.
// See LICENSE for details.

#pragma once

#include <cstdint>

namespace torchkv {

// Per-group symmetric int8 quantization of a KV cache block.
void quantize_int8(const float* src, int8_t* dst, float* scales,
                   int64_t n, int64_t group_size);

void dequantize_int8(const int8_t* src, const float* scales, float* dst,
                     int64_t n, int64_t group_size);

}  // namespace torchkv
