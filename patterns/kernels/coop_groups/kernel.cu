// Family 18: cooperative groups tiles (G1-G5, S9-S14, K4, T4): tiled_partition<N> with tile shuffles,
// cg::reduce and cg::inclusive_scan on tiles of 8 and 16.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
namespace cg = cooperative_groups;
extern "C" __global__ void tile_reduce8(const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  auto tile = cg::tiled_partition<8>(cg::this_thread_block());
  out[i] = cg::reduce(tile, in[i], cg::plus<int>());
}
extern "C" __global__ void tile_scan16(const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  auto tile = cg::tiled_partition<16>(cg::this_thread_block());
  out[i] = cg::inclusive_scan(tile, in[i], cg::plus<int>()) + tile.shfl(in[i], 3);
}
