"""Inline PTX blocks (CUB style) compiled by `shflx compile` and run on each AMD device (the GPU,
else the emulated targets, see hw_devices.py), compared bit for bit with numpy written from the PTX
ISA: setp with `.and/.or/.xor`, guarded setp, selp, `@!p`, and shfl.sync with its `|p` output
(the forms shflx once miscompiled: `setp.lt.and` dropped its predicate, `@q setp` its guard).

  pytest hw_tests/amd/test_inline_ptx_hw.py        (GPU, else shared/amdemu; skips without both)"""
from __future__ import annotations


import numpy as np
import pytest

from hw_devices import code_object, ROOT, assert_bit_exact, device_params, require  # noqa: F401

N = 128                       # 2 blocks of 64 threads: 4 CUDA warps; 1 or 2 waves per block
M32 = 0xFFFFFFFF

SOURCE = r"""
#define K extern "C" __global__ void
#define I int t = blockIdx.x * blockDim.x + threadIdx.x
#include <vector_types.h>
K setp_and(const int *a, const int *b, int *out) { I; int r;
  asm volatile("{ .reg .pred q, p; setp.gt.s32 q, %1, 0; setp.lt.and.s32 p, %1, %2, q; selp.s32 %0, 1, 0, p; }"
               : "=r"(r) : "r"(a[t]), "r"(b[t])); out[t] = r; }
K setp_or(const int *a, const int *b, int *out) { I; int r;
  asm volatile("{ .reg .pred q, p; setp.eq.s32 q, %2, 0; setp.lt.or.s32 p, %1, 0, q; selp.s32 %0, 7, 9, p; }"
               : "=r"(r) : "r"(a[t]), "r"(b[t])); out[t] = r; }
K setp_xor(const int *a, const int *b, int *out) { I; int r;
  asm volatile("{ .reg .pred q, p, n; setp.ge.u32 q, %2, 2; setp.ne.xor.s32 p|n, %1, %2, q; selp.s32 %0, 1, 0, p; "
               "@n add.s32 %0, %0, 2; }" : "=r"(r) : "r"(a[t]), "r"(b[t])); out[t] = r; }
K guarded_setp(const int *a, const int *b, int *out) { I; int r;
  asm volatile("{ .reg .pred q, p; setp.gt.s32 q, %1, 0; @q setp.lt.s32 p, %1, %2; @!q setp.eq.s32 p, %1, %2; "
               "selp.s32 %0, 1, 0, p; }" : "=r"(r) : "r"(a[t]), "r"(b[t])); out[t] = r; }
K guarded_keep(const int *a, const int *b, int *out) { I; int r;
  asm volatile("{ .reg .pred q, p; setp.ne.s32 p, %2, 0; setp.gt.s32 q, %1, 0; @q setp.lt.s32 p, %1, 3; "
               "selp.s32 %0, 5, 6, p; }" : "=r"(r) : "r"(a[t]), "r"(b[t])); out[t] = r; }
K selp_not_p(const int *a, const int *b, int *out) { I; int r;
  asm volatile("{ .reg .pred p; .reg .s32 s; setp.lo.u32 p, %1, %2; selp.s32 s, %1, %2, p; @!p sub.s32 s, s, 1; "
               "mov.s32 %0, s; }" : "=r"(r) : "r"(a[t]), "r"(b[t])); out[t] = r; }
__device__ unsigned reduce_step(unsigned v, int offset, int last) { unsigned r;
  asm volatile("{ .reg .u32 r0; .reg .pred p; shfl.sync.down.b32 r0|p, %1, %2, %3, %4; @p add.u32 r0, r0, %1; "
               "mov.u32 %0, r0; }" : "=r"(r) : "r"(v), "r"(offset), "r"(last), "r"(0xffffffff)); return r; }
K cub_reduce_partial(const unsigned *a, const int *b, unsigned *out) { I; unsigned v = a[t];
  for (int s = 1; s < 32; s *= 2) v = reduce_step(v, s, 20); out[t] = v; }
__device__ int scan_step(int v, int offset) { int r;
  asm volatile("{ .reg .s32 r0; .reg .pred p; shfl.sync.up.b32 r0|p, %1, %2, %3, %4; @p add.s32 r0, r0, %1; "
               "mov.s32 %0, r0; }" : "=r"(r) : "r"(v), "r"(offset), "r"(0), "r"(0xffffffff)); return r; }
K cub_scan_up(const int *a, const int *b, int *out) { I; int v = a[t];
  for (int s = 1; s < 32; s *= 2) v = scan_step(v, s); out[t] = v; }
K idx_segment_not_p(const unsigned *a, const int *b, unsigned *out) { I; unsigned r;
  asm volatile("{ .reg .u32 r0, l; .reg .pred p; mov.u32 l, %%laneid; shfl.sync.idx.b32 r0|p, %1, %2, 0x1807, -1; "
               "@!p xor.b32 r0, l, 0x5000; mov.u32 %0, r0; }" : "=r"(r) : "r"(a[t]), "r"(b[t])); out[t] = r; }
K f32_reduce_step(const float *a, const int *b, float *out) { I; float r;
  asm volatile("{ .reg .f32 r0; .reg .pred p; shfl.sync.down.b32 r0|p, %1, %2, %3, %4; @p add.f32 r0, r0, %1; "
               "mov.f32 %0, r0; }" : "=r"(r) : "r"(a[t]), "r"(3), "r"(31), "r"(0xffffffff)); out[t] = r; }
K u64_shuffle_down(const long long *a, const int *b, long long *out) { I; long long r;
  asm volatile("{ .reg .u32 lo, hi; mov.b64 {lo, hi}, %1; shfl.sync.down.b32 lo, lo, %2, 31, -1; "
               "shfl.sync.down.b32 hi, hi, %2, 31, -1; mov.b64 %0, {lo, hi}; }" : "=r"(r) : "r"(a[t]), "r"(5));
  out[t] = r; }
// the same steps with nvcc's typed constraints ("=f"/"f", "=l"/"l", "=d"/"d"), as CUB writes them
K f32_reduce_step_f(const float *a, const int *b, float *out) { I; float r;
  asm volatile("{ .reg .f32 r0; .reg .pred p; shfl.sync.down.b32 r0|p, %1, %2, %3, %5; @p add.f32 r0, r0, %4; "
               "mov.f32 %0, r0; }" : "=f"(r) : "f"(a[t]), "r"(3), "r"(31), "f"(a[t]), "r"(0xffffffff)); out[t] = r; }
K u64_shuffle_down_l(const long long *a, const int *b, long long *out) { I; long long r;
  asm volatile("{ .reg .u32 lo, hi; mov.b64 {lo, hi}, %1; shfl.sync.down.b32 lo, lo, %2, 31, -1; "
               "shfl.sync.down.b32 hi, hi, %2, 31, -1; mov.b64 %0, {lo, hi}; }" : "=l"(r) : "l"(a[t]), "r"(5));
  out[t] = r; }
K f64_shuffle_down_d(const double *a, const int *b, double *out) { I; double r;
  asm volatile("{ .reg .u32 lo, hi; mov.b64 {lo, hi}, %1; shfl.sync.down.b32 lo, lo, %2, 31, -1; "
               "shfl.sync.down.b32 hi, hi, %2, 31, -1; mov.b64 %0, {lo, hi}; }" : "=d"(r) : "d"(a[t]), "r"(5));
  out[t] = r; }
// DeepSpeed's memory_access_utils.h forms: vector and guarded global loads, cp.async with a
// src-size (zero fill), shared vector loads, streaming vector stores
K memory_ops(const unsigned *a, const int *b, unsigned *out) { I;
  uint4 v;
  asm volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];\n" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(a + 4 * t));
  unsigned w;
  asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %2, 0;\n\tmov.b32 %0, 7;\n\t@p ld.global.u32 %0, [%1+4];\n}\n"
               : "=r"(w) : "l"(a + 4 * t), "r"(b[t] & 1));
  __shared__ unsigned sm[64 * 4];
  unsigned addr = (unsigned)__cvta_generic_to_shared(sm + 4 * threadIdx.x);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" :: "r"(addr), "l"(a + 4 * t), "r"(b[t] & 15));
  asm volatile("cp.async.wait_all;\n" ::);
  __syncthreads();
  asm volatile("st.global.cs.v2.u32 [%0], {%1, %2};\n" :: "l"(out + 8 * t), "r"(v.x + v.y + v.z + v.w), "r"(w));
  unsigned s0, s1, s2, s3;
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];\n" : "=r"(s0), "=r"(s1), "=r"(s2), "=r"(s3) : "r"(addr));
  unsigned h; int g;                  // 16-bit loads into 32-bit registers: .u16 zero-, .s16 sign-extends
  asm volatile("ld.global.u16 %0, [%1];\n" : "=r"(h) : "l"(a + 4 * t));
  asm volatile("ld.global.s16 %0, [%1+2];\n" : "=r"(g) : "l"(a + 4 * t));
  out[8 * t + 2] = s0; out[8 * t + 3] = s1; out[8 * t + 4] = s2; out[8 * t + 5] = s3; out[8 * t + 6] = h;
  out[8 * t + 7] = (unsigned)g;
}
// libcu++'s cp.async (cuda/__memcpy_async/cp_async_shared_global.h): cp-size and src-size both the
// "n" operand; then a 16-byte copy with a run-time src-size (zero fill). Word 1 is never written.
template <int N> __device__ void cp_n(unsigned dst, const unsigned *src) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %2;" :: "r"(dst), "l"(src), "n"(N) : "memory"); }
K cp_async_n(const unsigned *a, const int *b, unsigned *out) { I;
  __shared__ unsigned sm[64 * 8];
  unsigned *mine = sm + 8 * threadIdx.x;
  for (int k = 0; k < 8; ++k) mine[k] = 0xdeadbeefu;
  unsigned dst = (unsigned)__cvta_generic_to_shared(mine);
  cp_n<4>(dst, a + 8 * t);
  cp_n<8>(dst + 8, a + 8 * t + 2);
  asm volatile("cp.async.cg.shared.global [%0], [%1], %2, %3;" :: "r"(dst + 16), "l"(a + 8 * t + 4), "n"(16),
               "r"(b[t] & 15) : "memory");
  asm volatile("cp.async.wait_group %0;" :: "n"(0) : "memory");
  __syncthreads();
  for (int k = 0; k < 8; ++k) out[8 * t + k] = mine[k]; }
// TensorRT's instanceNormCommon.h forms: float <-> half with cvt and "h" operands, packed by mov.b32
K half_cvt(const float *a, const int *b, unsigned *out) { I; unsigned short lo, hi, l2, h2; unsigned packed; float back;
  asm volatile("cvt.rn.f16.f32 %0, %1;" : "=h"(lo) : "f"(a[t]));
  asm volatile("cvt.rn.f16.f32 %0, %1;" : "=h"(hi) : "f"(a[t ^ 1]));
  asm volatile("mov.b32 %0, {%1, %2};" : "=r"(packed) : "h"(lo), "h"(hi));
  asm volatile("mov.b32 {%0, %1}, %2;" : "=h"(l2), "=h"(h2) : "r"(packed));
  asm volatile("cvt.f32.f16 %0, %1;" : "=f"(back) : "h"(h2));
  out[2 * t] = packed; out[2 * t + 1] = __float_as_uint(back) ^ l2; }
// CUB's ThreadExit (a block-uniform exit), libcu++'s backoff sleep and its clock (%globaltimer):
// block 1 ends before its second store; the timer reads are in order, in nanoseconds (10 a tick)
// cvta (PTX ISA 9.7.9.17) as the 32-bit shared addresses of hand-written GEMMs are made: generic ->
// .shared, stored through with st.shared, back to generic; .global both ways is the identity
K cvta_round_trip(const int *a, const int *b, int *out) { I; __shared__ int s[64]; unsigned addr, mine;
  unsigned long long g, gl;
  asm("{ .reg .u64 u; cvta.to.shared.u64 u, %1; cvt.u32.u64 %0, u; }" : "=r"(addr) : "l"(s + (threadIdx.x ^ 1)));
  asm volatile("st.shared.u32 [%0], %1;" :: "r"(addr), "r"(a[t]));
  __syncthreads();
  asm("{ .reg .u64 u; cvta.to.shared.u64 u, %1; cvt.u32.u64 %0, u; }" : "=r"(mine) : "l"(s + threadIdx.x));
  asm("cvta.shared.u64 %0, %1;" : "=l"(g) : "l"((unsigned long long)mine));
  asm("{ .reg .u64 u; cvta.to.global.u64 u, %1; cvta.global.u64 %0, u; }" : "=l"(gl) : "l"(b + t));
  out[t] = *(int *)g + 2 * *(const int *)gl + (mine == (unsigned)__cvta_generic_to_shared(s + threadIdx.x)); }
// lop3 (PTX ISA "Logic and Shift Instructions: lop3"), as ethminer's keccak chi step writes it:
// 0xD2 is a ^ (~b & c); 0x96 is a ^ b ^ c; the operands are neighbouring threads' words
K lop3_chi(const unsigned *a, const int *b, unsigned *out) { I; unsigned x = a[t], y = a[t ^ 1], z = a[t ^ 2], r, s;
  asm("lop3.b32 %0, %1, %2, %3, 0xD2;" : "=r"(r) : "r"(x), "r"(y), "r"(z));
  asm("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(s) : "r"(r), "r"(y), "r"((unsigned)b[t]));
  out[t] = s; }
// the scalar video instructions, bfind and slct as nvdiffrast's cudaraster (Util.inl) and ccminer's
// JH write them; x, y, z are neighbouring threads' words, n a small shift amount
K video_ops(const unsigned *a, const int *b, unsigned *out) { I; unsigned x = a[t], y = a[t ^ 1], z = a[t ^ 2], n = b[t] & 63, r[6];
  asm("vmin.s32.s32.s32.min %0, %1, %2, %3;" : "=r"(r[0]) : "r"(x), "r"(y), "r"(z));
  asm("vadd.s32.s32.s32 %0, %1.h1, %2.h0;" : "=r"(r[1]) : "r"(x), "r"(y));
  asm("vadd.u32.s32.s32.sat.min %0, %1, %2, %3;" : "=r"(r[2]) : "r"(x), "r"(y), "r"(z));
  asm("vshl.u32.u32.u32.clamp.add %0, %1, %2, %3;" : "=r"(r[3]) : "r"(x), "r"(n), "r"(z));
  asm("bfind.u32 %0, %1;" : "=r"(r[4]) : "r"(x >> (n & 31)));
  asm("slct.s32.s32 %0, %1, %2, %3;" : "=r"(r[5]) : "r"(x), "r"(y), "r"(z));
  for (int k = 0; k < 6; ++k) out[6 * t + k] = r[k]; }
K ptx_exit(const int *a, const int *b, int *out) { I; out[t] = -1;
  if (blockIdx.x == 1) asm volatile("exit;");
  out[t] = a[t]; }
K ptx_nanosleep(const int *a, const int *b, int *out) { I;
  asm volatile("nanosleep.u32 %0;" :: "r"(b[t] & 1023));
  out[t] = a[t]; }
K ptx_prefetch(const int *a, const int *b, int *out) { I;
  asm volatile("prefetch.global.L2 [%0];" :: "l"(a + t) : "memory");
  asm volatile("prefetchu.L1 [%0];" :: "l"(b + t));
  out[t] = a[t] - b[t]; }
K ptx_cache_policy(const int *a, const int *b, int *out) { I; unsigned long long pol; int v;
  __shared__ int4 s[64]; unsigned smem = (unsigned)__cvta_generic_to_shared(&s[threadIdx.x]);
  asm volatile("{ .reg .b64 p; createpolicy.fractional.L2::evict_first.b64 p, 1.0; "
               "cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, p; }" :: "r"(smem), "l"(a + 4 * (t / 4)));
  asm volatile("cp.async.wait_all;" ::: "memory");
  asm volatile("createpolicy.fractional.L2::evict_last.L2::evict_unchanged.b64 %0, 0.5;" : "=l"(pol));
  asm volatile("ld.global.L2::cache_hint.b32 %0, [%1], %2;" : "=r"(v) : "l"(b + t), "l"(pol));
  out[t] = s[threadIdx.x].x - 3 * s[threadIdx.x].w + v + (int)pol; }
K ptx_globaltimer(const int *a, const int *b, int *out) { I; unsigned long long t0, t1; unsigned hi;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
  asm volatile("mov.u32 %0, %%globaltimer_hi;" : "=r"(hi));
  out[t] = a[t] + (t1 >= t0) + 2 * (t0 % 10 == 0) + 4 * (hi >= (unsigned)(t0 >> 32)); }
"""


