"""PTX's extended-precision instructions in inline asm on each AMD device (the GPU, else the
emulator): add.cc / addc / sub.cc / subc / mad.lo.cc / madc.hi, 32- and 64-bit, the carry flag
passed from one asm statement to the next as bignum code writes it (BitCrack, VanitySearch) and
inside one block; and the other word instructions such code uses: mul.hi / mad.hi (u64, s32, u32),
brev / popc / clz on 64 bits. Checked against Python integers: the multi-word sums and differences
as numbers, each instruction as PTX ISA 9.7.1-9.7.2 defines it.

  pytest hw_tests/amd/test_inline_ptx_carry_hw.py"""
from __future__ import annotations

import numpy as np
import pytest

from hw_devices import code_object, device_params, require

SOURCE = r"""
extern "C" __global__ void carry(const unsigned *x, unsigned *o) {
  const unsigned *a = x + 8 * threadIdx.x, *b = a + 4;
  unsigned *r = o + 28 * threadIdx.x;
  unsigned s0, s1, s2, s3, s4, d0, d1, d2, d3, d4, m0, m1, m2, k0, k1;
  asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(s0) : "r"(a[0]), "r"(b[0]));      // a + b, 128 bits
  asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(s1) : "r"(a[1]), "r"(b[1]));
  asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(s2) : "r"(a[2]), "r"(b[2]));
  asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(s3) : "r"(a[3]), "r"(b[3]));
  asm volatile("addc.u32 %0, 0, 0;" : "=r"(s4));
  asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(d0) : "r"(a[0]), "r"(b[0]));      // a - b, 128 bits
  asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(d1) : "r"(a[1]), "r"(b[1]));
  asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(d2) : "r"(a[2]), "r"(b[2]));
  asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(d3) : "r"(a[3]), "r"(b[3]));
  asm volatile("subc.u32 %0, 0, 0;" : "=r"(d4));
  asm volatile("mad.lo.cc.u32 %0, %1, %2, %3;" : "=r"(m0) : "r"(a[0]), "r"(b[0]), "r"(b[2]));
  asm volatile("madc.hi.cc.u32 %0, %1, %2, %3;" : "=r"(m1) : "r"(a[0]), "r"(b[0]), "r"(b[3]));
  asm volatile("madc.lo.u32 %0, %1, %2, %3;" : "=r"(m2) : "r"(a[1]), "r"(b[1]), "r"(a[2]));
  asm("{ add.cc.u32 %0, %2, %3; addc.u32 %1, %4, %5; }"                              // one block
      : "=r"(k0), "=r"(k1) : "r"(a[3]), "r"(b[3]), "r"(a[1]), "r"(b[2]));
  unsigned long long w0, w1, wa0 = ((unsigned long long)a[1] << 32) | a[0], wb0 = ((unsigned long long)b[1] << 32) | b[0],
                     wa1 = ((unsigned long long)a[3] << 32) | a[2], wb1 = ((unsigned long long)b[3] << 32) | b[2];
  asm volatile("add.cc.u64 %0, %1, %2;" : "=l"(w0) : "l"(wa0), "l"(wb0));         // a + b in 64-bit words
  asm volatile("addc.u64 %0, %1, %2;" : "=l"(w1) : "l"(wa1), "l"(wb1));
  unsigned long long h, bv, sh = wb1 >> (a[0] & 63);
  unsigned hs, hm, pc, lz;
  asm("mul.hi.u64 %0, %1, %2;" : "=l"(h) : "l"(wa0), "l"(wb0));
  asm("mul.hi.s32 %0, %1, %2;" : "=r"(hs) : "r"(a[0]), "r"(b[0]));
  asm("mad.hi.u32 %0, %1, %2, %3;" : "=r"(hm) : "r"(a[1]), "r"(b[1]), "r"(a[2]));
  asm("brev.b64 %0, %1;" : "=l"(bv) : "l"(wa1));
  asm("popc.b64 %0, %1;" : "=r"(pc) : "l"(wa0));
  asm("clz.b64 %0, %1;" : "=r"(lz) : "l"(sh));
  unsigned v[28] = {s0, s1, s2, s3, s4, d0, d1, d2, d3, d4, m0, m1, m2, k0, k1,
                    (unsigned)w0, (unsigned)(w0 >> 32), (unsigned)w1, (unsigned)(w1 >> 32),
                    (unsigned)h, (unsigned)(h >> 32), hs, hm, (unsigned)bv, (unsigned)(bv >> 32), pc, lz, 0};
  for (int k = 0; k < 28; ++k) r[k] = v[k];
}
"""
THREADS = 64
WORDS = 28
M32 = (1 << 32) - 1


