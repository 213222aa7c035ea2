// NaN and the infinities converted to integers by CUDA's intrinsics and by cvt directly, printed as
// hex per input. Run on an H200 (nvcc 13.0, -arch=sm_90 and -arch=sm_80, the same output):
//   nvcc -arch=sm_90 -o nan_conversions hw_tests/nvidia/nan_conversions.cu && ./nan_conversions
// hw_tests/amd/test_cuda_nan_conversions_hw.py runs the kernel below (between the markers) on AMD
// and compares with that output, which it records.
#include <cstdio>
#include <cmath>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
// kernel begin
#define N_CONVERSIONS 24
extern "C" __global__ void conversions(const float *in, unsigned long long *out) {
  float f = in[blockIdx.x];
  double d = f;
  unsigned long long *o = out + N_CONVERSIONS * blockIdx.x;
  __half h = __float2half(f);
  __nv_bfloat16 b = __float2bfloat16(f);
  o[0] = __float2ull_rz(f); o[1] = (unsigned long long)__float2ll_rz(f);
  o[2] = __float2uint_rz(f); o[3] = (unsigned)__float2int_rz(f);
  o[4] = __double2ull_rz(d); o[5] = (unsigned long long)__double2ll_rz(d);
  o[6] = __double2uint_rz(d); o[7] = (unsigned)__double2int_rz(d);
  unsigned long long r; asm("cvt.rzi.u64.f32 %0, %1;" : "=l"(r) : "f"(f)); o[8] = r;
  long long s; asm("cvt.rzi.s64.f32 %0, %1;" : "=l"(s) : "f"(f)); o[9] = s;
  unsigned u; asm("cvt.rni.u32.f64 %0, %1;" : "=r"(u) : "d"(d)); o[10] = u;
  int i; asm("cvt.rzi.s32.f32 %0, %1;" : "=r"(i) : "f"(f)); o[11] = (unsigned)i;
  o[12] = __half2ull_rz(h); o[13] = (unsigned long long)__half2ll_rz(h);
  o[14] = __half2uint_rz(h); o[15] = (unsigned)__half2int_rz(h);
  o[16] = __half2ushort_rz(h); o[17] = (unsigned short)__half2short_rz(h);
  o[18] = __bfloat162ull_rz(b); o[19] = (unsigned long long)__bfloat162ll_rz(b);
  o[20] = __bfloat162uint_rz(b); o[21] = (unsigned)__bfloat162int_rz(b);
  o[22] = __float2ull_rn(f); o[23] = __double2ull_rn(d);
}
// kernel end
int main() {
  const float in[] = {NAN, -NAN, INFINITY, -INFINITY, -1.5f, 3e9f};
  const int n = sizeof in / sizeof in[0];
  float *din;
  unsigned long long *dout, h[N_CONVERSIONS * n];
  cudaMalloc(&din, sizeof in);
  cudaMalloc(&dout, sizeof h);
  cudaMemcpy(din, in, sizeof in, cudaMemcpyHostToDevice);
  conversions<<<n, 1>>>(din, dout);
  if (cudaMemcpy(h, dout, sizeof h, cudaMemcpyDeviceToHost) != cudaSuccess) return 1;
  for (int k = 0; k < n; k++) {
    printf("%g:", in[k]);
    for (int j = 0; j < N_CONVERSIONS; j++) printf(" %llx", h[N_CONVERSIONS * k + j]);
    printf("\n");
  }
  return 0;
}
