// Family 21: runtime width (Kokkos-style vector length from an argument; KO1-KO4).
#include <cuda_runtime.h>
extern "C" __global__ void runtime_width_sum(const int *in, int *out, int width) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  for (int o = width / 2; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o, width);
  out[i] = v;
}
