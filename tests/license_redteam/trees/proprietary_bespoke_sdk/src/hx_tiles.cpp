#include "helios/hx_runtime.h"

#include <cstdint>

namespace hx {

// Tile scheduler for the matrix engine: walks output tiles in a swizzled
// order so that neighbouring cores share operand rows in L2.
struct TileCoord {
  int m;
  int n;
};

TileCoord swizzle(int linear, int tiles_m, int group) {
  int per_group = group * tiles_m;
  int g = linear / per_group;
  int first_n = g * group;
  int in_group = linear % per_group;
  TileCoord c;
  c.m = in_group % tiles_m;
  c.n = first_n + in_group / tiles_m;
  return c;
}

}  // namespace hx