def _memory_ops(a, b):
    """PTX ISA ld/st/cp.async: per thread t, words a[4t..4t+3]; cp.async copies src-size = b & 15
    bytes and zero-fills the rest of its 16; ld.u16 zero-extends, ld.s16 sign-extends."""
    out = np.zeros((N, 8), np.uint64)
    words = a.reshape(N, 4).astype(np.uint64)
    out[:, 0] = words.sum(axis=1) & M32
    out[:, 1] = np.where(b & 1, words[:, 1], 7)
    raw = a.reshape(N, 4).copy().view(np.uint8).reshape(N, 16)
    keep = np.arange(16)[None, :] < (b & 15)[:, None]
    out[:, 2:6] = np.where(keep, raw, 0).astype(np.uint8).view(np.uint32).reshape(N, 4)
    out[:, 6] = words[:, 0] & 0xFFFF
    out[:, 7] = (words[:, 0] >> 16).astype(np.uint16).view(np.int16).astype(np.int64) & M32
    return out.reshape(-1)


def _cp_async_n(a, b):
    """PTX ISA 8.7, 9.7.9.25 cp.async: cp-size bytes reach dst; with src-size, the first src-size come
    from src and the rest are zeros. Per thread t: words 0 and 2-3 copied, 1 untouched (0xdeadbeef),
    4-7 copied up to byte b & 15 and zero after."""
    words = a.reshape(N, 8).copy()
    out = words.copy()
    out[:, 1] = 0xDEADBEEF
    raw = words[:, 4:8].copy().view(np.uint8).reshape(N, 16)
    keep = np.arange(16)[None, :] < (b & 15)[:, None]
    out[:, 4:8] = np.where(keep, raw, 0).astype(np.uint8).view(np.uint32).reshape(N, 4)
    return out.reshape(-1)


