// CUDA device functions the AMD layer added from NVIDIA's declarations (SIMD, clamped funnel
// shifts, directed narrowing conversions, math), each printed as hex per input. Run on an H200
// (nvcc 13.0, -arch=sm_90):
//   nvcc -arch=sm_90 -o device_api_values hw_tests/nvidia/device_api_values.cu && ./device_api_values
// hw_tests/amd/test_cuda_device_api_hw.py runs the kernels below (between the markers) on AMD and
// compares with that output, which it records.
#include <cstdio>
#include <cmath>
// kernel begin
#define N_INTEGER 32
extern "C" __global__ void integer_api(const unsigned *a, const unsigned *b, unsigned *out) {
  unsigned x = a[blockIdx.x], y = b[blockIdx.x], s = y >> 26, *o = out + N_INTEGER * blockIdx.x;
  o[0] = __vavgs2(x, y); o[1] = __vavgs4(x, y); o[2] = __vsads2(x, y); o[3] = __vsads4(x, y);
  o[4] = __vsadu2(x, y); o[5] = __vsadu4(x, y); o[6] = __vseteq2(x, y); o[7] = __vseteq4(x, y);
  o[8] = __vsetne2(x, y); o[9] = __vsetne4(x, y); o[10] = __vsetges2(x, y); o[11] = __vsetges4(x, y);
  o[12] = __vsetgeu2(x, y); o[13] = __vsetgeu4(x, y); o[14] = __vsetgts2(x, y); o[15] = __vsetgts4(x, y);
  o[16] = __vsetgtu2(x, y); o[17] = __vsetgtu4(x, y); o[18] = __vsetles2(x, y); o[19] = __vsetles4(x, y);
  o[20] = __vsetleu2(x, y); o[21] = __vsetleu4(x, y); o[22] = __vsetlts2(x, y); o[23] = __vsetlts4(x, y);
  o[24] = __vsetltu2(x, y); o[25] = __vsetltu4(x, y); o[26] = __funnelshift_lc(x, y, s);
  o[27] = __funnelshift_rc(x, y, s); o[28] = __uni_sync(0xffffffffu, (int)(x & 1));
  o[29] = __float_as_uint(__double2float_rz((double)x / (double)(y | 1) * 1e-3 - 0.5));
  o[30] = __float_as_uint(__double2float_ru((double)x / (double)(y | 1) * 1e-3 - 0.5));
  o[31] = __float_as_uint(__double2float_rd((double)x / (double)(y | 1) * 1e-3 - 0.5));
}
#define N_MATH 40
extern "C" __global__ void math_api(const double *in, unsigned long long *out) {
  double d = in[blockIdx.x], t[3] = {d, 2.0, -3.0}, i, sd, cd;
  float f = (float)d, tf[3] = {f, 2.0f, -3.0f}, fi, sf, cf;
  int e, q;
  unsigned long long *o = out + N_MATH * blockIdx.x;
#define F(k, v) o[k] = __float_as_uint(v)
#define D(k, v) o[k] = (unsigned long long)__double_as_longlong(v)
  F(0, acoshf(f)); F(1, asinhf(f)); F(2, atanhf(f)); F(3, cyl_bessel_i0f(f)); F(4, cyl_bessel_i1f(f));
  F(5, erfcxf(f)); o[6] = (unsigned)ilogbf(f); F(7, j0f(f)); F(8, j1f(f)); F(9, jnf(3, f)); F(10, y0f(f));
  F(11, ynf(3, f)); o[12] = (unsigned long long)llrintf(f); o[13] = (unsigned long long)lroundf(f);
  F(14, modff(f, &fi)); F(15, fi); F(16, norm3df(f, 2.0f, -3.0f)); F(17, rnormf(3, tf));
  F(18, rhypotf(f, 2.0f)); F(19, remquof(f, 0.7f, &q)); o[20] = (unsigned)q; F(21, scalbnf(f, 3));
  sincospif(f, &sf, &cf); F(22, sf); F(23, cf); F(24, fdividef(f, 3.0f));
  D(25, cyl_bessel_i0(d)); D(26, frexp(d, &e)); o[27] = (unsigned)e; o[28] = (unsigned)ilogb(d);
  D(29, jn(3, d)); D(30, y1(d)); o[31] = (unsigned long long)lrint(d); D(32, modf(d, &i)); D(33, i);
  D(34, norm(3, t)); D(35, rnorm4d(d, 2.0, -3.0, 0.5)); D(36, remquo(d, 0.7, &q)); o[37] = (unsigned)q;
  sincospi(d, &sd, &cd); D(38, sd + cd); D(39, fdivide(d, 3.0));
#undef F
#undef D
}
// kernel end
int main() {
  const unsigned a[] = {0u, 0xffffffffu, 0x80007fffu, 0x7f80017fu, 0x12345678u, 0xdeadbeefu, 0x01ff7f80u, 0x8000ffffu};
  const unsigned b[] = {0u, 0x00000001u, 0x7fff8000u, 0x807f7f81u, 0x87654321u, 0x0badf00du, 0xfe0180ffu, 0x24000001u};
  const double x[] = {0.0, -0.0, 1.25, -2.5, 0.75, 7.5, 1e-30, 1e300, -0.999, 33.3, INFINITY, -INFINITY, NAN};
  const int ni = sizeof a / sizeof a[0], nm = sizeof x / sizeof x[0];
  unsigned *da, *db, *dio, hi[N_INTEGER * ni];
  double *dx;
  unsigned long long *dmo, hm[N_MATH * nm];
  cudaMalloc(&da, sizeof a); cudaMalloc(&db, sizeof b); cudaMalloc(&dio, sizeof hi);
  cudaMalloc(&dx, sizeof x); cudaMalloc(&dmo, sizeof hm);
  cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice); cudaMemcpy(db, b, sizeof b, cudaMemcpyHostToDevice);
  cudaMemcpy(dx, x, sizeof x, cudaMemcpyHostToDevice);
  integer_api<<<ni, 1>>>(da, db, dio);
  math_api<<<nm, 1>>>(dx, dmo);
  if (cudaMemcpy(hi, dio, sizeof hi, cudaMemcpyDeviceToHost) != cudaSuccess) return 1;
  if (cudaMemcpy(hm, dmo, sizeof hm, cudaMemcpyDeviceToHost) != cudaSuccess) return 1;
  for (int k = 0; k < ni; k++) {
    printf("i %08x %08x:", a[k], b[k]);
    for (int j = 0; j < N_INTEGER; j++) printf(" %x", hi[N_INTEGER * k + j]);
    printf("\n");
  }
  for (int k = 0; k < nm; k++) {
    printf("m %a:", x[k]);
    for (int j = 0; j < N_MATH; j++) printf(" %llx", hm[N_MATH * k + j]);
    printf("\n");
  }
  return 0;
}
