"""CUDA device functions the AMD layer provides for NVIDIA's declarations that it once lacked
(crt/device_functions.h, math_functions.h, sm_20/30/32_intrinsics.h): SIMD averages, sums of
absolute differences and comparisons, clamped funnel shifts, __uni_sync, double -> float in the
directed roundings, and math functions from NVIDIA's libdevice; run on each AMD device (the GPU,
else the emulator) against an H200's output for the same kernels (hw_tests/nvidia/device_api_values.cu,
nvcc 13.0, sm_90): the integer functions bit for bit, the math within 2 ulps (MATH_KINDS).

  pytest hw_tests/amd/test_cuda_device_api_hw.py"""
from __future__ import annotations

import re

import numpy as np
import pytest

from hw_devices import ROOT, code_object, device_params, require

PROGRAM = (ROOT / "hw_tests" / "nvidia" / "device_api_values.cu").read_text()
KERNELS = re.search(r"// kernel begin\n(.*)// kernel end", PROGRAM, re.S).group(1)
SOURCES = {"integer_api": KERNELS[:KERNELS.index("#define N_MATH")],          # each kernel compiled alone
           "math_api": "#include <cmath>\n" + KERNELS[KERNELS.index("#define N_MATH"):]}
N_INTEGER, N_MATH = (int(re.search(rf"#define {n} (\d+)", PROGRAM).group(1)) for n in ("N_INTEGER", "N_MATH"))
# the H200's output (./device_api_values): "i A B:" rows of integer_api, "m X:" rows of math_api
H200 = """
i 00000000 00000000: 0 0 0 0 0 0 10001 1010101 0 0 10001 1010101 10001 1010101 0 0 0 0 10001 1010101 10001 1010101 0 0 0 0 0 0 1 bf000000 bf000000 bf000000
i ffffffff 00000001: ffff0000 ffffff00 3 5 1fffd 3fb 0 0 10001 1010101 0 0 10001 1010101 0 0 10001 1010101 10001 1010101 0 0 10001 1010101 0 0 1 ffffffff 1 4a83126d 4a83126e 4a83126d
i 80007fff 7fff8000: ffffffff ffffffff 1fffe 200 2 200 0 0 10001 1010101 1 10100 10000 1000001 1 10100 10000 1000001 10000 1000001 1 10100 10000 1000001 1 10100 40003fff ffff0001 1 beff7cec beff7cec beff7ced
i 7f80017f 807f7f81: ffff4080 ffff4000 17d03 37a 7f01 82 0 0 10001 1010101 10000 1000001 0 10000 10000 1000001 0 10000 1 10100 10001 1000101 1 10100 10001 1000101 7f80017f 807f7f81 1 beff7df2 beff7df2 beff7df3
i 12345678 87654321: cccc4ccd cc4d4d4d 9e26 126 8888 110 0 0 10001 1010101 10001 1000101 1 101 10001 1000101 1 101 0 10000 10000 1010000 0 10000 10000 1010000 12345678 87654321 1 beffee60 beffee60 beffee61
i deadbeef 0badf00d: f52dd77e f4add7fe 5e1e 7d 1041e 1e7 0 10000 10001 1000101 0 10000 10000 1010001 0 0 10000 1000001 10001 1010101 1 10100 10001 1000101 1 100 2eb7c037 77ab6fbb 1 bef63cff bef63cff bef63d00
i 01ff7f80 fe0180ff: 40 ff00ffbf 1027f 183 fd81 27b 0 0 10001 1010101 10001 1000100 0 10000 10001 1000100 0 10000 0 10001 10001 1000101 0 10001 10001 1000101 1ff7f80 fe0180ff 1 befffef8 befffef8 befffef9
i 8000ffff 24000001: d2000000 d200ff00 a402 a7 15bfe 259 0 10000 10001 1000101 0 10000 10001 1010101 0 0 10001 1000101 10001 1010101 0 10000 10001 1000101 0 0 300 c0007f 1 befe2df3 befe2df3 befe2df4
m 0x0p+0: 7fffffff 0 0 3f800000 0 3f800000 80000000 3f800001 0 7fffffff ff800000 ff800000 0 0 0 0 4066c15a 3e8e00d5 3f000000 0 0 0 0 3f800000 0 3ff0000000000000 0 0 80000000 fff8000000000000 fff0000000000000 0 0 0 400cd82b446159f4 3fd19507ecf5b9e9 0 0 3ff0000000000000 0
m -0x0p+0: 7fffffff 80000000 80000000 3f800000 80000000 3f800000 80000000 3f800001 80000000 7fffffff ff800000 ff800000 0 0 80000000 80000000 4066c15a 3e8e00d5 3f000000 80000000 0 80000000 80000000 3f800000 80000000 3ff0000000000000 8000000000000000 0 80000000 fff8000000000000 fff0000000000000 0 8000000000000000 8000000000000000 400cd82b446159f4 3fd19507ecf5b9e9 8000000000000000 0 3ff0000000000000 8000000000000000
m 0x1.4p+0: 3f317218 3f861787 7fffffff 3fb71999 3f415a20 3ebc5349 0 3f255a1a 3f02b836 3d170347 3e843501 c04ef7ca 1 1 3e800000 3f800000 40743aba 3e862b3f 3ed9166b be199998 2 41200000 bf3504f3 bf3504f3 3ed55555 3ff6e3332a890fa0 3fe4000000000000 1 0 3fa2e068dde7f417 bfe2b31c35470a4a 1 3fd0000000000000 3ff0000000000000 400e87573f6c42c6 3fd0a10549cddf4c bfc3333333333330 2 bff6a09e667f3bcc 3fdaaaaaaaaaaaab
m -0x1.4p+1: 7fffffff bfd2d879 7fffffff 40528cb9 c02111e1 44817a13 1 bd462e11 befe831f be5dcc7d 7fffffff 7fffffff fffffffffffffffe fffffffffffffffd bf000000 c0000000 408c6641 3e696429 3e9fec04 3e999998 fffffffc c1a00000 bf800000 0 bf555555 400a51972f665e07 bfe4000000000000 2 1 bfcbb98fc5e82abd fff8000000000000 fffffffffffffffe bfe0000000000000 c000000000000000 40118cc821d6d3e3 3fccfc7da32a9213 3fd3333333333330 fffffffc bff0000000000000 bfeaaaaaaaaaaaab
m 0x1.8p-1: 7fffffff 3f317218 3f791396 3f92a48e 3ecdd1f5 3f01c6ab ffffffff 3f5d3efd 3eb2d00f 3c0b0215 be0c7703 c14fcdb2 1 1 3f400000 0 406bb1d9 3e8b06fd 3eefb344 3d4cccd0 1 40c00000 3f3504f3 bf3504f3 3e800000 3ff25491b74777d6 3fe8000000000000 0 ffffffff 3f816042aaa332d9 bff099fcbe60fd83 1 3fe8000000000000 0 400d763b20d435ef 3fd1386dad1cc065 3fa99999999999a0 1 bca0000000000000 3fd0000000000000
m 0x1.ep+2: 402d0763 402d9908 7fffffff 438614a5 4379959b 3d98ba18 2 3e885dad 3e0a7e91 be842090 3df041f4 3e238a62 8 8 3f000000 40e00000 41052583 3df61ad4 3e03ec5c be4cccc4 3 42700000 bf800000 0 40200000 4070c294bb62234e 3fee000000000000 3 2 bfd08411eba2acf7 bfd0958fbf7ff0a3 8 3fe0000000000000 401c000000000000 4020a4b06be193b9 3fbeb52d18b3d366 bfc9999999999988 3 bff0000000000000 4004000000000000
m 0x1.4484bfeebc2ap-100: 7fffffff da24260 da24260 3f800000 d224260 3f800000 ffffff9c 3f800001 d224260 7fffffff c2303325 ff800000 0 0 da24260 0 4066c15a 3e8e00d5 3f000000 da24260 0 f224260 e7ee054 3f800000 cd85880 3ff0000000000000 3fe4484bfeebc2a0 ffffff9d ffffff9c 2ce5ba775b76bdec c620120f1108d0df 0 39b4484bfeebc2a0 0 400cd82b446159f4 3fd19507ecf5b9e9 39b4484bfeebc2a0 0 3ff0000000000000 399b0b0ffe8fae2b
m 0x1.7e43c8800759cp+996: 7f800000 7f800000 7fffffff 7f800000 7f800000 0 7fffffff 0 0 0 0 0 7fffffffffffffff 7fffffffffffffff 0 7f800000 7f800000 0 0 7fffffff 0 7f800000 7fffffff 7fffffff 7f800000 7ff0000000000000 3fe7e43c8800759c 3e5 3e4 209ca97b6c950f6e 20c495b8404efb4c 7fffffffffffffff 0 7e37e43c8800759c 7e37e43c8800759c 1a56e1fc2f8f358 bfd48a5860d35af8 2 3ff0000000000000 7e1fdafb60009cd0
m -0x1.ff7ced916872bp-1: 7fffffff bf617359 c073369a 3fa1fbf1 bf108059 409fee63 ffffffff 3f4400d3 bee123ad bc9fcd8c 7fffffff 7fffffff ffffffffffffffff ffffffffffffffff bf7fbe77 80000000 406f72f0 3e88d8f8 3ee504e6 be991688 ffffffff c0ffbe77 bb4de26a bf7fffad beaa7efa 3ff43f7e0c889493 bfeff7ced916872b 0 ffffffff bf93f9b1685471ab fff8000000000000 ffffffffffffffff bfeff7ced916872b 8000000000000000 400dee5e02ddc06b 3fd0f48836b4d014 bfd322d0e560418a ffffffff bff00cd904cb6767 bfd54fdf3b645a1d
m 0x1.0a66666666666p+5: 408659f1 40865da2 7fffffff 55924c64 559015b0 3c8abb46 5 3d81b7c5 3dfdab6d be05b5ec 3dfbb19d 3d3d9f74 21 21 3e999980 42040000 4205fa7f 3cf49399 3cf59042 be9999a0 0 43853333 bf4f1ba5 bf167939 41319999 42b2498d4fed8e06 3fe0a66666666666 6 5 bfc0b6bd6d5354a0 bfaf7d05d247b1a4 21 3fd3333333333300 4040800000000000 4040bf4feb44622a 3f9e9193db01e3eb bfd3333333333340 0 bff6594d5006a78c 4026333333333333
m inf: 7f800000 7f800000 7fffffff 7f800000 7f800000 0 7fffffff 0 0 0 0 0 7fffffffffffffff 7fffffffffffffff 0 7f800000 7f800000 0 0 7fffffff 0 7f800000 7fffffff 7fffffff 7f800000 7ff0000000000000 7ff0000000000000 0 7fffffff 0 0 7fffffffffffffff 0 7ff0000000000000 7ff0000000000000 0 fff8000000000000 0 fff8000000000000 7ff0000000000000
m -inf: 7fffffff ff800000 7fffffff 7f800000 ff800000 7f800000 7fffffff 0 80000000 0 7fffffff 7fffffff 8000000000000000 8000000000000000 80000000 ff800000 7f800000 0 0 7fffffff 0 ff800000 7fffffff 7fffffff ff800000 7ff0000000000000 fff0000000000000 0 7fffffff 0 fff8000000000000 8000000000000000 8000000000000000 fff0000000000000 7ff0000000000000 0 fff8000000000000 0 fff8000000000000 fff0000000000000
m nan: 7fffffff 7fffffff 7fffffff 7fffffff 7fffffff 7fffffff 80000000 7fffffff 7fffffff 7fffffff 7fffffff 7fffffff 8000000000000000 8000000000000000 7fffffff 7fffffff 7fffffff 7fffffff 7fffffff 7fffffff 0 7fffffff 7fffffff 7fffffff 7fffffff 7ff8000000000000 7ff8000000000000 0 80000000 7ff8000000000000 7fffffff00000000 8000000000000000 7ff8000000000000 7ff8000000000000 7ff8000000000000 7ff8000000000000 7ff8000000000000 0 7ff8000000000000 7ff8000000000000
"""