def _half_cvt(a, b):
    """cvt.rn.f16.f32 rounds to nearest even (numpy's float32 -> float16), cvt.f32.f16 is exact;
    mov.b32 {lo, hi} packs lo in the low half (PTX ISA, mov / cvt)."""
    lo = a.astype(np.float16).view(np.uint16).astype(np.uint32)
    h = a[np.arange(N) ^ 1].astype(np.float16)
    packed = lo | (h.view(np.uint16).astype(np.uint32) << 16)
    back = h.astype(np.float32).view(np.uint32) ^ lo
    return np.stack([packed, back], axis=1).reshape(-1).view(np.float32)


def _half_inputs(r):
    """Normal halves, halfway cases (rounding), overflow to infinity, zeros and infinities."""
    x = (r.standard_normal(N) * 2.0 ** r.integers(-12, 15, N)).astype(np.float32)
    x[:8] = [0.0, -0.0, np.inf, -np.inf, 65520.0, -70000.0, 1.0 + 2.0 ** -11, 1.0 + 3 * 2.0 ** -11]
    return x, _small(r)


def _video_ops(a, b):
    """PTX ISA "Scalar Video Instructions", bfind, slct, per thread t with x = a[t], y = a[t^1],
    z = a[t^2], n = b & 63 (Python ints: the 33/34-bit intermediates are exact)."""
    s = lambda v: v - (1 << 32) if v >> 31 else v          # noqa: E731
    h = lambda v, k: s(((v >> (16 * k)) & 0xFFFF) << 16) >> 16    # noqa: E731
    out = []
    for t in range(N):
        x, y, z, n = int(a[t]), int(a[t ^ 1]), int(a[t ^ 2]), int(b[t]) & 63
        sat = max(0, min(M32, s(x) + s(y)))
        w = x >> (n & 31)
        out += [min(s(x), s(y), s(z)) & M32, (h(x, 1) + h(y, 0)) & M32, min(sat, z),
                ((x << min(n, 32)) + z) & M32, w.bit_length() - 1 if w else M32, x if not z >> 31 else y]
    return np.array(out, np.uint64).astype(np.uint32)


