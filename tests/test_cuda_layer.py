"""The CUDA layer for AMD (shflx/frontend/include): CUDA's vector and 16-bit float types keep
CUDA's names, layouts and C++ mangling (host code finds kernels by nvcc's symbol names), <cmath>'s
float overloads reach the device math, and what the layer lacks is named. Values are checked on
the emulator in hw_tests/amd/test_cuda_*_hw.py."""
from __future__ import annotations

import re

import pytest

from shflx.driver.amd import compile_file
from shflx.errors import InputError

LAYOUT = r"""
#include <vector_types.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
// sizes and alignments of CUDA 12's vector_types.h / cuda_fp16.h / cuda_bf16.h
static_assert(sizeof(char1) == 1 && alignof(char2) == 2 && sizeof(char3) == 3 && alignof(char4) == 4, "");
static_assert(alignof(short2) == 4 && sizeof(short3) == 6 && alignof(short4) == 8, "");
static_assert(alignof(int2) == 8 && sizeof(int3) == 12 && alignof(int3) == 4 && alignof(uint4) == 16, "");
static_assert(alignof(long2) == 16 && alignof(ulong4) == 16 && alignof(longlong2) == 16, "");
static_assert(alignof(float2) == 8 && sizeof(float3) == 12 && alignof(float4) == 16, "");
static_assert(alignof(double2) == 16 && sizeof(double3) == 24 && alignof(double4) == 16, "");
static_assert(sizeof(__half) == 2 && alignof(__half) == 2 && sizeof(__half2) == 4 && alignof(__half2) == 4, "");
static_assert(sizeof(__nv_bfloat162) == 4 && alignof(__nv_bfloat162) == 4, "");
__global__ void k(float4 *a, const uint4 *b, double2 *c, uchar4 *d, __half *h, half2 *h2, __nv_bfloat16 *g,
                  nv_bfloat162 *g2) {
  uint3 t = threadIdx; dim3 n = blockDim;
  a[t.x] = make_float4(b[0].x, 2, 3, (float)n.x); c[0] = make_double2(1.0, 2.0); d[0] = make_uchar4(1, 2, 3, 4);
  h[0] = __float2half(1.0f) + h[1]; h2[0] = __halves2half2(h[0], h[1]) * h2[1];
  g[0] = __float2bfloat16(__half2float(h[0])); g2[0] = make_bfloat162(g[0], g[1]);
}
"""


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_vector_and_16bit_types_keep_cuda_layouts_and_nvcc_mangling(tmp_path, arch):
    src = tmp_path / "k.cu"
    src.write_text(LAYOUT)
    ir = compile_file(src, arch, emit="llvm").output
    # nvcc's name for k (cu++filt: k(float4*, uint4 const*, double2*, uchar4*, __half*, __half2*,
    # __nv_bfloat16*, __nv_bfloat162*)); `half2`/`nv_bfloat162` are typedefs, so they mangle as the class
    assert "@_Z1kP6float4PK5uint4P7double2P6uchar4P6__halfP7__half2P13__nv_bfloat16P14__nv_bfloat162(" in ir


def test_cmath_float_overloads_reach_the_device_math(tmp_path):
    src = tmp_path / "k.cu"
    src.write_text("#include <cmath>\n__global__ void k(float *p) { float x = p[0];\n"
                   "  p[1] = std::exp(x) + std::log(x) + std::pow(x, 2.0f) + std::sin(x) + std::tanh(x) + std::erf(x); }\n")
    ir = compile_file(src, "gfx942", emit="llvm").output
    # every function is defined in the module (no call left to a host library function)
    assert not re.search(r"^declare .*@(exp|log|pow|sin|tanh|erf)f?\(", ir, flags=re.M)


def test_a_double_transcendental_is_named_with_its_line(tmp_path):
    src = tmp_path / "k.cu"
    src.write_text("__global__ void k(double *p) {\n  p[0] = sin(p[1]);\n}\n")
    with pytest.raises(InputError) as e:
        compile_file(src, "gfx942")
    assert f"{src}:2:" in str(e.value) and "sin(double)" in str(e.value) and "shflx does not support 'sin(double)' on AMD targets" in str(e.value)


@pytest.mark.parametrize("arch, counter", [("gfx942", "s_memtime"), ("gfx1030", "s_memtime"),
                                           ("gfx1100", "s_sendmsg_rtn_b64"), ("gfx1200", "HW_REG_SHADER_CYCLES_HI")])
def test_clock64_reads_the_targets_64_bit_counter(tmp_path, arch, counter):
    """clock64/clock (CUB's examples time their kernels with them): s_memtime up to GFX10, the
    REALTIME message on GFX11 (its cycle counter has 20 bits), GFX12's 64-bit SHADER_CYCLES."""
    src = tmp_path / "k.cu"
    src.write_text("__global__ void k(long long *p) { long long t = clock64(); p[0] = t; p[1] = clock(); }\n")
    asm = compile_file(src, arch, emit="asm").output
    assert counter in asm


def test_nanosleep_grid_constant_and_device_placement_new_compile(tmp_path):
    src = tmp_path / "k.cu"
    src.write_text("struct P { int v; __device__ P(int x) : v(x + 1) {} };\n"
                   "__global__ void k(const __grid_constant__ int n, int *p) {\n"
                   "  __nanosleep(200);\n  alignas(P) char buf[sizeof(P)];\n  P *q = new (buf) P(n);\n"
                   "  p[threadIdx.x] = q->v;\n}\n")
    asm = compile_file(src, "gfx942", emit="asm").output
    assert "s_sleep 1" in asm
