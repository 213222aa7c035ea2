"""Device printf (ROCm's buffered printf, shflx_cuda.h's __printf_alloc) on each AMD device.

On a GPU the HIP runtime gives the kernel a printf buffer (the code object's amdhsa.printf
metadata asks for one) and prints the records after the kernel: every thread's line appears on
stdout and printf returns 0. The emulator passes no printf buffer (a 0 hidden argument,
shared/amdemu/README.md), so there __printf_alloc reserves nothing, nothing is printed and printf
returns -1: the kernel runs on, with its other results intact.

  pytest hw_tests/amd/test_cuda_printf_hw.py"""
from __future__ import annotations

import numpy as np
import pytest

from hw_devices import assert_bit_exact, code_object, device_params, require, selected

SOURCE = r"""
extern "C" __global__ void hello(const int *in, int *out) {
  int t = threadIdx.x;
  int r = printf("shflx printf: thread %d value %d half %f\n", t, in[t], 0.5 * in[t]);
  out[t] = in[t] * 3 + (r << 16);
}
"""


def _cases(device):
    yield "hello", "hello", ()


@pytest.mark.parametrize("device,case", device_params(_cases))
def test_device_printf_prints_on_a_gpu_and_keeps_the_kernel_running(device, case, tmp_path_factory, capfd):
    require(device)
    hsaco = code_object(SOURCE, "printf.cu", device.arch, str(tmp_path_factory.getbasetemp()))
    v = np.arange(64, dtype=np.int32) * 7 - 100
    got = np.asarray(device.run_kernel(hsaco, "hello", [v], 64, np.int32, block=(64, 1, 1), grid=(1, 1, 1)))
    printed = capfd.readouterr().out
    if selected().kind == "emulator":             # no printf buffer: printf returns -1, prints nothing
        assert_bit_exact(got, (v * 3 + (-1 << 16)).astype(np.int32), f"printf without a buffer ({device.arch})")
        assert "shflx printf" not in printed
        return
    assert_bit_exact(got, (v * 3).astype(np.int32), f"printf's return value ({device.arch})")
    lines = sorted(ln for ln in printed.splitlines() if ln.startswith("shflx printf"))
    want = sorted(f"shflx printf: thread {t} value {int(v[t])} half {0.5 * int(v[t]):f}" for t in range(64))
    assert lines == want
