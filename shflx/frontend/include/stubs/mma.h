// shflx: nvcuda::wmma, CUDA's warp matrix functions (CUDA C++ Programming Guide, "Warp Matrix
// Functions"), built from CUDA-warp shuffles: fragments, load_matrix_sync, store_matrix_sync,
// fill_fragment, mma_sync, and element access (x[], num_elements) for the shapes and types
//   m16n16k16, m32n8k16, m8n32k16: __half / __nv_bfloat16 inputs with float or __half accumulators,
//              signed char / unsigned char inputs with int accumulators;
//   m8n8k4:    double.
// Like CUDA, the mapping of matrix elements to fragment elements is unspecified and the same for
// every fragment of a kind, so element-wise code over x[0..num_elements) works unchanged. Here it
// is (lane = the lane in its 32-lane CUDA warp):
//   mMnNk16   accumulator: lane holds elements 8*lane .. +7 of the row-major M x N tile, all in
//                          row 8*lane/N, from column 8*lane%N            (8 elements; m16n16k16: row
//                          lane/2, columns 8*(lane%2) .. +7)
//             matrix_a:    lane holds that row, all 16 columns (k)      (16; lanes of one row alike)
//             matrix_b:    lane holds column lane%N, all 16 rows (k)    (16; lanes c, c+N, ... alike)
//   m8n8k4    accumulator: lane holds row lane/4, columns 2*(lane%4), +1    (2 elements)
//             matrix_a:    lane holds a[lane/4][lane%4]; matrix_b: b[lane/8][lane%8]  (1 element)
// mma_sync reads the B (and, for m8n8k4, A) elements it needs from their lanes with __shfl_sync
// over the full warp, as CUDA requires every lane of the warp to call it. Arithmetic: products of
// 16-bit inputs are exact in float, summed in float in k order (the accumulator first) and, for a
// __half accumulator, rounded once to half; integers are summed in int (wrapping); double uses
// fma in k order. CUDA leaves the order and intermediate precision of the sums to the hardware, so
// float results can differ from a tensor core's in the last bits. satf = true saturates as CUDA
// documents: +-infinity becomes +-MAX_NORM of the accumulator type and NaN becomes +0 for float
// and __half accumulators; int sums are kept in 64 bits and clamped to int's range.
#pragma once
#include "cuda_fp16.h"
#include "cuda_bf16.h"