def _inputs() -> np.ndarray:
    rng = np.random.default_rng(29)
    x = rng.integers(0, 1 << 32, size=(THREADS, 8), dtype=np.uint64).astype(np.uint32)
    x[0] = [M32, M32, M32, M32, 1, 0, 0, 0]            # carries through every word
    x[1] = [0, 0, 0, 0, 1, 0, 0, 0]                    # borrows through every word
    x[2] = [M32] * 8
    x[3] = [0] * 8
    return x


def _number(words) -> int:
    return sum(int(w) << (32 * k) for k, w in enumerate(words))


def _expected(a: list[int], b: list[int]) -> list[int]:
    total = _number(a) + _number(b)
    diff = (_number(a) - _number(b)) % (1 << 160)          # the borrow shows in word 4 as all ones
    mad_lo = a[0] * b[0] % (1 << 32) + b[2]                    # mad.lo.cc: carry out of the 32-bit add
    mad_hi = (a[0] * b[0] >> 32) + b[3] + (mad_lo >> 32)      # madc.hi.cc: carry in, carry out
    mad_c = (a[1] * b[1] + a[2] + (mad_hi >> 32)) % (1 << 32)  # madc.lo: carry in
    k = a[3] + b[3]
    wide = (_number(a[:2]) + _number(b[:2]) + ((_number(a[2:4]) + _number(b[2:4])) << 64)) % (1 << 128)
    signed = lambda v: v - (1 << 32) if v >> 31 else v                          # noqa: E731
    high = _number(a[:2]) * _number(b[:2]) >> 64
    rev = int(f"{_number(a[2:4]):064b}"[::-1], 2)
    shifted = _number(b[2:4]) >> (a[0] & 63)
    return [(total >> (32 * j)) & M32 for j in range(5)] + [(diff >> (32 * j)) & M32 for j in range(5)] + \
        [mad_lo & M32, mad_hi & M32, mad_c, k & M32, (a[1] + b[2] + (k >> 32)) & M32] + \
        [(wide >> (32 * j)) & M32 for j in range(4)] + \
        [high & M32, high >> 32, (signed(a[0]) * signed(b[0]) >> 32) & M32, ((a[1] * b[1] >> 32) + a[2]) & M32,
         rev & M32, rev >> 32, bin(_number(a[:2])).count("1"), 64 - shifted.bit_length(), 0]


def _cases(device):
    yield "carry", None, ()


@pytest.mark.parametrize("device,case", device_params(_cases))
def test_carry_chains_across_asm_statements_match_python_integers(device, case, tmp_path_factory):
    require(device)
    x = _inputs()
    hsaco = code_object(SOURCE, "carry.cu", device.arch, str(tmp_path_factory.getbasetemp()))
    got = np.asarray(device.run_kernel(hsaco, "carry", [x.reshape(-1)], THREADS * WORDS, np.uint32,
                                       block=(THREADS, 1, 1))).reshape(THREADS, WORDS)
    wrong = [f"thread {t} word {j}: {int(got[t, j]):x}, want {w:x}"
             for t in range(THREADS) for j, w in enumerate(_expected([int(v) for v in x[t, :4]], [int(v) for v in x[t, 4:]]))
             if int(got[t, j]) != w]
    assert not wrong, f"{device.arch}: {len(wrong)} differ: " + "; ".join(wrong[:20])
