#pragma once

#include <cstddef>
#include <cstdint>

namespace tinyz {

// Bit reader used by the fast inflate loop; refills 56 bits at a time.
struct BitReader {
  const uint8_t* p;
  const uint8_t* end;
  uint64_t bits = 0;
  unsigned count = 0;

  void refill() {
    while (count <= 56 && p < end) {
      bits |= static_cast<uint64_t>(*p++) << count;
      count += 8;
    }
  }
  unsigned take(unsigned n) {
    unsigned v = static_cast<unsigned>(bits & ((1ull << n) - 1));
    bits >>= n;
    count -= n;
    return v;
  }
};

}  // namespace tinyz