# math_api's outputs: f (float bits), d (double bits), i (an integer: exact). libdevice's functions are
# NVIDIA's algorithms, but the `.approx` instructions some start from are AMD's on AMD (v_rcp, v_rsq:
# docs/cuda-layer.md), so a float result may differ from the H200's in the last bits, and a NaN's
# payload (the H200 writes 0x7fffffff) is the AMD instruction's
MATH_KINDS = "ffffff" "i" "fffff" "ii" "ffffff" "i" "ffff" "dd" "ii" "dd" "i" "ddddd" "i" "dd"
ULPS = 2


def _close(got: int, want: int, kind: str) -> bool:
    """Integers exactly; floats within ULPS of each other (adjacent floats are adjacent in the
    sign-magnitude order of their bits), any NaN equal to any NaN."""
    if kind == "i":
        return got == want
    width = 32 if kind == "f" else 64
    exponent = ((1 << (width - 1)) - 1) ^ ((1 << (23 if kind == "f" else 52)) - 1)

    def nan(v: int) -> bool:
        return v & exponent == exponent and v & ((1 << (23 if kind == "f" else 52)) - 1) != 0

    def order(v: int) -> int:
        magnitude = v & ((1 << (width - 1)) - 1)
        return -magnitude if v >> (width - 1) & 1 else magnitude

    got, want = got & ((1 << width) - 1), want & ((1 << width) - 1)
    if nan(got) or nan(want):
        return nan(got) and nan(want)
    return abs(order(got) - order(want)) <= ULPS