namespace nvcuda {
namespace wmma {
struct row_major {};
struct col_major {};
struct matrix_a {};
struct matrix_b {};
struct accumulator {};
enum layout_t { mem_row_major, mem_col_major };
// The element types of the fragments not provided (CUDA C++ Programming Guide, "Warp Matrix Functions":
// "Alternate Floating Point", "Sub-byte Operations"), declared so that a program naming them reaches
// the fragment's named error below rather than "no member named 'precision'" (cudahandbook's sgemm5Wmma)
namespace precision { struct tf32 {}; }
__device__ float __float_to_tf32(float) __shflx_unsupported("nvcuda::wmma::__float_to_tf32");
namespace experimental { namespace precision { struct u4 {}; struct s4 {}; struct b1 {}; } }

// Any other shape or type: a named error where the program instantiates it (CUDA's tf32 m16n16k8
// and the 4- and 1-bit shapes are not provided).
template <class T> struct __shflx_not_provided { static constexpr bool value = false; };
template <class Use, int M, int N, int K, class T, class Layout = void> struct fragment {
  static_assert(__shflx_not_provided<T>::value, "shflx does not support 'this nvcuda::wmma::fragment' on AMD "
                "targets (the fragments provided are m16n16k16, m32n8k16 and m8n32k16 of __half, __nv_bfloat16, "
                "signed or unsigned char and m8n8k4 of double)");
};

template <class T, int Size> struct __shflx_frag_base {
  T x[Size];
  enum { num_elements = Size };
  typedef T element_type;
  typedef T storage_element_type;
};

__device__ inline unsigned __shflx_wmma_lane() { return __shflx_lane() & 31u; }
template <class T> struct __shflx_wmma_input { static constexpr bool ok = false; };
template <> struct __shflx_wmma_input<__half> { static constexpr bool ok = true; typedef float acc; };
template <> struct __shflx_wmma_input<__nv_bfloat16> { static constexpr bool ok = true; typedef float acc; };
template <> struct __shflx_wmma_input<signed char> { static constexpr bool ok = true; typedef long long acc; };
template <> struct __shflx_wmma_input<unsigned char> { static constexpr bool ok = true; typedef long long acc; };

// the shapes of K = 16 (M x N = 256: every lane holds 8 accumulator elements of one row)
#define __SHFLX_WMMA_K16(M, N)                                                                                   \
  template <class T, class Layout> struct fragment<matrix_a, M, N, 16, T, Layout> : __shflx_frag_base<T, 16> {   \
    static_assert(__shflx_wmma_input<T>::ok, "shflx: wmma m" #M "n" #N "k16 inputs are __half, __nv_bfloat16, " \
                                              "signed char or unsigned char");                                   \
  };                                                                                                             \
  template <class T, class Layout> struct fragment<matrix_b, M, N, 16, T, Layout> : __shflx_frag_base<T, 16> {   \
    static_assert(__shflx_wmma_input<T>::ok, "shflx: wmma m" #M "n" #N "k16 inputs are __half, __nv_bfloat16, " \
                                              "signed char or unsigned char");                                   \
  };                                                                                                             \
  template <class T> struct fragment<accumulator, M, N, 16, T, void> : __shflx_frag_base<T, 8> {};
__SHFLX_WMMA_K16(16, 16)
__SHFLX_WMMA_K16(32, 8)
__SHFLX_WMMA_K16(8, 32)
#undef __SHFLX_WMMA_K16
template <class Layout> struct fragment<matrix_a, 8, 8, 4, double, Layout> : __shflx_frag_base<double, 1> {};
template <class Layout> struct fragment<matrix_b, 8, 8, 4, double, Layout> : __shflx_frag_base<double, 1> {};
template <> struct fragment<accumulator, 8, 8, 4, double, void> : __shflx_frag_base<double, 2> {};

template <class Use, int M, int N, int K, class T, class L>     // v converts to T (CUDA: not deduced from v)
__device__ inline void fill_fragment(fragment<Use, M, N, K, T, L> &f,
                                     const typename fragment<Use, M, N, K, T, L>::element_type &v) {
#pragma unroll
  for (int i = 0; i < f.num_elements; ++i) f.x[i] = v;
}

// element (row, col) of a matrix at p with leading dimension ldm, stored row- or column-major
template <class T> __device__ inline T __shflx_at(const T *p, unsigned row, unsigned col, unsigned ldm, bool row_major) {
  return row_major ? p[(unsigned long long)row * ldm + col] : p[(unsigned long long)col * ldm + row];
}
template <class L> constexpr bool __shflx_is_row_major() { return __is_same(L, row_major); }

// ------------------------------------------------------------------------ m16n16k16, m32n8k16, m8n32k16
// accumulator element i of a lane: (8 * lane + i) of the row-major M x N tile
template <int N> __device__ inline unsigned __shflx_acc_row() { return __shflx_wmma_lane() * 8u / N; }
template <int N> __device__ inline unsigned __shflx_acc_col0() { return __shflx_wmma_lane() * 8u % N; }
template <int M, int N, class T, class L>
__device__ inline void load_matrix_sync(fragment<matrix_a, M, N, 16, T, L> &a, const T *p, unsigned ldm) {
  unsigned row = __shflx_acc_row<N>();
#pragma unroll
  for (int k = 0; k < 16; ++k) a.x[k] = __shflx_at(p, row, k, ldm, __shflx_is_row_major<L>());
}
template <int M, int N, class T, class L>
__device__ inline void load_matrix_sync(fragment<matrix_b, M, N, 16, T, L> &b, const T *p, unsigned ldm) {
  unsigned col = __shflx_wmma_lane() % N;
#pragma unroll
  for (int k = 0; k < 16; ++k) b.x[k] = __shflx_at(p, k, col, ldm, __shflx_is_row_major<L>());
}
template <int M, int N, class T>
__device__ inline void load_matrix_sync(fragment<accumulator, M, N, 16, T> &c, const T *p, unsigned ldm, layout_t l) {
  unsigned row = __shflx_acc_row<N>(), col0 = __shflx_acc_col0<N>();
#pragma unroll
  for (int i = 0; i < 8; ++i) c.x[i] = __shflx_at(p, row, col0 + i, ldm, l == mem_row_major);
}
template <int M, int N, class T>
__device__ inline void store_matrix_sync(T *p, const fragment<accumulator, M, N, 16, T> &c, unsigned ldm, layout_t l) {
  unsigned row = __shflx_acc_row<N>(), col0 = __shflx_acc_col0<N>();
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    unsigned col = col0 + i;
    p[l == mem_row_major ? (unsigned long long)row * ldm + col : (unsigned long long)col * ldm + row] = c.x[i];
  }
}
template <class Acc, class T> __device__ inline Acc __shflx_widen(T v) { return (Acc)v; }
template <> __device__ inline float __shflx_widen<float, __half>(__half v) { return __half2float(v); }
template <> __device__ inline float __shflx_widen<float, __nv_bfloat16>(__nv_bfloat16 v) { return __bfloat162float(v); }
// the sum as the accumulator type: satf clamps (CUDA: "saturate to finite value")
__device__ inline float __shflx_narrow(float v, bool satf, float *) {
  if (!satf) return v;
  return v != v ? 0.0f : __builtin_fminf(__builtin_fmaxf(v, -3.40282347e38f), 3.40282347e38f);
}
__device__ inline __half __shflx_narrow(float v, bool satf, __half *) {
  if (!satf) return __float2half_rn(v);
  return v != v ? __float2half_rn(0.0f) : __float2half_rn(__builtin_fminf(__builtin_fmaxf(v, -65504.0f), 65504.0f));
}
__device__ inline int __shflx_narrow(long long v, bool satf, int *) {
  if (!satf) return (int)(unsigned)(unsigned long long)v;                     // wraps, as int arithmetic does
  return v > 2147483647ll ? 2147483647 : v < -2147483648ll ? (int)-2147483648ll : (int)v;
}

template <int M, int N, class Td, class Ti, class LA, class LB, class Tc>
__device__ inline void mma_sync(fragment<accumulator, M, N, 16, Td> &d, const fragment<matrix_a, M, N, 16, Ti, LA> &a,
                                const fragment<matrix_b, M, N, 16, Ti, LB> &b,
                                const fragment<accumulator, M, N, 16, Tc> &c, bool satf = false) {
  typedef typename __shflx_wmma_input<Ti>::acc Acc;
  unsigned col0 = __shflx_acc_col0<N>();
  Acc sum[8];
#pragma unroll
  for (int i = 0; i < 8; ++i) sum[i] = __shflx_widen<Acc>(c.x[i]);
#pragma unroll
  for (int k = 0; k < 16; ++k) {
    Acc ak = __shflx_widen<Acc>(a.x[k]);
#pragma unroll
    for (int i = 0; i < 8; ++i)          // b[k][col0 + i] lives in lane col0 + i (col0 + i < N)
      sum[i] += ak * __shflx_widen<Acc>(__shfl_sync(0xffffffffu, b.x[k], (int)(col0 + i)));
  }
#pragma unroll
  for (int i = 0; i < 8; ++i) d.x[i] = __shflx_narrow(sum[i], satf, (Td *)0);
}

// ------------------------------------------------------------------------ m8n8k4 (double)
template <class L>
__device__ inline void load_matrix_sync(fragment<matrix_a, 8, 8, 4, double, L> &a, const double *p, unsigned ldm) {
  unsigned lane = __shflx_wmma_lane();
  a.x[0] = __shflx_at(p, lane >> 2, lane & 3u, ldm, __shflx_is_row_major<L>());
}
template <class L>
__device__ inline void load_matrix_sync(fragment<matrix_b, 8, 8, 4, double, L> &b, const double *p, unsigned ldm) {
  unsigned lane = __shflx_wmma_lane();
  b.x[0] = __shflx_at(p, lane >> 3, lane & 7u, ldm, __shflx_is_row_major<L>());
}
__device__ inline void load_matrix_sync(fragment<accumulator, 8, 8, 4, double> &c, const double *p, unsigned ldm,
                                        layout_t l) {
  unsigned lane = __shflx_wmma_lane();
#pragma unroll
  for (int i = 0; i < 2; ++i) c.x[i] = __shflx_at(p, lane >> 2, (lane & 3u) * 2 + i, ldm, l == mem_row_major);
}
__device__ inline void store_matrix_sync(double *p, const fragment<accumulator, 8, 8, 4, double> &c, unsigned ldm,
                                         layout_t l) {
  unsigned lane = __shflx_wmma_lane(), row = lane >> 2;
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    unsigned col = (lane & 3u) * 2 + i;
    p[l == mem_row_major ? (unsigned long long)row * ldm + col : (unsigned long long)col * ldm + row] = c.x[i];
  }
}
template <class LA, class LB>
__device__ inline void mma_sync(fragment<accumulator, 8, 8, 4, double> &d, const fragment<matrix_a, 8, 8, 4, double, LA> &a,
                                const fragment<matrix_b, 8, 8, 4, double, LB> &b,
                                const fragment<accumulator, 8, 8, 4, double> &c) {
  unsigned lane = __shflx_wmma_lane(), row = lane >> 2;
  double sum[2] = {c.x[0], c.x[1]};
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    double ak = __shfl_sync(0xffffffffu, a.x[0], (int)(row * 4 + k));          // a[row][k]
#pragma unroll
    for (int i = 0; i < 2; ++i)                                                 // b[k][col]
      sum[i] = __builtin_fma(ak, __shfl_sync(0xffffffffu, b.x[0], (int)(k * 8 + (lane & 3u) * 2 + i)), sum[i]);
  }
  d.x[0] = sum[0];
  d.x[1] = sum[1];
}
}  // namespace wmma
}  // namespace nvcuda
