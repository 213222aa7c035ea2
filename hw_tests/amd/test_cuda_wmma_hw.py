"""nvcuda::wmma (shflx's mma.h) on each AMD device (the GPU, else the emulator of shared/amdemu),
against numpy: load_matrix_sync in every layout, mma_sync, element-wise access through x[] and
num_elements, fill_fragment, store_matrix_sync in both memory layouts with a leading dimension
wider than the tile, for half/bf16 -> float, half -> half, int8/uint8 -> int (with and without
satf) and double m8n8k4; the K = 16 shapes m16n16k16, m32n8k16 and m8n32k16. Two CUDA warps per
block, each on its own tiles (one wave64 holds both).

CUDA leaves the order and intermediate precision of a tensor core's sums unspecified, so float
results are checked against the exact (float64) product within the error of 16 float additions;
integer results are exact.

  pytest hw_tests/amd/test_cuda_wmma_hw.py"""
from __future__ import annotations

import numpy as np
import pytest

from hw_devices import assert_bit_exact, code_object, device_params, require

SOURCE = r"""
#include <mma.h>
using namespace nvcuda;
#define LDC 40
template <int M, int N, class LA, class LB, class TI, class TC>
__device__ void gemm16(const TI *a, const TI *b, const TC *c, TC *d, wmma::layout_t lc, int satf) {
  int w = threadIdx.x / 32;
  bool ra = __is_same(LA, wmma::row_major), rb = __is_same(LB, wmma::row_major);
  wmma::fragment<wmma::matrix_a, M, N, 16, TI, LA> fa;
  wmma::fragment<wmma::matrix_b, M, N, 16, TI, LB> fb;
  wmma::fragment<wmma::accumulator, M, N, 16, TC> fc, fd;
  wmma::fill_fragment(fd, 0);
  wmma::load_matrix_sync(fa, a + M * 16 * w, ra ? 16 : M);
  wmma::load_matrix_sync(fb, b + 16 * N * w, rb ? N : 16);
  wmma::load_matrix_sync(fc, c + (lc == wmma::mem_row_major ? M : N) * LDC * w, LDC, lc);
  wmma::mma_sync(fd, fa, fb, fc, satf != 0);
  for (int i = 0; i < fd.num_elements; i++) fd.x[i] = fd.x[i] + fd.x[i];     // element-wise: times 2
  wmma::store_matrix_sync(d + (lc == wmma::mem_row_major ? M : N) * LDC * w, fd, LDC, lc);
}
#define K(name, M, N, LA, LB, TI, TC, LC) extern "C" __global__ void name(const TI *a, const TI *b, const TC *c, \
  TC *d, int satf) { gemm16<M, N, wmma::LA, wmma::LB, TI, TC>(a, b, c, d, wmma::LC, satf); }
K(h_f32_rr, 16, 16, row_major, row_major, __half, float, mem_row_major)
K(h_f32_cc, 16, 16, col_major, col_major, __half, float, mem_col_major)
K(h_f16_rc, 16, 16, row_major, col_major, __half, __half, mem_row_major)
K(bf_f32_cr, 16, 16, col_major, row_major, __nv_bfloat16, float, mem_col_major)
K(s8_i32_rc, 16, 16, row_major, col_major, signed char, int, mem_row_major)
K(u8_i32_cr, 16, 16, col_major, row_major, unsigned char, int, mem_col_major)
K(m32n8_h_f32_rc, 32, 8, row_major, col_major, __half, float, mem_row_major)
K(m32n8_s8_i32_cr, 32, 8, col_major, row_major, signed char, int, mem_col_major)
K(m8n32_h_f16_cr, 8, 32, col_major, row_major, __half, __half, mem_col_major)
K(m8n32_bf_f32_rc, 8, 32, row_major, col_major, __nv_bfloat16, float, mem_row_major)
extern "C" __global__ void f64_rc(const double *a, const double *b, const double *c, double *d, int unused) {
  int w = threadIdx.x / 32;
  wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 8, 8, 4, double> fc;
  wmma::load_matrix_sync(fa, a + 32 * w, 4);
  wmma::load_matrix_sync(fb, b + 32 * w, 4);
  wmma::load_matrix_sync(fc, c + 8 * LDC * w, LDC, wmma::mem_row_major);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(d + 8 * LDC * w, fc, LDC, wmma::mem_row_major);
}
"""
WARPS = 2
LDC = 40
F32_MAX = float(np.finfo(np.float32).max)