def _lanes():
    return np.arange(N) % 32


def _shfl_src(mode: str, b, c):
    """PTX ISA shfl.sync: (source lane, p) per thread, b and c per thread (spec §2.2 pseudocode)."""
    lane = _lanes()
    b, c = np.broadcast_to(b, (N,)) & 31, np.broadcast_to(c, (N,))
    seg = (c >> 8) & 31
    max_lane = (lane & seg) | (c & 31 & ~seg)
    j = {"up": lane - b, "down": lane + b, "bfly": lane ^ b, "idx": (lane & seg) | (b & ~seg)}[mode]
    p = j >= max_lane if mode == "up" else j <= max_lane
    src = np.where(p, j, lane)
    return np.arange(N) - lane + src, p


def _reduce_partial(a, b):
    v = a.astype(np.int64)
    for s in (1, 2, 4, 8, 16):
        src, p = _shfl_src("down", s, 20)
        v = np.where(p, v[src] + v, v) & M32
    return v


def _scan_up(a, b):
    v = a.astype(np.int64)
    for s in (1, 2, 4, 8, 16):
        src, p = _shfl_src("up", s, 0)
        v = np.where(p, v[src] + v, v)
    return v


def _idx_segment(a, b):
    src, p = _shfl_src("idx", b, 0x1807)
    return np.where(p, a[src], _lanes() ^ 0x5000)


