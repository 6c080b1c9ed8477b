#include <cstdint>
#include <cstring>

#include "fastkv/cache.h"

namespace fastkv {

// 64-bit mixing step (splitmix64 finalizer). Used to spread page keys
// across cache shards.
static inline uint64_t mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

uint64_t hash_bytes(const void* data, size_t len) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  uint64_t h = 0x9e3779b97f4a7c15ULL ^ len;
  for (size_t i = 0; i < len; ++i) h = mix64(h ^ p[i]);
  return h;
}

}  // namespace fastkv
