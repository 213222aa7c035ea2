// cuRAND's device API (NVIDIA's curand_kernel.h, header-only device code): the first draws of each
// generator from fixed seeds, printed as hex per thread. Run on an H200 (nvcc 13.0, -arch=sm_90):
//   nvcc -arch=sm_90 -o curand_values hw_tests/nvidia/curand_values.cu && ./curand_values
// hw_tests/amd/test_curand_hw.py runs the kernel below (between the markers) on AMD, where shflx reads
// the same header from the nvidia-curand-cu12 wheel, and compares with that output, which it records.
#include <cstdio>
#include <curand_kernel.h>
// kernel begin
#define N_DRAWS 16
extern "C" __global__ void draws(unsigned long long seed, unsigned long long *out) {
  unsigned id = threadIdx.x;
  unsigned long long *o = out + N_DRAWS * id;
  curandState x;                                  // XORWOW; subsequence id, offset 3 (skip-ahead)
  curand_init(seed, id, 3, &x);
  o[0] = curand(&x); o[1] = curand(&x);
  o[2] = __float_as_uint(curand_uniform(&x)); o[3] = __double_as_longlong(curand_uniform_double(&x));
  o[4] = __float_as_uint(curand_normal(&x)); o[5] = __float_as_uint(curand_normal(&x));
  o[6] = curand_poisson(&x, 4.5);
  curandStatePhilox4_32_10_t p;
  curand_init(seed, id, 5, &p);
  uint4 q = curand4(&p);
  o[7] = q.x; o[8] = q.w;
  float4 u = curand_uniform4(&p);
  o[9] = __float_as_uint(u.y);
  double2 n2 = curand_normal2_double(&p);
  o[10] = __double_as_longlong(n2.x);
  curandStateMRG32k3a m;
  curand_init(seed, id, 1, &m);
  o[11] = curand(&m); o[12] = __double_as_longlong(curand_uniform_double(&m));
  o[13] = __float_as_uint(curand_log_normal(&m, 0.5f, 2.0f));
  curandStateScrambledSobol32 s;                 // not seeded from tables: its direction vectors are data
  unsigned v[32];
  for (int k = 0; k < 32; ++k) v[k] = 1u << (31 - k);
  curand_init(v, 0x9e3779b9u, id, &s);
  o[14] = curand(&s); o[15] = curand(&s);
}
// kernel end
int main() {
  const int n = 64;
  unsigned long long *d, h[N_DRAWS * n];
  cudaMalloc(&d, sizeof h);
  draws<<<1, n>>>(1234ull, d);
  if (cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost) != cudaSuccess) return 1;
  for (int k = 0; k < n; k++) {
    printf("%d:", k);
    for (int j = 0; j < N_DRAWS; j++) printf(" %llx", h[N_DRAWS * k + j]);
    printf("\n");
  }
  return 0;
}