def _f32_step(a, b):
    src, p = _shfl_src("down", 3, 31)
    return np.where(p, a[src] + a, a).astype(np.float32)


def _u64_down(a, b):
    src, _ = _shfl_src("down", 5, 31)
    return a[src]


def _small(rng):
    return rng.integers(-4, 5, N).astype(np.int32)


SIGNED = lambda f: lambda a, b: f(a.astype(np.int64), b.astype(np.int64))  # noqa: E731
U = lambda x: x.astype(np.int64) & M32  # noqa: E731
CASES = {   # kernel: (inputs from rng, expected from the inputs)
    "setp_and": (lambda r: (_small(r) * 30, _small(r) * 30), SIGNED(lambda a, b: (a > 0) & (a < b))),
    "setp_or": (lambda r: (_small(r), _small(r)), SIGNED(lambda a, b: np.where((a < 0) | (b == 0), 7, 9))),
    "setp_xor": (lambda r: (_small(r), _small(r)),
                 SIGNED(lambda a, b: ((a != b) ^ (U(b) >= 2)) + 2 * ((a == b) ^ (U(b) >= 2)))),
    "guarded_setp": (lambda r: (_small(r), _small(r)), SIGNED(lambda a, b: np.where(a > 0, a < b, a == b))),
    "guarded_keep": (lambda r: (_small(r), _small(r)), SIGNED(lambda a, b: np.where(np.where(a > 0, a < 3, b != 0), 5, 6))),
    "selp_not_p": (lambda r: (_small(r), _small(r)), SIGNED(lambda a, b: np.where(U(a) < U(b), a, b - 1))),
    "cub_reduce_partial": (lambda r: (r.integers(0, 1 << 32, N, dtype=np.uint64).astype(np.uint32), _small(r)),
                           _reduce_partial),
    "cub_scan_up": (lambda r: (r.integers(-1000, 1000, N).astype(np.int32), _small(r)), SIGNED(_scan_up)),
    "idx_segment_not_p": (lambda r: (r.integers(0, 1 << 32, N, dtype=np.uint64).astype(np.uint32),
                                     r.integers(0, 32, N).astype(np.int32)), _idx_segment),
    "f32_reduce_step": (lambda r: (r.standard_normal(N).astype(np.float32), _small(r)), _f32_step),
    "u64_shuffle_down": (lambda r: (r.integers(-(1 << 62), 1 << 62, N).astype(np.int64), _small(r)), _u64_down),
    "f32_reduce_step_f": (lambda r: (r.standard_normal(N).astype(np.float32), _small(r)), _f32_step),
    "u64_shuffle_down_l": (lambda r: (r.integers(-(1 << 62), 1 << 62, N).astype(np.int64), _small(r)), _u64_down),
    "f64_shuffle_down_d": (lambda r: (r.standard_normal(N), _small(r)), _u64_down),
    "half_cvt": (_half_inputs, _half_cvt),
    "cvta_round_trip": (lambda r: (r.integers(-1000, 1000, N).astype(np.int32), _small(r)),
                        lambda a, b: a[np.arange(N) ^ 1] + 2 * b + 1),
    "lop3_chi": (lambda r: (r.integers(0, 1 << 32, N, dtype=np.uint64).astype(np.uint32), r.integers(0, 1 << 31, N).astype(np.int32)),
                 lambda a, b: (a ^ (~a[np.arange(N) ^ 1] & a[np.arange(N) ^ 2])) ^ a[np.arange(N) ^ 1] ^ b.astype(np.uint32)),
    "video_ops": (lambda r: (r.integers(0, 1 << 32, N, dtype=np.uint64).astype(np.uint32), r.integers(0, 1 << 20, N).astype(np.int32)),
                  _video_ops),
    "ptx_exit": (lambda r: (r.integers(-1000, 1000, N).astype(np.int32), _small(r)),
                 lambda a, b: np.where(np.arange(N) // 64 == 1, -1, a)),
    "ptx_nanosleep": (lambda r: (r.integers(-1000, 1000, N).astype(np.int32), _small(r)), lambda a, b: a),
    "ptx_prefetch": (lambda r: (r.integers(-1000, 1000, N).astype(np.int32), _small(r)), lambda a, b: a - b),
    "ptx_cache_policy": (lambda r: (r.integers(-1000, 1000, N).astype(np.int32), _small(r)),
                         lambda a, b: a[4 * (np.arange(N) // 4)] - 3 * a[4 * (np.arange(N) // 4) + 3] + b),
    "ptx_globaltimer": (lambda r: (r.integers(-1000, 1000, N).astype(np.int32), _small(r)), lambda a, b: a + 7),
    "cp_async_n": (lambda r: (r.integers(0, 1 << 32, 8 * N, dtype=np.uint64).astype(np.uint32),
                              r.integers(0, 1 << 20, N).astype(np.int32)), _cp_async_n),
    "memory_ops": (lambda r: (r.integers(0, 1 << 32, 4 * N, dtype=np.uint64).astype(np.uint32),
                              r.integers(0, 1 << 20, N).astype(np.int32)), _memory_ops),
}


def _cases(device):
    for kernel in sorted(CASES):
        for baseline in (False, True):
            yield f"{kernel}-{'baseline' if baseline else 'shflx'}", (kernel, baseline), ()




@pytest.mark.parametrize("device,case", device_params(_cases))
def test_inline_ptx_kernel_matches_numpy(device, case, tmp_path_factory):
    require(device)
    kernel, baseline = case
    hsaco = code_object(SOURCE, "inline_ptx.cu", device.arch, str(tmp_path_factory.getbasetemp()), baseline=baseline)
    make, expect = CASES[kernel]
    ins = make(np.random.default_rng(sum(map(ord, kernel))))
    dtype = ins[0].dtype
    want = np.asarray(expect(*ins))
    want = want.astype(dtype) if dtype.kind == "f" else \
        (want.astype(np.int64) & ((1 << 32) - 1 if dtype.itemsize == 4 else -1)).astype(np.uint64).astype(dtype)
    got = device.run_kernel(hsaco, kernel, list(ins), want.size, dtype, block=(64, 1, 1), grid=(N // 64, 1, 1))
    assert_bit_exact(np.asarray(got), want, f"{kernel} ({'baseline' if baseline else 'shflx'}, {device.arch})")