def _rows(kind: str) -> list[tuple[str, list[int]]]:
    rows = [line[2:].split(": ") for line in H200.strip().splitlines() if line.startswith(kind + " ")]
    return [(head, [int(v, 16) for v in values.split()]) for head, values in rows]


def _cases(device):
    yield "integer_api", "integer_api", ()
    yield "math_api", "math_api", ()


@pytest.mark.parametrize("device,case", device_params(_cases))
def test_device_functions_match_an_h200(device, case, tmp_path_factory):
    require(device)
    hsaco = code_object(SOURCES[case], f"{case}.cu", device.arch, str(tmp_path_factory.getbasetemp()))
    if case == "integer_api":
        rows, width, dtype = _rows("i"), N_INTEGER, np.uint32
        heads = [head.split() for head, _ in rows]
        args = [np.array([int(h[0], 16) for h in heads], dtype=np.uint32),
                np.array([int(h[1], 16) for h in heads], dtype=np.uint32)]
    else:
        rows, width, dtype = _rows("m"), N_MATH, np.uint64
        args = [np.array([float.fromhex(head) if head not in ("inf", "-inf", "nan") else float(head)
                          for head, _ in rows], dtype=np.float64)]
    assert rows and all(len(values) == width for _, values in rows)
    got = np.asarray(device.run_kernel(hsaco, case, args, len(rows) * width, dtype,
                                       block=(1, 1, 1), grid=(len(rows), 1, 1))).reshape(len(rows), width)
    kinds = MATH_KINDS if case == "math_api" else "i" * width
    assert len(kinds) == width
    wrong = [f"{case}[{j}]({head}) = {int(got[k, j]):x}, H200 {values[j]:x}"
             for k, (head, values) in enumerate(rows) for j in range(width) if not _close(int(got[k, j]), values[j], kinds[j])]
    assert not wrong, f"{device.arch}: {len(wrong)} differ: " + "; ".join(wrong[:40])
