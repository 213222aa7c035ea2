"""NaN, the infinities and out-of-range values converted to integers on each AMD device (the GPU,
else the emulator), against an H200's output for the same kernel (hw_tests/nvidia/nan_conversions.cu,
nvcc 13.0, sm_90 and sm_80 alike): CUDA's float/double/half/bfloat16 -> integer intrinsics and
cvt.rzi/rni in inline PTX. NaN is 0 from float and the 16-bit formats to 32 bits and less, but the
destination's sign bit from double to 32 bits and from anything to 64 bits.

  pytest hw_tests/amd/test_cuda_nan_conversions_hw.py"""
from __future__ import annotations

import re

import numpy as np
import pytest

from hw_devices import ROOT, code_object, device_params, require

PROGRAM = (ROOT / "hw_tests" / "nvidia" / "nan_conversions.cu").read_text()
SOURCE = "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n" + \
    re.search(r"// kernel begin\n(.*)// kernel end", PROGRAM, re.S).group(1)
INPUTS = np.array([np.nan, -np.nan, np.inf, -np.inf, -1.5, 3e9], dtype=np.float32)
# the H200's output, one line per input (./nan_conversions)
H200 = """
nan: 8000000000000000 8000000000000000 0 0 8000000000000000 8000000000000000 80000000 80000000 8000000000000000 8000000000000000 80000000 0 8000000000000000 8000000000000000 0 0 0 0 8000000000000000 8000000000000000 0 0 8000000000000000 8000000000000000
-nan: 8000000000000000 8000000000000000 0 0 8000000000000000 8000000000000000 80000000 80000000 8000000000000000 8000000000000000 80000000 0 8000000000000000 8000000000000000 0 0 0 0 8000000000000000 8000000000000000 0 0 8000000000000000 8000000000000000
inf: ffffffffffffffff 7fffffffffffffff ffffffff 7fffffff ffffffffffffffff 7fffffffffffffff ffffffff 7fffffff ffffffffffffffff 7fffffffffffffff ffffffff 7fffffff ffffffffffffffff 7fffffffffffffff ffffffff 7fffffff ffff 7fff ffffffffffffffff 7fffffffffffffff ffffffff 7fffffff ffffffffffffffff ffffffffffffffff
-inf: 0 8000000000000000 0 80000000 0 8000000000000000 0 80000000 0 8000000000000000 0 80000000 0 8000000000000000 0 80000000 0 8000 0 8000000000000000 0 80000000 0 0
-1.5: 0 ffffffffffffffff 0 ffffffff 0 ffffffffffffffff 0 ffffffff 0 ffffffffffffffff 0 ffffffff 0 ffffffffffffffff 0 ffffffff 0 ffff 0 ffffffffffffffff 0 ffffffff 0 0
3e+09: b2d05e00 b2d05e00 b2d05e00 7fffffff b2d05e00 b2d05e00 b2d05e00 7fffffff b2d05e00 b2d05e00 b2d05e00 7fffffff ffffffffffffffff 7fffffffffffffff ffffffff 7fffffff ffff 7fff b3000000 b3000000 b3000000 7fffffff b2d05e00 b2d05e00
"""
NAMES = ["__float2ull_rz", "__float2ll_rz", "__float2uint_rz", "__float2int_rz", "__double2ull_rz", "__double2ll_rz",
         "__double2uint_rz", "__double2int_rz", "cvt.rzi.u64.f32", "cvt.rzi.s64.f32", "cvt.rni.u32.f64",
         "cvt.rzi.s32.f32", "__half2ull_rz", "__half2ll_rz", "__half2uint_rz", "__half2int_rz", "__half2ushort_rz",
         "__half2short_rz", "__bfloat162ull_rz", "__bfloat162ll_rz", "__bfloat162uint_rz", "__bfloat162int_rz",
         "__float2ull_rn", "__double2ull_rn"]


def _want() -> np.ndarray:
    rows = [line.split(": ")[1].split() for line in H200.strip().splitlines()]
    assert len(rows) == len(INPUTS) and all(len(r) == len(NAMES) for r in rows)
    return np.array([[int(v, 16) for v in r] for r in rows], dtype=np.uint64)


def _cases(device):
    yield "conversions", None, ()


@pytest.mark.parametrize("device,case", device_params(_cases))
def test_nan_and_out_of_range_conversions_match_an_h200(device, case, tmp_path_factory):
    require(device)
    hsaco = code_object(SOURCE, "nan_conversions.cu", device.arch, str(tmp_path_factory.getbasetemp()))
    got = np.asarray(device.run_kernel(hsaco, "conversions", [INPUTS], len(INPUTS) * len(NAMES), np.uint64,
                                       block=(1, 1, 1), grid=(len(INPUTS), 1, 1)))
    got, want = got.reshape(len(INPUTS), len(NAMES)), _want()
    wrong = [f"{NAMES[j]}({INPUTS[k]}) = {got[k, j]:x}, H200 {want[k, j]:x}"
             for k in range(len(INPUTS)) for j in range(len(NAMES)) if got[k, j] != want[k, j]]
    assert not wrong, f"{device.arch}: " + "; ".join(wrong)