def _mat(flat: np.ndarray, rows: int, cols: int, ld: int, row_major: bool) -> np.ndarray:
    """The rows x cols matrix stored in `flat` with leading dimension ld."""
    if row_major:
        return flat.reshape(-1, ld)[:rows, :cols]
    return flat.reshape(-1, ld)[:cols, :rows].T


def _store(m: np.ndarray, ld: int, row_major: bool, fill) -> np.ndarray:
    rows, cols = m.shape
    out = np.full(((rows if row_major else cols), ld), fill, dtype=m.dtype)
    if row_major:
        out[:, :cols] = m
    else:
        out[:, :rows] = m.T
    return out.reshape(-1)


# kernel: (input dtype, accumulator dtype, A row-major, B row-major, C/D row-major, (M, N))
CASES16 = {"h_f32_rr": (np.float16, np.float32, True, True, True, (16, 16)),
           "h_f32_cc": (np.float16, np.float32, False, False, False, (16, 16)),
           "h_f16_rc": (np.float16, np.float16, True, False, True, (16, 16)),
           "bf_f32_cr": ("bf16", np.float32, False, True, False, (16, 16)),
           "s8_i32_rc": (np.int8, np.int32, True, False, True, (16, 16)),
           "u8_i32_cr": (np.uint8, np.int32, False, True, False, (16, 16)),
           "m32n8_h_f32_rc": (np.float16, np.float32, True, False, True, (32, 8)),
           "m32n8_s8_i32_cr": (np.int8, np.int32, False, True, False, (32, 8)),
           "m8n32_h_f16_cr": (np.float16, np.float16, False, True, False, (8, 32)),
           "m8n32_bf_f32_rc": ("bf16", np.float32, True, False, True, (8, 32))}


