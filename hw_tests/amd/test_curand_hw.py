"""NVIDIA's cuRAND device API (curand_kernel.h, header-only) read as it is on AMD: the XORWOW
generator that curand_init/curand/curand_uniform define gives NVIDIA's sequence, bit for bit,
against a numpy transcription of the header's recurrence (curand_kernel.h: _curand_init_scratch,
curand(curandStateXORWOW_t *); curand_uniform.h: _curand_uniform), and curand_init's offset
(skipahead through NVIDIA's precalculated matrices, curand_precalc.h) lands where stepping does."""
from __future__ import annotations

import numpy as np
import pytest

from hw_devices import code_object, device_params, require

SOURCE = r"""
#include <curand_kernel.h>
extern "C" __global__ void xorwow(const unsigned *seed, unsigned *out, int which) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  curandState s;
  curand_init(seed[i], 0, which >= 3 ? 1000 : 0, &s);
  unsigned a = curand(&s), b = curand(&s);
  float u = curand_uniform(&s);
  curandState t;
  curand_init(seed[i], 0, 1, &t);                  // one step ahead: its first value is b
  out[i] = which == 0 ? a : which == 1 ? b : which == 2 ? curand(&t) : which == 3 ? a : __float_as_uint(u);
}
"""
N = 256
M32 = 0xFFFFFFFF


def _xorwow(seed: int, count: int) -> list[int]:
    """curand_init(seed, 0, 0) then `count` curand() values (curand_kernel.h's recurrence)."""
    s0, s1 = (seed & M32) ^ 0xAAD26B49, (seed >> 32) ^ 0xF7DCEFDD
    t0, t1 = (1099087573 * s0) & M32, (2591861531 * s1) & M32
    d = (6615241 + t1 + t0) & M32
    v = [(123456789 + t0) & M32, 362436069 ^ t0, (521288629 + t1) & M32, 88675123 ^ t1, (5783321 + t0) & M32]
    out = []
    for _ in range(count):
        t = v[0] ^ (v[0] >> 2)
        v = v[1:] + [((v[4] ^ (v[4] << 4)) ^ (t ^ (t << 1))) & M32]
        d = (d + 362437) & M32
        out.append((v[4] + d) & M32)
    return out


def _uniform(x: int) -> np.float32:
    return np.float32(np.float32(x) * np.float32(2.0 ** -32) + np.float32(2.0 ** -33))


def _cases(device):
    for which in range(5):
        yield ("first", "second", "offset-1", "offset-1000", "uniform")[which], which, ()


@pytest.mark.parametrize("device,which", device_params(_cases))
def test_xorwow_gives_nvidias_sequence(device, which, tmp_path_factory):
    require(device)
    from shflx.frontend.cuda_sdk import package_dir
    curand = package_dir("nvidia.curand")
    if curand is None or not (curand / "include" / "curand_kernel.h").is_file():
        pytest.skip("NVIDIA's cuRAND headers are not installed (pip install nvidia-curand-cu12)")
    seeds = np.random.default_rng(7).integers(0, 1 << 32, N, dtype=np.uint64).astype(np.uint32)
    hsaco = code_object(SOURCE, "curand.cu", device.arch, str(tmp_path_factory.getbasetemp()))
    got = np.asarray(device.run_kernel(hsaco, "xorwow", [seeds], N, np.uint32, block=(64, 1, 1),
                                       grid=(N // 64, 1, 1), scalars=[which]))
    seqs = [_xorwow(int(s), 1003) for s in seeds]
    want = {0: [q[0] for q in seqs], 1: [q[1] for q in seqs], 2: [q[1] for q in seqs],
            3: [q[1000] for q in seqs],
            4: [int(_uniform(q[1002]).view(np.uint32)) for q in seqs]}[which]     # offset 1000, third value
    assert got.tolist() == want, f"{device.arch}: first difference at thread {int(np.argmax(got != np.array(want, dtype=np.uint32)))}"
