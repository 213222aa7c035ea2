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


CONTRACTION = r"""
#include <cuda_fp16.h>
__global__ void f32(const float *a, const float *b, float *c) {   // product and sum in two statements
  float p = a[threadIdx.x] * b[threadIdx.x];
  c[threadIdx.x] = p + c[threadIdx.x];
}
__global__ void f16(const __half2 *a, const __half2 *b, __half2 *c) { c[threadIdx.x] = a[threadIdx.x] * b[threadIdx.x] + c[threadIdx.x]; }
__global__ void f16rn(const __half *a, const __half *b, __half *c) { c[threadIdx.x] = __hadd(__hmul_rn(a[threadIdx.x], b[threadIdx.x]), c[threadIdx.x]); }
"""


def _kernel_asm(asm: str, name: str) -> str:
    return asm.split(f"{name}:", 1)[1].split("s_endpgm", 1)[0]


@pytest.mark.parametrize("extra,fused", [((), True), (("-ffp-contract=fast",), True), (("-ffp-contract=on",), False),
                                         (("-ffp-contract=off",), False)])
def test_products_feeding_sums_fuse_as_nvcc_fuses_them(tmp_path, extra, fused):
    """nvcc's default (-fmad=true) contracts a product and a sum into one fma across statements, and
    cuda_fp16.hpp's mul.f16x2/add.f16x2 with them; __hmul_rn never contracts. The math header's
    contraction-off region (included before the user's code) must not leak into it."""
    from shflx.frontend.clang import FrontendOptions
    src = tmp_path / "k.cu"
    src.write_text(CONTRACTION)
    asm = compile_file(src, "gfx942", emit="asm", opts=FrontendOptions(extra=extra)).output
    f32, f16, f16rn = (_kernel_asm(asm, n) for n in ("_Z3f32PKfS0_Pf", "_Z3f16PK7__half2S1_PS_", "_Z5f16rnPK6__halfS1_PS_"))
    assert bool(re.search(r"v_(fma|fmac)_f32", f32)) == fused and bool(re.search(r"v_mul_f32", f32)) != fused
    assert bool(re.search(r"v_(pk_)?fma_f16", f16)) == fused
    assert re.search(r"v_mul_f16", f16rn) and not re.search(r"v_(pk_)?fma_f16", f16rn)


PUNNING = r"""
#include <cuda_fp16.h>
// DeepSpeed's mem_access::load_global/store_global: a __half buffer read and written as uint4
__global__ void scale(const __half *in, __half *out) {
  __half buf[8];
  uint4 *data = reinterpret_cast<uint4 *>(buf);
  asm volatile("ld.global.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(data[0].x), "=r"(data[0].y), "=r"(data[0].z),
               "=r"(data[0].w) : "l"(in + 8 * threadIdx.x));
  for (int j = 0; j < 8; j++) buf[j] = __float2half(__half2float(buf[j]) * 2.0f);
  asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};" :: "l"(out + 8 * threadIdx.x), "r"(data[0].x),
               "r"(data[0].y), "r"(data[0].z), "r"(data[0].w) : "memory");
}
"""


@pytest.mark.parametrize("extra,computes", [((), True), (("-fstrict-aliasing",), False)])
def test_memory_written_as_one_type_and_read_as_another_is_read_as_written(tmp_path, extra, computes):
    """As nvcc's builds do: without -fstrict-aliasing the uint4 read sees the __half stores (with
    it, clang may forward the first uint4 store past them and the kernel copies its input)."""
    from shflx.frontend.clang import FrontendOptions
    src = tmp_path / "k.cu"
    src.write_text(PUNNING)
    asm = compile_file(src, "gfx942", emit="asm", opts=FrontendOptions(extra=extra)).output
    body = _kernel_asm(asm, "_Z5scalePK6__halfPS_")
    assert bool(re.search(r"v_(pk_)?(mul|add|fma)_f(16|32)|v_cvt_f32_f16", body)) == computes


@pytest.mark.parametrize("extra,computes", [((), True), (("-fstrict-aliasing",), False)])
def test_sm90_builds_read_memory_as_written_too(tmp_path, extra, computes):
    """The same for --offload-arch sm_90 against NVIDIA's headers (clang's CUDA driver mode), whose
    strict aliasing made DeepSpeed's float sub-block layer norms NaN on an H100."""
    from shflx.driver.nvidia import compile_cuda
    from shflx.frontend.clang import FrontendOptions
    src = tmp_path / "k.cu"
    src.write_text(PUNNING)
    ptx = compile_cuda(src, "sm_90", emit="ptx", opts=FrontendOptions(extra=extra)).output
    body = ptx.split(".entry _Z5scalePK6__halfPS_", 1)[1].split(".entry", 1)[0]
    assert bool(re.search(r"mul(\.rn)?\.f32|cvt\.f32\.f16", body)) == computes
