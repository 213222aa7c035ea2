// Family 2: xor butterfly, ascending (F11, DS1, CD1, PT7), f64 values (two 32-bit shuffles).
#include <cuda_runtime.h>
extern "C" __global__ void butterfly_asc_f64(const double *in, double *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  double v = in[i];
  for (int o = 1; o < 32; o <<= 1) v += __shfl_xor_sync(0xffffffff, v, o);
  out[i] = v;
}