def _bf16(rng, shape):
    """bfloat16 values (as uint16 bits) and the float64 values they hold."""
    bits = (rng.standard_normal(shape).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    return bits, (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def _inputs16(kernel: str, rng, satf: int):
    ti, tc, ra, rb, rc, (m, n) = CASES16[kernel]
    if ti == "bf16":
        a, a64 = _bf16(rng, WARPS * m * 16)
        b, b64 = _bf16(rng, WARPS * 16 * n)
    elif np.dtype(ti).kind == "f":
        a, b = (rng.standard_normal(WARPS * 16 * k).astype(ti) for k in (m, n))
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
    else:
        info = np.iinfo(ti)
        a, b = (rng.integers(info.min, info.max + 1, WARPS * 16 * k).astype(ti) for k in (m, n))
        a64, b64 = a.astype(np.int64), b.astype(np.int64)
    cs, c64s = [], []
    for w in range(WARPS):
        if np.dtype(tc).kind == "f":
            cm = rng.standard_normal((m, n)).astype(tc)
            if tc == np.float32:            # saturation: +-inf, NaN and a sum past float's range
                cm[0, :4] = [np.inf, -np.inf, np.nan, F32_MAX]
        else:                               # near int's limits: the sum wraps, or saturates with satf
            cm = rng.integers(-1000, 1000, (m, n)).astype(np.int32)
            cm[0, :2] = [2**31 - 5, -2**31 + 5]
        cs.append(_store(cm, LDC, rc, 0))
        c64s.append(cm.astype(np.float64 if np.dtype(tc).kind == "f" else np.int64))
    return (a, b, np.concatenate(cs)), (a64, b64, c64s)


def _want16(kernel: str, a64, b64, c64s, satf: int):
    ti, tc, ra, rb, rc, (m, n) = CASES16[kernel]
    exact, bound = [], []
    for w in range(WARPS):
        am = _mat(a64[m * 16 * w:m * 16 * (w + 1)], m, 16, 16 if ra else m, ra)
        bm = _mat(b64[16 * n * w:16 * n * (w + 1)], 16, n, n if rb else 16, rb)
        cm = c64s[w]
        with np.errstate(invalid="ignore", over="ignore"):
            e = am @ bm + cm
            err = 17 * 2.0 ** -24 * (np.abs(am) @ np.abs(bm) + np.abs(cm))
        if np.dtype(tc).kind == "i":
            e = np.clip(e, -2**31, 2**31 - 1) if satf else (e + 2**31) % 2**32 - 2**31
            e = (2 * e + 2**31) % 2**32 - 2**31                     # x[i] + x[i], in int
        else:
            if satf:
                e = np.where(np.isnan(e), 0.0, np.clip(e, -F32_MAX if tc == np.float32 else -65504.0,
                                                        F32_MAX if tc == np.float32 else 65504.0))
            with np.errstate(over="ignore", invalid="ignore"):      # x[i] + x[i] in the accumulator type
                e = (e.astype(tc) + e.astype(tc)).astype(np.float64)
        exact.append(e)
        bound.append(2 * err)
    return exact, bound


def _cases(device):
    for kernel in sorted(CASES16):
        for satf in ((0, 1) if CASES16[kernel][1] != np.float16 else (0,)):
            yield f"{kernel}-satf{satf}", (kernel, satf), ()
    yield "f64_rc", ("f64_rc", 0), ()


@pytest.mark.parametrize("device,case", device_params(_cases))
def test_wmma_matches_numpy(device, case, tmp_path_factory):
    require(device)
    kernel, satf = case
    hsaco = code_object(SOURCE, "wmma.cu", device.arch, str(tmp_path_factory.getbasetemp()))
    rng = np.random.default_rng(sum(map(ord, kernel)) + satf)
    if kernel == "f64_rc":
        a, b = rng.standard_normal(WARPS * 32), rng.standard_normal(WARPS * 32)
        cm = [rng.standard_normal((8, 8)) for _ in range(WARPS)]
        c = np.concatenate([_store(m, LDC, True, 0.0) for m in cm])
        got = np.asarray(device.run_kernel(hsaco, kernel, [a, b, c], c.size, np.float64, block=(32 * WARPS, 1, 1),
                                           grid=(1, 1, 1), scalars=[0]))
        for w in range(WARPS):
            am, bm = _mat(a[32 * w:32 * (w + 1)], 8, 4, 4, True), _mat(b[32 * w:32 * (w + 1)], 4, 8, 4, False)
            g = _mat(got[8 * LDC * w:8 * LDC * (w + 1)], 8, 8, LDC, True)
            exact = am @ bm + cm[w]
            assert np.all(np.abs(g - exact) <= 5 * 2.0 ** -53 * (np.abs(am) @ np.abs(bm) + np.abs(cm[w]))), (g, exact)
        return
    ins, (a64, b64, c64s) = _inputs16(kernel, rng, satf)
    tc, rc, (m, n) = CASES16[kernel][1], CASES16[kernel][4], CASES16[kernel][5]
    tile = (m if rc else n) * LDC
    got = np.asarray(device.run_kernel(hsaco, kernel, list(ins), ins[2].size, tc, block=(32 * WARPS, 1, 1),
                                       grid=(1, 1, 1), scalars=[satf]))
    exact, bound = _want16(kernel, a64, b64, c64s, satf)
    for w in range(WARPS):
        g = _mat(got[tile * w:tile * (w + 1)], m, n, LDC, rc)
        if np.dtype(tc).kind == "i":
            assert_bit_exact(np.ascontiguousarray(g), exact[w].astype(np.int32), f"{kernel} warp {w} ({device.arch})")
            continue
        g64 = g.astype(np.float64)
        finite = np.isfinite(exact[w])
        assert np.array_equal(np.isnan(g64), np.isnan(exact[w])), f"{kernel}: NaNs where numpy has them"
        assert np.array_equal(g64[~finite & ~np.isnan(exact[w])], exact[w][~finite & ~np.isnan(exact[w])])
        slack = bound[w] + (2.0 ** -10 * np.abs(exact[w]) + 2.0 ** -24 if tc == np.float16 else 0)
        with np.errstate(invalid="ignore"):
            over = np.abs(g64 - exact[w])[finite] > slack[finite]
        assert not over.any(), f"{kernel} warp {w}: {over.sum()} elements off by more than the float error bound"
    # the padding columns of C/D (ldm 40 > N or M) are not written
    pad = got.reshape(-1, LDC)[:, (n if rc else m):]
    assert np.all(pad == 0), "store_matrix_sync wrote outside its tile"
