/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (C) 2012-2021 Yann Collet */

#include <cstdint>
#include <cstring>

namespace xxh {

static const uint64_t PRIME64_1 = 0x9E3779B185EBCA87ULL;
static const uint64_t PRIME64_2 = 0xC2B2AE3D27D4EB4FULL;

static inline uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static inline uint64_t round64(uint64_t acc, uint64_t input) {
    acc += input * PRIME64_2;
    acc = rotl64(acc, 31);
    acc *= PRIME64_1;
    return acc;
}

uint64_t mix_lane(const void *p, uint64_t acc) {
    uint64_t v;
    std::memcpy(&v, p, sizeof(v));
    return round64(acc, v);
}

}  // namespace xxh
