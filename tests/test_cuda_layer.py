"""The CUDA layer for AMD (shflx/frontend/include): CUDA's vector and 16-bit float types keep
CUDA's names, layouts and C++ mangling (host code finds kernels by nvcc's symbol names), <cmath>'s
float overloads reach the device math, and what the layer lacks is named. Values are checked on
the emulator in hw_tests/amd/test_cuda_*_hw.py."""
from __future__ import annotations

import os
import re

import pytest

from shflx.driver.amd import compile_file
from shflx.errors import InputError, ToolchainError
from shflx.frontend.clang import FrontendOptions
from shflx.frontend.cuda_sdk import amd_header_args

from ci_policy import IN_CI
from conftest import compile_for

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


def test_a_double_transcendental_is_nvidias_libdevice_linked_in(tmp_path):
    """sin(double) calls libdevice's __nv_sin, defined in the module (tests/test_libdevice.py: the
    error without libdevice; hw_tests/amd/test_cuda_libdevice_math_hw.py: the values)."""
    from shflx.frontend.cuda_sdk import libdevice_path
    if libdevice_path() is None:
        pytest.skip("NVIDIA's libdevice is not installed (the nvcc wheel of shflx's cuda extra)")
    src = tmp_path / "k.cu"
    src.write_text("__global__ void k(double *p) {\n  p[0] = sin(p[1]);\n}\n")
    ir = compile_file(src, "gfx942", emit="llvm").output
    assert re.search(r"^define internal double @__nv_sin\(", ir, re.M) and not re.search(r"^declare .*@__nv_", ir, re.M)


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


GRID_SYNC = r"""
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void k(int *a, int *b) {
  cg::grid_group g = cg::this_grid();
  a[g.thread_rank()] = 1;
  g.sync();
  b[g.thread_rank()] = a[(g.thread_rank() + 64) % g.size()] + (int)g.num_blocks() + (int)g.block_rank();
}
"""


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_grid_sync_is_nvidias_barrier_on_a_workspace_of_the_code_object(tmp_path, arch):
    """grid_group::sync() is NVIDIA's own (cooperative_groups/details/sync.h): a block barrier, the
    block's first thread adds to the workspace's barrier word with an agent-scope release RMW
    and spins on an agent-scope acquire load until bit 31 flips, then a block barrier. The
    workspace the driver's %envreg1/%envreg2 name is a hidden, {8, 0}-initialized global of the
    code object (executed on the emulator by hw_tests/amd/test_cuda_grid_sync_hw.py)."""
    src = tmp_path / "k.cu"
    src.write_text(GRID_SYNC)
    ir = compile_file(src, arch, emit="llvm").output
    assert re.search(r"^@__shflx_cg_grid_workspace = linkonce_odr hidden addrspace\(1\) global \{ i32, i32 \} "
                     r"\{ i32 8, i32 0 \}", ir, re.M), "the grid workspace is a hidden global of the code object"
    body = ir[ir.index("define "):]
    order = [r'fence syncscope\("workgroup"\) release', r"@llvm\.amdgcn\.s\.barrier",
             r'atomicrmw add ptr( addrspace\(1\))? .*syncscope\("agent"\) release',
             r'load atomic i32, ptr( addrspace\(1\))? .*syncscope\("agent"\) acquire',
             r"@llvm\.amdgcn\.s\.barrier", r'fence syncscope\("workgroup"\) acquire']
    pos = 0
    for pat in order:
        m = re.compile(pat).search(body, pos)
        assert m, f"{pat!r} after position {pos}"
        pos = m.end()


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_scoped_atomics_have_the_scope_cuda_names(tmp_path, arch):
    """atomicXxx: the device (agent); atomicXxx_block: the block (workgroup); atomicXxx_system:
    the system (LLVM's default scope), all relaxed (CUDA Programming Guide, "Atomic Functions")."""
    src = tmp_path / "k.cu"
    src.write_text("__global__ void k(int *p, double *d, unsigned *u) {\n"
                   "  p[1] = atomicAdd(p, 1) + atomicAdd_block(p + 2, 2) + atomicAdd_system(p + 3, 3);\n"
                   "  d[1] = atomicAdd_system(d, 1.0); u[1] = atomicCAS_system(u, 1u, 2u) + atomicMax_block(u + 2, 5u);\n"
                   "  atomicExch_system((float *)p + 5, 1.0f);\n}\n")
    ir = compile_file(src, arch, emit="llvm").output
    assert re.search(r'atomicrmw add ptr addrspace\(1\) %\S+, i32 1 syncscope\("agent"\) monotonic', ir)
    assert re.search(r'atomicrmw add ptr addrspace\(1\) %\S+, i32 2 syncscope\("workgroup"\) monotonic', ir)
    assert re.search(r"atomicrmw add ptr addrspace\(1\) %\S+, i32 3 monotonic", ir)
    assert re.search(r"atomicrmw fadd ptr addrspace\(1\) %\S+, double 1\.0+e\+00 monotonic", ir)
    assert re.search(r"cmpxchg ptr addrspace\(1\) %\S+, i32 1, i32 2 monotonic monotonic", ir)
    assert re.search(r'atomicrmw umax ptr addrspace\(1\) %\S+, i32 5 syncscope\("workgroup"\) monotonic', ir)
    assert re.search(r"atomicrmw xchg ptr addrspace\(1\) %\S+, (?:float 1\.0+e\+00|i32 1065353216) monotonic", ir)



PROGRAM_ATOMICS = (
    "__device__ inline unsigned long long atomicSub(unsigned long long *a, unsigned long long v) {\n"
    "  return atomicAdd(a, ~v + 1ull); }\n"
    "__device__ inline long long atomicAdd(long long *a, long long v) {\n"
    "  return (long long)atomicAdd((unsigned long long *)a, (unsigned long long)v); }\n"
    "__device__ inline long long atomicExch(long long *a, long long v) {\n"
    "  return (long long)atomicExch((unsigned long long *)a, (unsigned long long)v); }\n"
    "__global__ void k(unsigned long long *u, long long *s, int *i, unsigned *w) {\n"
    "  atomicSub(u, 3ull); atomicAdd(s, -2ll); atomicExch(s + 1, 7ll); atomicSub(i, 5); atomicSub(w, 6u);\n"
    "  atomicMin(s + 2, -9ll); atomicAnd(s + 3, 12ll); }\n")


@pytest.mark.parametrize("arch", ["gfx942", "sm_90"])
def test_a_program_may_define_the_atomics_cuda_lacks(tmp_path, arch):
    """stdgpu defines atomicSub(unsigned long long *) itself: the layer's overloads are NVIDIA's
    (device_atomic_functions.h, sm_32_atomic_functions.h), so atomicSub takes int and unsigned only
    and atomicAdd / atomicExch no long long; the program's own then compile, and CUDA's are still there."""
    src = tmp_path / "k.cu"
    src.write_text(PROGRAM_ATOMICS)
    out = compile_for(src, arch).output             # sm_90: NVIDIA's own headers, where the program is valid
    if arch.startswith("sm_"):
        assert "atom.global.add.u64" in out and "atom.global.exch.b64" in out
        return
    ir = out
    assert re.search(r"atomicrmw add ptr( addrspace\(1\))? %\S+, i64 -3 ", ir)        # the program's atomicSub
    assert re.search(r"atomicrmw add ptr( addrspace\(1\))? %\S+, i64 -2 ", ir) and re.search(r"atomicrmw xchg ptr( addrspace\(1\))? %\S+, i64 7 ", ir)
    assert re.search(r"atomicrmw sub ptr( addrspace\(1\))? %\S+, i32 5 ", ir) and re.search(r"atomicrmw sub ptr( addrspace\(1\))? %\S+, i32 6 ", ir)
    assert re.search(r"atomicrmw min ptr( addrspace\(1\))? %\S+, i64 -9 ", ir) and re.search(r"atomicrmw and ptr( addrspace\(1\))? %\S+, i64 12 ", ir)


def test_the_16_bit_atomic_cas_is_a_cmpxchg_of_its_halfword(tmp_path):
    """atomicCAS(unsigned short *) (compute capability 7.x; candle's __half atomics loop on it): one
    cmpxchg i16 at each scope (values under contention on the emulator: test_cuda_memory_hw.py)."""
    src = tmp_path / "k.cu"
    src.write_text("__global__ void k(unsigned short *h) {\n"
                   "  h[1] = atomicCAS(h, (unsigned short)1, (unsigned short)2) + atomicCAS_block(h + 2, h[3], h[4]); }\n")
    ir = compile_file(src, "gfx942", emit="llvm").output
    assert re.search(r'cmpxchg ptr addrspace\(1\) %\S+, i16 1, i16 2 syncscope\("agent"\) monotonic monotonic', ir)
    assert re.search(r'cmpxchg ptr addrspace\(1\) %\S+, i16 %\S+, i16 %\S+ syncscope\("workgroup"\) monotonic', ir)


CUBLAS_HOST = """#include <cublas_v2.h>
__global__ void k(float *p) { p[threadIdx.x] = 1.0f; }
int gemm(cublasHandle_t h, const float *a, float *c, cudaStream_t s) {
  const float one = 1.0f;
  if (cublasSetStream(h, s) != CUBLAS_STATUS_SUCCESS) return 1;
  return cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, 4, 4, 4, &one, a, 4, a, 4, &one, c, 4) +
         cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, a, CUDA_R_32F, 4, a, CUDA_R_32F, 4, &one, c,
                      CUDA_R_32F, 4, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT) +
         // before CUDA 11 the compute type was a cudaDataType; cublas_api.h keeps a C++ overload for it
         // (NVIDIA's parallel-forall simpleTensorCoreGEMM.cu)
         cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, &one, a, CUDA_R_32F, 4, a, CUDA_R_32F, 4, &one, c,
                      CUDA_R_32F, 4, CUDA_R_32F, CUBLAS_GEMM_DEFAULT);
}
"""


@pytest.mark.parametrize("wheel", [True, False])
def test_host_code_calling_cublas_compiles_with_or_without_its_wheel(tmp_path, monkeypatch, wheel):
    """NVIDIA's cublas_v2.h where nvidia-cublas-cu12 is installed, else shflx's declarations of the
    common part; a cuBLAS name beyond them is named, with the way to get all of it."""
    import shflx.frontend.clang as clang
    if not wheel:
        monkeypatch.setattr(clang, "amd_header_args", lambda: ())
    elif "-idirafter" not in clang.amd_header_args():
        pytest.skip("nvidia-cublas-cu12 is not installed (581 MB, not part of shflx[cuda])")
    src = tmp_path / "k.cu"
    src.write_text(CUBLAS_HOST)
    assert "@_Z1kPf(" in compile_file(src, "gfx942", emit="llvm").output
    if wheel:
        return
    src.write_text(CUBLAS_HOST.replace("return 1;", "return cublasZtrsm(h);"))
    with pytest.raises(InputError) as e:
        compile_file(src, "gfx942")
    assert re.search(r"k\.cu:5:\d+: error: shflx does not support 'cublasZtrsm' on AMD targets \(shflx declares only "
                     r"the common part of cuBLAS's host API .*nvidia-cublas-cu12", str(e.value))


def test_cucomplex_is_nvidias_header_beneath_the_layer(tmp_path):
    """cuComplex.h is header-only: NVIDIA's own, from the runtime wheel, read as it is (the depfile
    names it), over NVIDIA's vector types (cuFloatComplex is float2)."""
    from shflx.frontend.cuda_sdk import runtime_include
    src = tmp_path / "k.cu"
    src.write_text("#include <cuComplex.h>\n__global__ void k(cuFloatComplex *z, float *r) {\n"
                   "  z[0] = cuCmulf(z[1], cuConjf(z[2])); r[0] = cuCabsf(z[3]) + cuCrealf(cuCdivf(z[4], z[5])); }\n")
    deps = tmp_path / "k.d"
    ir = compile_file(src, "gfx942", emit="llvm", opts=FrontendOptions(extra=("-dependency-file", str(deps), "-MT", "k",
                                                                            "-sys-header-deps"))).output
    assert "@_Z1kP6float2Pf(" in ir
    assert str(runtime_include() / "cuComplex.h") in deps.read_text()


@pytest.mark.parametrize("header", ["cuda_fp8.h", "cuda_fp4.h"])
def test_cuda_fp8_is_nvidias_header_over_the_layers_16_bit_floats(tmp_path, header):
    """cuda_fp8.h (candle's kernels include it) and cuda_fp6.h/cuda_fp4.h (ggml's) are NVIDIA's own
    with their .hpp, read as they are (a file that includes an .hpp gets NVIDIA's "include
    cuda_fp8.h" error, as with nvcc): below sm_89 they convert in plain C++ over NVIDIA's __half
    and __nv_bfloat16 (values bit for bit on the emulator: hw_tests/amd/test_cuda_fp8_hw.py)."""
    src = tmp_path / "k.cu"
    src.write_text(f"#include <{header}>\n" "__global__ void k(__nv_fp8_e4m3 *a, __nv_fp8_e5m2 *b, __half *h, float *f) {\n"
                   "  a[0] = __nv_fp8_e4m3(f[0]); b[0] = __nv_fp8_e5m2(h[0]); h[1] = __half(a[1]);\n"
                   "  f[1] = float(b[1]) + float2(__nv_fp8x2_e4m3(make_float2(f[2], f[3]))).y; }\n")
    assert "@_Z1kP13__nv_fp8_e4m3P13__nv_fp8_e5m2P6__halfPf(" in compile_file(src, "gfx942", emit="llvm").output


@pytest.mark.parametrize("header", ["texture_fetch_functions.h", "sm_80_rt.h"])
def test_an_nvidia_header_the_layer_lacks_is_named_at_its_include(tmp_path, header):
    src = tmp_path / "k.cu"
    src.write_text(f"#include <stdint.h>\n#include <{header}>\n__global__ void k() {{}}\n")
    with pytest.raises(InputError) as e:
        compile_file(src, "gfx942")
    first = next(ln for ln in str(e.value).splitlines() if ": error: " in ln and "rejected" not in ln)
    assert re.fullmatch(rf".*k\.cu:2:10: error: shflx does not support '{re.escape(header)}' on AMD targets \(.+\)",
                        first), first
    assert "file not found" not in str(e.value)


def test_curand_kernel_h_is_nvidias_on_amd_where_its_wheel_is_installed(tmp_path):
    """cuRAND's device API is header-only CUDA: read as it is from nvidia-curand-cu12 (the test
    extra installs it; hw_tests/amd/test_curand_hw.py runs it against an H200), else named with
    the wheel to install, on either vendor's targets."""
    from shflx.frontend.cuda_sdk import package_dir
    from shflx.frontend.unprovided import named_missing_header

    if package_dir("nvidia.curand") is None:
        (pytest.fail if IN_CI else pytest.skip)("nvidia-curand-cu12 is not installed (the test extra)")
    src = tmp_path / "k.cu"
    src.write_text("#include <curand_kernel.h>\n__global__ void k(float *p, unsigned long long seed) {\n"
                   "  curandStatePhilox4_32_10_t s; curand_init(seed, threadIdx.x, 0, &s);\n"
                   "  p[threadIdx.x] = curand_uniform(&s);\n}\n")
    assert "define" in compile_file(src, "gfx942", emit="llvm").output
    for vendor in ("AMD", "NVIDIA"):
        said = named_missing_header("k.cu:1:10: fatal error: 'curand_kernel.h' file not found", vendor)
        assert said == (f"k.cu:1:10: error: shflx does not support 'curand_kernel.h' on {vendor} targets "
                        "(cuRAND's headers are not installed: pip install nvidia-curand-cu12)")


@pytest.mark.parametrize("shape", ["accumulator, 16, 16, 8, float", "matrix_a, 16, 8, 16, __half, wmma::row_major",
                                   "matrix_b, 8, 8, 4, float, wmma::col_major",
                                   "matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major",
                                   "matrix_b, 8, 8, 32, wmma::experimental::precision::u4, wmma::col_major"])
def test_a_wmma_fragment_the_layer_lacks_is_named_at_the_programs_line(tmp_path, shape):
    """A shape (tf32's m16n16k8, a shape CUDA lacks, ...) or type the layer has no fragment for: one line, at the
    declaration that instantiates it, not clang's "implicit instantiation of undefined template"."""
    src = tmp_path / "k.cu"
    src.write_text("#include <mma.h>\nusing namespace nvcuda;\n__global__ void k(float *p) {\n"
                   f"  wmma::fragment<wmma::{shape}> f;\n  p[0] = f.num_elements;\n}}\n")
    with pytest.raises(InputError) as e:
        compile_file(src, "gfx942")
    first = next(ln for ln in str(e.value).splitlines() if ": error: " in ln and "rejected" not in ln)
    assert re.fullmatch(r".*k\.cu:4:\d+: error: shflx does not support 'this nvcuda::wmma::fragment' on AMD targets "
                        r"\(the fragments provided are .+\)", first), first


def test_wmma_float_to_tf32_is_named_at_the_call(tmp_path):
    """cudahandbook's sgemm5Wmma rounds its inputs with wmma::__float_to_tf32 for tf32 fragments, which
    the layer does not provide: named at the call, not "no member named '__float_to_tf32'"."""
    src = tmp_path / "k.cu"
    src.write_text("#include <mma.h>\nusing namespace nvcuda;\n__global__ void k(float *p) {\n"
                   "  p[0] = wmma::__float_to_tf32(p[1]);\n}\n")
    with pytest.raises(InputError) as e:
        compile_file(src, "gfx942")
    assert "k.cu:4:16: error: shflx does not support 'nvcuda::wmma::__float_to_tf32' on AMD targets" in str(e.value)


def test_wmma_fragments_have_cudas_element_counts_and_unsupported_types_are_named(tmp_path):
    """nvcuda::wmma (stubs/mma.h; values on the emulator: hw_tests/amd/test_cuda_wmma_hw.py):
    num_elements as CUDA's fragments have them, and a type it lacks is said by name."""
    src = tmp_path / "k.cu"
    src.write_text("#include <mma.h>\nusing namespace nvcuda;\n"
                   "static_assert(wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major>::num_elements == 16, \"\");\n"
                   "static_assert(wmma::fragment<wmma::accumulator, 16, 16, 16, float>::num_elements == 8, \"\");\n"
                   "static_assert(wmma::fragment<wmma::accumulator, 8, 8, 4, double>::num_elements == 2, \"\");\n"
                   "static_assert(wmma::fragment<wmma::matrix_b, 32, 8, 16, half, wmma::col_major>::num_elements == 16, \"\");\n"
                   "static_assert(wmma::fragment<wmma::accumulator, 8, 32, 16, float>::num_elements == 8, \"\");\n"
                   "__global__ void k(float *p) { wmma::fragment<wmma::matrix_a, 16, 16, 16, float, wmma::row_major> f;\n"
                   "  wmma::fill_fragment(f, 1.0f); p[0] = f.x[0]; }\n")
    with pytest.raises(InputError) as e:
        compile_file(src, "gfx1100")
    assert "shflx: wmma m16n16k16 inputs are __half, __nv_bfloat16, signed char or unsigned char" in str(e.value)
    assert len(re.findall(r":\d+:\d+: error:", str(e.value))) == 1, "only the float matrix_a is rejected"
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


# ------------------------------------------------------------------ classes of real CUDA (issue 25)
HOST_AND_DEVICE_MATH = r"""
#include <algorithm>
float host_only(float x) { return expf(x) + fabs(x) + isfinite(x) + fabsf(x) + sqrtf(x) + abs(-3) + fmaxf(x, 1.f); }
__host__ __device__ float hd(float x) { return expf(x) + fabs(x) + (isfinite(x) ? 1.f : 0.f) + abs(-3) + isnan(x); }
__global__ void k(int *p, long *l, long long *q, float *f, double *d) {
  p[0] = abs(p[1]); l[0] = labs(l[1]) + abs(l[2]); q[0] = llabs(q[1]) + abs(q[2]); f[0] = hd(f[1]);
  f[2] = std::exp(f[3]) + std::abs(f[4]) + std::max(f[5], 1.f); d[0] = std::abs(d[1]) + std::sqrt(d[2]);
  p[2] = std::abs(p[3]);
}
int main() { return (int)host_only(2.f); }
"""


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_math_is_host_and_device_and_integer_abs_is_a_device_function(tmp_path, arch):
    """As nvcc's math_functions.h: abs/labs/llabs in device code, the C math functions in host
    functions (the host's <math.h>, <cmath>, <cstdlib> come with every .cu), std:: math in device
    code without an #include; no call is left to a host library function."""
    src = tmp_path / "k.cu"
    src.write_text(HOST_AND_DEVICE_MATH)
    ir = compile_file(src, arch, emit="llvm").output
    assert not re.search(r"^declare .*@(l|ll)?abs\(|^declare .*@(expf?|fabs)\(", ir, flags=re.M)
    assert re.search(r"@llvm\.abs\.i32|@llvm\.smax\.i32|sub i32 0,|select i1", ir)


HOST_DEFINES = r"""
#include <cuda_runtime.h>
extern __device__ __device_builtin__ void __syncthreads(void);
struct __device_builtin__ __builtin_align__(16) quad { unsigned x, y, z, w; };
static __thread__ int per_thread;
__device__ __nv_pure__ __inline_hint__ int twice(int x) { return 2 * x; }
__global__ void __maxnreg__(64) k(quad *q, int *p) { __syncthreads(); p[0] = twice(q->w) + (int)alignof(quad); }
"""


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100", "sm_90"])
def test_crt_host_defines_annotations_on_a_files_own_declarations_compile(tmp_path, arch):
    """ccminer re-declares `extern __device__ __device_builtin__ void __syncthreads(void);`: the
    annotation macros of NVIDIA's crt/host_defines.h are defined on every target, and
    __builtin_align__ aligns as __align__ does."""
    src = tmp_path / "k.cu"
    src.write_text(HOST_DEFINES)
    out = compile_for(src, arch).output
    # p[0] = 2 * q->w + alignof(quad): the 16 of __builtin_align__(16)
    assert re.search(r"add\.s32 \t?%r\d+, %r\d+, 16;" if arch.startswith("sm_") else r"add nsw i32 %[\w.]+, 16\b", out)


# The runtime API as cuda_runtime.h declares it, beyond what the layer's hand-written declarations
# had: pointer attributes and memory types, IPC handles, memory pools and the cudaMallocFromPoolAsync
# template, batched copies; and the templates over a kernel.
RUNTIME_API = r"""
#include <cuda_runtime.h>
__global__ void k(float4 *p, int n) { if (threadIdx.x < n) p[threadIdx.x] = make_float4(1.f, 2.f, 3.f, (float)CUDART_VERSION); }
int main() {
  float4 *d; cudaMalloc(&d, 16 * sizeof(float4));
  cudaPointerAttributes pa; cudaPointerGetAttributes(&pa, d);
  cudaIpcMemHandle_t h; cudaIpcGetMemHandle(&h, d);
  cudaMemPool_t pool; cudaDeviceGetDefaultMemPool(&pool, 0); cudaMallocFromPoolAsync(&d, 16, pool, 0);
  cudaFuncAttributes attr; cudaFuncGetAttributes(&attr, k);
  void *args[] = {&d, &attr.numRegs}; cudaLaunchKernel(k, dim3(1), dim3(32), args, 0, 0);
  cudaChannelFormatDesc c = cudaCreateChannelDesc<float4>();
  cudaStreamCaptureMode mode = cudaStreamCaptureModeGlobal; cudaDataType t = CUDA_R_32F;
  cudaDeviceProp prop; cudaGetDeviceProperties(&prop, 0);
  return (pa.type == cudaMemoryTypeDevice) + c.w + mode + t + prop.clusterLaunch;
}
"""


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_the_runtime_api_is_cuda_runtime_h(tmp_path, arch):
    """Host code compiles against NVIDIA's cuda_runtime.h (what the layer's declarations lacked too),
    and the kernel is nvcc's: `k(float4 *, int)` mangles as P6float4, float4 is 16-byte aligned
    (its first element is stored with alignment 16) and CUDART_VERSION is the headers' own, which
    is the version the layer compiles as (__CUDACC_VER_MAJOR__/MINOR__, CCCL's check)."""
    from shflx.frontend.clang import CUDA_VERSION
    src = tmp_path / "k.cu"
    src.write_text(RUNTIME_API)
    ir = compile_file(src, arch, emit="llvm").output
    assert "define protected amdgpu_kernel void @_Z1kP6float4i(" in ir
    assert re.search(r"store float 1\.0+e\+00, ptr addrspace\(1\) %[\w.]+, align 16", ir)    # float4's alignment
    version = CUDA_VERSION[0] * 1000 + CUDA_VERSION[1] * 10
    assert f"store float {float(version):.6e}" in ir          # CUDART_VERSION, e.g. 1.209000e+04
    assert version >= 12040          # nvidia-cuda-runtime-cu12 >= 12.4 (pyproject.toml)

def test_hip_macros_are_not_defined_for_cuda_sources(tmp_path):
    """A .cu file is CUDA: a project's `#ifdef __HIPCC__` branch must not be taken (it includes the
    system's hip_runtime.h); a .hip file keeps them."""
    body = ("#if defined(__HIPCC__) || defined(__HIP__) || defined(__HIP_DEVICE_COMPILE__)\n"
            "#include <hip/hip_runtime.h>\n#error hip\n#endif\n__global__ void k(int *p) { p[0] = 1; }\n")
    cu = tmp_path / "k.cu"
    cu.write_text(body)
    compile_file(cu, "gfx942", emit="llvm")
    hip = tmp_path / "k.hip"
    hip.write_text("#if !defined(__HIPCC__) || !defined(__HIP__)\n#error not hip\n#endif\n__global__ void k(int *p) { p[0] = 1; }\n")
    compile_file(hip, "gfx942", emit="llvm")


def test_nvidia_headers_of_constants_types_and_atomics_are_accepted(tmp_path):
    """math_constants.h and library_types.h are NVIDIA's own (macros and enums, from the runtime
    wheel); library_types.h comes with every .cu as with cuda_runtime.h; device_atomic_functions.h
    and the sm_NN_atomic_functions.h name what the layer provides."""
    if not any(a.startswith("-D__SHFLX_REAL_MATH_CONSTANTS_H=") for a in amd_header_args()):
        pytest.skip("NVIDIA's CUDA runtime wheel is not installed (pip install 'shflx[cuda]')")
    src = tmp_path / "k.cu"
    src.write_text("#include <device_atomic_functions.h>\n#include <sm_60_atomic_functions.h>\n"
                   "#include <math_constants.h>\n#include <device_functions.h>\n"
                   "__global__ void k(float *p, double *d, int *c) {\n"
                   "  p[0] = CUDART_PI_F; d[0] = CUDART_INF; c[0] = (int)CUDA_R_16BF; atomicAdd(c + 1, 1); }\n"
                   "int main() { cudaDataType t = CUDA_R_32F; return (int)t; }\n")
    ir = compile_file(src, "gfx942", emit="llvm").output
    assert "store float 0x400921FB60000000" in ir and "store double 0x7FF0000000000000" in ir
    assert "store i32 14" in ir and "atomicrmw add" in ir


def test_the_runtime_templates_over_a_kernel_type_are_declared(tmp_path):
    """cuda_runtime.h's C++ API: cudaFuncGetAttributes(attr, kernel), cudaFuncSetCacheConfig,
    cudaLaunchKernel(kernel, ...), cudaOccupancy*WithFlags take the kernel itself."""
    src = tmp_path / "k.cu"
    src.write_text("__global__ void k(int *p) { p[0] = 1; }\n"
                   "int main() { cudaFuncAttributes a; cudaFuncGetAttributes(&a, k); cudaFuncSetCacheConfig(k, cudaFuncCachePreferL1);\n"
                   "  int n; cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&n, k, 128, 0, 0);\n"
                   "  void *args[1]; cudaLaunchKernel(k, dim3(1), dim3(32), args); return a.numRegs + n; }\n")
    compile_file(src, "gfx942", emit="llvm")


def test_group_shuffles_and_reduce_take_any_trivially_copyable_type(tmp_path):
    """CUDA's tile shuffles and cg::reduce take user structs (one 32-bit shuffle per word, all with
    the tile's lanes; values: hw_tests/amd/test_cuda_groups_hw.py), and cg::block_tile_memory is
    accepted by this_thread_block."""
    src = tmp_path / "k.cu"
    src.write_text("#include <cooperative_groups.h>\n#include <cooperative_groups/reduce.h>\n"
                   "namespace cg = cooperative_groups;\nstruct S { float a; int b; short c; };\n"
                   "__global__ void k(S *s, double2 *d) {\n  __shared__ cg::block_tile_memory<256> mem;\n"
                   "  auto t = cg::tiled_partition<32>(cg::this_thread_block(mem));\n"
                   "  S v = t.shfl_xor(s[threadIdx.x], 1);\n"
                   "  s[threadIdx.x] = cg::reduce(t, v, [](S x, S y) { return S{x.a + y.a, x.b + y.b, x.c}; });\n"
                   "  d[threadIdx.x] = t.shfl(d[threadIdx.x], 3);\n}\n")
    comp = compile_file(src, "gfx942", emit="llvm")
    by_line = {}
    for site in comp.sites:
        line = int(site.location.split(":")[-2])
        by_line[line] = by_line.get(line, 0) + 1
    assert by_line.get(8) == 3, by_line           # 12 bytes: three words
    assert by_line.get(10) == 4, by_line          # double2: four words


def test_dpx_intrinsics_compile_on_amd(tmp_path):
    """sm_90's DPX intrinsics as NVIDIA's headers compute them elsewhere (values bit for bit on the
    emulator: hw_tests/amd/test_cuda_intrinsics_hw.py)."""
    src = tmp_path / "k.cu"
    src.write_text("__global__ void k(unsigned *p, int *q) { bool b, c;\n"
                   "  p[0] = __viaddmax_s16x2(p[1], p[2], p[3]) + __vimax3_s16x2_relu(p[1], p[2], p[3]) + __vimin3_u32(p[0], p[1], p[2])\n"
                   "    + __vibmax_u16x2(p[4], p[5], &b, &c) + b + c; q[0] = __vimax_s32_relu(q[1], q[2]) + __viaddmin_s32_relu(q[0], q[1], q[2]); }\n")
    ir = compile_file(src, "gfx1100", emit="llvm").output
    assert "@_Z1kPjPi(" in ir


def test_saturating_simd_intrinsics_are_llvms_saturating_arithmetic(tmp_path):
    """__vaddss2/__vsubss4 (llama.cpp-style q6_K dot products use __vsubss4) clamp each lane: LLVM's
    sadd.sat/ssub.sat, per lane (values on the emulator, where it honours the clamp:
    hw_tests/amd/test_cuda_intrinsics_hw.py)."""
    src = tmp_path / "k.cu"
    src.write_text("__global__ void k(unsigned *p) { p[0] = __vaddss2(p[1], p[2]) ^ __vsubss4(p[3], p[4])\n"
                   "  ^ __vaddus4(p[5], p[6]) ^ __vcmpgeu2(p[7], p[8]) ^ __vabsss2(p[9]) ^ __vavgu4(p[10], p[11]); }\n")
    ir = compile_file(src, "gfx942", emit="llvm").output
    assert len(re.findall(r"call i16 @llvm\.sadd\.sat\.i16", ir)) == 2, "one per 16-bit lane"
    assert re.search(r"@llvm\.ssub\.sat\.i8\b", ir)


def test_dot_product_intrinsics_take_every_overload_on_amd(tmp_path):
    """sm_61's __dp4a/__dp2a (llama.cpp-style quantized kernels use them) in their int, unsigned
    and vector forms (values bit for bit on the emulator: hw_tests/amd/test_cuda_intrinsics_hw.py)."""
    src = tmp_path / "k.cu"
    src.write_text("__global__ void k(int *q, unsigned *u, char4 *c, uchar4 *d, short2 *s, ushort2 *t) {\n"
                   "  q[0] = __dp4a(q[1], q[2], q[3]) + __dp4a(c[0], c[1], q[4]) + __dp2a_lo(q[1], q[2], 0)\n"
                   "    + __dp2a_hi(s[0], c[2], q[5]) + __dp2a_lo(s[1], c[3], 1);\n"
                   "  u[0] = __dp4a(u[1], u[2], u[3]) + __dp4a(d[0], d[1], 7u) + __dp2a_hi(t[0], d[2], u[4]) + __dp2a_lo(u[5], u[6], 0u);\n}\n")
    ir = compile_file(src, "gfx942", emit="llvm").output
    assert "@_Z1kPiPjP5char4P6uchar4P6short2P7ushort2(" in ir


@pytest.mark.parametrize("call", ["tex2D<float>(t, 0.5f, 0.5f)", "tex1Dfetch<float4>(t, 3).x", "tex3DLod<float>(t, 1.f, 2.f, 3.f, 0.f)"])
def test_a_texture_read_is_a_named_error_at_its_line(tmp_path, call):
    src = tmp_path / "k.cu"
    src.write_text(f"__global__ void k(cudaTextureObject_t t, float *p) {{\n  p[0] = {call};\n}}\n")
    with pytest.raises(InputError) as e:
        compile_file(src, "gfx942")
    name = call.split("<")[0]
    first = next(ln for ln in str(e.value).splitlines() if ": error: " in ln and "rejected" not in ln)
    assert re.fullmatch(rf".*k\.cu:2:\d+: error: shflx does not support '{name}' in device code on AMD targets "
                        r"\(texture reads are not provided by the CUDA layer\)", first), first


def test_texture_and_surface_code_no_kernel_runs_compiles(tmp_path):
    """NVIDIA warp's texture.h: texture helpers in a header (inline, templates) that the file's
    kernels never call compile, as with nvcc; one a kernel calls is named at its line."""
    src = tmp_path / "k.cu"
    helpers = ("inline __device__ float sample(cudaTextureObject_t t, float x) { return tex1D<float>(t, x); }\n"
               "template <class T> __device__ T fetch(cudaTextureObject_t t, int i) { return tex1Dfetch<T>(t, i); }\n"
               "inline __device__ void put(cudaSurfaceObject_t s, float v) { surf2Dwrite(v, s, 0, 0); }\n")
    src.write_text(helpers + "__global__ void k(float *p) { p[threadIdx.x] = __shfl_xor_sync(~0u, p[threadIdx.x], 1); }\n")
    assert compile_file(src, "gfx942").output[:4] == b"\x7fELF"
    src.write_text(helpers + "__global__ void k(cudaSurfaceObject_t s, float *p) {\n  put(s, p[0]);\n}\n")
    with pytest.raises(InputError) as e:
        compile_file(src, "gfx942")
    assert re.fullmatch(r".*k\.cu:3:\d+: error: shflx does not support 'surf2Dwrite' in device code on AMD targets "
                        r"\(surfaces are not provided by the CUDA layer\)", str(e.value).splitlines()[0]), str(e.value)


HOST_HEADERS = ("#include <bits/stdc++.h>\n#include <omp.h>\n__global__ void k(int *p) { p[0] = 1; }\n"
                "int main() { std::vector<int> v(omp_get_max_threads());\n#pragma omp parallel for\n"
                "  for (int i = 0; i < 4; ++i) v[0] += i;\n  return (int)v.size(); }\n")


@pytest.mark.parametrize("arch", ["gfx942", "sm_90"])
def test_host_headers_of_nvccs_host_compiler_are_found(tmp_path, arch):
    """libstdc++'s <bits/stdc++.h> (a stand-in over libc++ on AMD) and GCC's own omp.h, as nvcc's
    host compiler finds them."""
    from shflx.frontend.toolchain import gcc_include_dir
    if gcc_include_dir() is None:
        pytest.skip("no GCC include directory with omp.h on this machine")
    src = tmp_path / "k.cu"
    src.write_text(HOST_HEADERS)
    compile_for(src, arch)


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100", "sm_90"])
def test_host_code_reads_the_systems_libstdcxx_on_every_target(tmp_path, arch):
    """One host environment, nvcc's: where the system has GCC's C++ library, every target's host
    side is libstdc++ (its own macro; the <vector> g++ itself reads, per the depfile)."""
    import shutil
    import subprocess
    import sys
    from pathlib import Path
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("no g++ (GCC's C++ library) on this machine")
    shown = subprocess.run([gxx, "-E", "-x", "c++", "-", "-H", "-o", os.devnull], input="#include <vector>\n",
                           capture_output=True, text=True).stderr.splitlines()
    gxx_vector = Path(shown[0].split()[-1]).resolve()
    src = tmp_path / "k.cu"
    src.write_text("#include <vector>\n#ifndef __GLIBCXX__\n#error not libstdc++\n#endif\n"
                   "__global__ void k(int *p) { p[0] = 1; }\nint main() { std::vector<int> v(3); return (int)v.size(); }\n")
    deps = tmp_path / "k.d"
    r = subprocess.run([sys.executable, "-m", "shflx", "compile", str(src), "--offload-arch", arch, "-o",
                        str(tmp_path / "k.out"), "-MD", "-MF", str(deps)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    named = {Path(w).resolve() for w in deps.read_text().replace("\\\n", " ").split() if w.endswith("/vector")}
    assert gxx_vector in named, (gxx_vector, named)


def test_noinline_stays_clangs_keyword_after_host_defines(tmp_path):
    """crt/host_defines.h defines __noinline__ as a macro for nvcc; the layer keeps clang's keyword,
    so that libstdc++'s `__attribute__((__noinline__))` (shared_ptr_base.h) parses and a
    `__noinline__` device function is not inlined."""
    src = tmp_path / "k.cu"
    src.write_text("#include <memory>\n__device__ __noinline__ float h(float x) { return x * 2; }\n"
                   "__global__ void k(float *p) { p[0] = h(p[1]); }\n"
                   "int main() { auto s = std::make_shared<int>(1); return *s; }\n")
    ir = compile_file(src, "gfx942", emit="llvm").output
    assert re.search(r"call .*@_Z1hf\(", ir)


def test_nvidias_runtime_headers_read_over_the_wheels_libcxx(monkeypatch, tmp_path):
    """crt/host_defines.h refuses libc++ on x86 ("libc++ is not supported on x86 system"); where the
    host has no libstdc++ the AMD pass reads cuda_runtime.h over the ziglang wheel's libc++."""
    from shflx.frontend import clang, toolchain
    tool = toolchain.find_clang()
    if tool.origin != "ziglang":
        pytest.skip(f"the clang in use is {tool.origin}'s, not the ziglang wheel's")
    monkeypatch.setattr(toolchain, "_has_libstdcxx", lambda words: False)
    libcxx = tuple(toolchain._ask_host_cxx_args(tool)) + toolchain.LIBSTDCXX_CXX17_KEPT
    monkeypatch.setattr(clang, "host_cxx_args", lambda tool: libcxx)
    src = tmp_path / "k.cu"
    src.write_text("#include <cstdlib>\n#ifndef _LIBCPP_VERSION\n#error not libc++\n#endif\n"
                   "__global__ void k(float4 *p) { p[0] = make_float4(1, 2, 3, 4); }\n"
                   "int main() { cudaDeviceProp d; return cudaGetDeviceProperties(&d, 0); }\n")
    assert "@_Z1kP6float4(" in compile_file(src, "gfx942", emit="llvm").output


def test_without_libstdcxx_the_wheels_libcxx_serves(monkeypatch):
    """A machine with no GCC C++ library: the ziglang wheel's libc++ and glibc headers."""
    from shflx.frontend import toolchain
    tool = toolchain.find_clang()
    if tool.origin != "ziglang":
        pytest.skip(f"the clang in use is {tool.origin}'s, not the ziglang wheel's")
    monkeypatch.setattr(toolchain, "_has_libstdcxx", lambda words: False)
    words = toolchain._ask_host_cxx_args(tool)
    assert any(w.endswith("libcxx/include") for w in words) and "-D_LIBCPP_ABI_VERSION=1" not in words
    assert any(w.startswith("_LIBCPP_") for w in words)


def test_the_driver_api_is_nvidias_cuda_h(tmp_path):
    """cuda.h (host declarations of the driver API) is NVIDIA's own from the runtime wheel, of the
    CUDA version the device code is compiled as."""
    src = tmp_path / "k.cu"
    src.write_text("#include <cuda.h>\nstruct ctx { CUdevice d = -1; CUmodule m = nullptr; CUfunction f = nullptr; };\n"
                   "__global__ void k(int *p) { p[0] = CUDA_VERSION; }\n"
                   "int main() { CUdevice d; cuDeviceGet(&d, 0); return (int)cuInit(0); }\n")
    from shflx.frontend.clang import CUDA_VERSION
    assert f"store i32 {CUDA_VERSION[0] * 1000 + CUDA_VERSION[1] * 10}," in compile_file(src, "gfx942", emit="llvm").output


CUBLASLT = r"""
#include <cublas_v2.h>
#include <cublasLt.h>
__global__ void k(float *p) { p[0] = 1.f; }
void matmul(cublasLtHandle_t h, const float *a, const float *b, float *c, const float *bias, void *ws, cudaStream_t s) {
  cublasLtMatmulDesc_t d; cublasLtMatrixLayout_t la, lb, lc; cublasLtMatmulPreference_t pref;
  cublasLtMatmulDescCreate(&d, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  cublasOperation_t t = CUBLAS_OP_T; cublasLtEpilogue_t e = CUBLASLT_EPILOGUE_GELU_BIAS;
  cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof(t));
  cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_EPILOGUE, &e, sizeof(e));
  cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias));
  cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, 64, 64, 64); lb = lc = la;
  cublasLtMatmulPreferenceCreate(&pref); size_t n = 1 << 20;
  cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &n, sizeof(n));
  cublasLtMatmulHeuristicResult_t r; int got = 0;
  cublasLtMatmulAlgoGetHeuristic(h, d, la, lb, lc, lc, pref, 1, &r, &got);
  float one = 1.f, zero = 0.f;
  cublasLtMatmul(h, d, &one, a, la, b, lb, &zero, c, lc, c, lc, &r.algo, ws, n, s);
  cublasLtMatmulDescDestroy(d); cublasLtMatrixLayoutDestroy(la); cublasLtMatmulPreferenceDestroy(pref);
}
int main() { cublasLtHandle_t h; cublasLtCreate(&h); cublasLtDestroy(h); return 0; }
"""


@pytest.mark.parametrize("arch", ["gfx942", "sm_90"])
def test_host_code_calling_cublaslt_compiles_without_its_wheel(tmp_path, arch):
    """cuBLASLt's host API (llm.c's matmuls): NVIDIA's cublasLt.h where nvidia-cublas-cu12 is
    installed, else shflx's declarations of its common part (shflx_cublaslt_host.h)."""
    src = tmp_path / "k.cu"
    src.write_text(CUBLASLT)
    compile_for(src, arch)


def test_directed_rounding_intrinsics_are_defined_in_the_module(tmp_path):
    """__fadd_rz, __frcp_rz (nvdiffrast's texture kernel), __dsqrt_ru, ... and inline PTX's .rz/.rm/.rp
    forms call shflx/ir/directed.py's functions, which the module defines (values: tests/test_directed.py
    on this host, hw_tests/amd/test_cuda_directed_rounding_hw.py on the device)."""
    src = tmp_path / "k.cu"
    src.write_text("__global__ void k(float *p, double *d) {\n"
                   "  p[0] = __fadd_rz(p[1], p[2]) + __frcp_rz(p[3]) + __fmaf_ru(p[4], p[5], p[6]) + __fsqrt_rd(p[7]);\n"
                   "  d[0] = __dmul_ru(d[1], d[2]) + __ddiv_rd(d[3], d[4]) + __dsqrt_rz(d[5]) + __double2float_ru(d[6])\n"
                   "    + __fma_rz(d[7], d[8], d[9]);\n"
                   "  float r; asm(\"div.rm.f32 %0, %1, %2;\" : \"=f\"(r) : \"f\"(p[8]), \"f\"(p[9])); p[10] = r;\n}\n")
    ir = compile_file(src, "gfx942", emit="llvm").output
    ir = ir if isinstance(ir, str) else ir.decode()
    assert not re.search(r"^declare .*@__shflx_directed_", ir, re.M)
    defined = set(re.findall(r"^define internal \w+ @__shflx_directed_(\w+)\(", ir, re.M))
    assert defined == {"add_rz_f32", "rcp_rz_f32", "fma_rp_f32", "sqrt_rm_f32", "mul_rp_f64", "div_rm_f64",
                       "sqrt_rz_f64", "div_rm_f32", "d2f_rp_f32", "fma_rz_f64"}, defined


@pytest.mark.parametrize("arch", ["gfx942", "sm_90"])
def test_16_bit_float_atomics_device_flags_and_host_c_library(tmp_path, arch):
    """atomicAdd of __half2 / __half / __nv_bfloat16(2) (values: hw_tests/amd/test_cuda_groups_hw.py),
    cudaSetDeviceFlags(cudaDeviceMapHost), and host code's clock()/strlen without an #include, as
    nvcc's cuda_runtime.h brings <time.h> and <string.h>; cublas_v2.h brings cuda_bf16.h."""
    src = tmp_path / "k.cu"
    src.write_text("#include <cublas_v2.h>\n"
                   "__global__ void k(__half2 *h2, __half *h, __nv_bfloat162 *b2, __nv_bfloat16 *b) {\n"
                   "  atomicAdd(h2, h2[1]); atomicAdd(h, h[1]); atomicAdd(b2, b2[1]); atomicAdd(b, b[1]); }\n"
                   "int main() { cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync | cudaDeviceMapHost);\n"
                   "  clock_t t = clock(); return (int)strlen(\"x\") + (int)t; }\n")
    res = compile_for(src, arch)
    if not arch.startswith("sm_"):
        assert "cmpxchg" in res.output


def test_a_non_inlined_device_function_links_and_kernels_stay_visible(tmp_path):
    """Device code is compiled with hidden visibility, as clang's HIP toolchain does: a call to a
    __noinline__ (or too large to inline) __device__ function links (a preemptible symbol made
    ld.lld refuse the code object), while kernels and __device__/__constant__ variables stay in the
    dynamic symbol table (protected) for the runtime and cudaMemcpyToSymbol."""
    from elftools.elf.elffile import ELFFile
    src = tmp_path / "k.cu"
    src.write_text("__device__ int counter;\n__constant__ float table[4];\n"
                   "__device__ __noinline__ float helper(float x) { return x * table[1] + counter; }\n"
                   "template <float (*F)(float)> __global__ void k(float *p) { p[threadIdx.x] = F(p[threadIdx.x]); }\n"
                   "template __global__ void k<helper>(float *);\n")
    out = tmp_path / "k.hsaco"
    res = compile_file(src, "gfx942")
    out.write_bytes(res.output if isinstance(res.output, bytes) else res.output.encode("latin-1"))
    with open(out, "rb") as f:
        dyn = {s.name: s["st_other"]["visibility"] for s in ELFFile(f).get_section_by_name(".dynsym").iter_symbols()}
    assert {"counter", "table", "_Z1kIXadL_Z6helperfEEEvPf"} <= set(dyn) and "_Z6helperf" not in dyn


def test_every_cuda_device_prop_field_is_declared(tmp_path):
    """cudaDeviceProp has every field of CUDA 12.9's (pciDomainID, uuid, ...; the types are checked
    against the real header by tests/test_host_declarations.py)."""
    src = tmp_path / "k.cu"
    src.write_text("__global__ void k() {}\nint main() { cudaDeviceProp p; cudaGetDeviceProperties(&p, 0);\n"
                   "  return p.pciDomainID + p.uuid.bytes[0] + p.asyncEngineCount + p.maxBlocksPerMultiProcessor\n"
                   "    + (int)p.reservedSharedMemPerBlock + p.clusterLaunch + p.maxTexture2D[0]; }\n")
    compile_file(src, "gfx942", emit="llvm")


def test_cooperative_groups_are_nvidias_own_headers(tmp_path, monkeypatch):
    """cooperative_groups.h and everything under cooperative_groups/ are read from NVIDIA's runtime
    headers (their real paths in the depfile); without them a compile is one line saying so."""
    import subprocess
    import sys
    from shflx.frontend import cuda_sdk
    inc = cuda_sdk.runtime_include()
    assert inc is not None, "nvidia-cuda-runtime-cu12 is a dependency of shflx"
    src = tmp_path / "k.cu"
    src.write_text("#include <cooperative_groups.h>\n#include <cooperative_groups/scan.h>\n"
                   "namespace cg = cooperative_groups;\n__global__ void k(int *p) {\n"
                   "  auto t = cg::tiled_partition<16>(cg::this_thread_block());\n"
                   "  p[threadIdx.x] = cg::inclusive_scan(t, p[threadIdx.x]);\n}\n")
    deps = tmp_path / "k.d"
    r = subprocess.run([sys.executable, "-m", "shflx", "compile", str(src), "--offload-arch", "gfx942", "-o",
                        str(tmp_path / "k.hsaco"), "-MD", "-MF", str(deps)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    named = deps.read_text()
    assert str(inc / "cooperative_groups.h") in named and str(inc / "cooperative_groups" / "scan.h") in named
    assert "/__shflx__/" not in named
    monkeypatch.setattr(cuda_sdk, "runtime_include", lambda: None)
    with pytest.raises(ToolchainError) as e:            # the layer reads cuda_runtime.h into every file
        compile_file(src, "gfx942")
    assert str(e.value).endswith(cuda_sdk.RUNTIME_MISSING)


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
@pytest.mark.parametrize("tile", ["cg::tiled_partition<64>(cg::this_thread_block())",
                                  "cg::tiled_partition<128>(cg::this_thread_block(scratch))"])
def test_tiles_of_more_than_one_warp_are_named_at_the_users_line(tmp_path, arch, tile):
    """NVIDIA's multi-warp tiles spin on other warps of the tile (details/sync.h), which a wave
    shared by two CUDA warps cannot run: one line at the user's tiled_partition, not a kernel that
    hangs."""
    src = tmp_path / "k.cu"
    src.write_text("#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
                   "__global__ void k(int *p) {\n  __shared__ cg::block_tile_memory<256> scratch;\n"
                   f"  auto t = {tile};\n  p[threadIdx.x] = t.shfl(p[threadIdx.x], 1);\n}}\n")
    with pytest.raises(InputError) as e:
        compile_file(src, arch)
    assert re.fullmatch(rf".*k\.cu:5:\d+: error: shflx does not support 'cooperative_groups tiles of more than 32 "
                        r"threads' on AMD targets \(.*\)", str(e.value)), str(e.value)


@pytest.mark.parametrize("name", ["__shfl", "__shfl_up", "__shfl_down", "__shfl_xor"])
def test_a_shuffle_without_sync_is_a_one_line_error_on_sm70_and_later(tmp_path, name):
    """nvcc declares __shfl & co. only below sm_70 (sm_30_intrinsics.h); clang's wrapper defines them
    and LLVM then stopped with "Cannot select: intrinsic llvm.nvvm.shfl.idx.i32". Now: shflx's
    error at the user's line; the _sync forms, and AMD targets, are unaffected."""
    from conftest import compile_for
    src = tmp_path / "k.cu"
    src.write_text(f"__global__ void k(int *p) {{\n  int v = p[threadIdx.x];\n  p[threadIdx.x] = {name}(v, 1, 16);\n}}\n"
                   f"__global__ void s(int *p) {{ p[threadIdx.x] = {name}_sync(0xffffffffu, p[threadIdx.x], 1, 16); }}\n")
    with pytest.raises(InputError, match=rf"k\.cu:3:\d+: error: shflx does not support '{name}' on sm_70 and later"):
        compile_for(src, "sm_90")
    assert "define" in compile_for(src, "gfx942").output


def test_libcuxx_stream_ref_compiles_with_the_layers_runtime_api(tmp_path):
    """cuda::stream_ref (libcu++, read by cuCollections) calls cudaStreamGetPriority and
    cudaStreamQuery in host code, which the device pass parses."""
    src = tmp_path / "k.cu"
    src.write_text("#include <cuda/stream_ref>\n__global__ void k(int *p) { p[0] = 1; }\n"
                   "int main() { cudaStream_t s; cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, 0);\n"
                   "  unsigned f; int d, lo, hi; cudaStreamGetFlags(s, &f); cudaStreamGetDevice(s, &d);\n"
                   "  cudaDeviceGetStreamPriorityRange(&lo, &hi); cuda::stream_ref r(s); r.wait();\n"
                   "  return r.ready() + r.priority(); }\n")
    assert "define" in compile_file(src, "gfx942", emit="llvm").output


@pytest.mark.parametrize("vendor,why", [
    ("AMD", "cuRAND's headers are not installed: pip install nvidia-curand-cu12"),
    ("NVIDIA", "cuRAND's headers are not installed: pip install nvidia-curand-cu12")])
def test_a_missing_curand_header_names_what_to_install(vendor, why):
    """lightseq includes <curand_kernel.h>: on NVIDIA targets it comes with NVIDIA's cuRAND wheel (not
    shflx's cuda extra, which the message for the other NVIDIA headers names)."""
    from shflx.frontend.unprovided import named_missing_header
    line = "k.cu:4:10: fatal error: 'curand_kernel.h' file not found"
    assert named_missing_header(line, vendor) == \
        f"k.cu:4:10: error: shflx does not support 'curand_kernel.h' on {vendor} targets ({why})"
    assert "shflx's cuda extra" in named_missing_header("k.cu:1:10: fatal error: 'cuda_fp16.h' file not found", "NVIDIA")


@pytest.mark.parametrize("arch", ["gfx942", "sm_90"])
def test_a_cuda_samples_helper_header_is_named_as_what_it_is(arch, tmp_path):
    """Rodinia's cfd includes <helper_cuda.h> and its Makefile adds -I$(CUDA_SDK_PATH)/common/inc:
    a header of cuda-samples, not of any CUDA toolkit; without that directory, one line saying so."""
    import subprocess
    import sys
    (tmp_path / "k.cu").write_text("#include <cstdio>\n#include <helper_cuda.h>\n__global__ void k(int *p) { p[0] = 1; }\n")
    r = subprocess.run([sys.executable, "-m", "shflx", "compile", "k.cu", "--offload-arch", arch, "-o", "k.o"],
                       capture_output=True, text=True, cwd=tmp_path)
    errors = [ln for ln in r.stderr.splitlines() if "error:" in ln and "rejected the source" not in ln]
    assert r.returncode == 2 and len(errors) == 1, r.stderr
    assert re.match(r"(\./)?k\.cu:2:10: error: shflx does not support 'helper_cuda.h' on (AMD|NVIDIA) targets \(a header "
                    r"of NVIDIA's cuda-samples \(Common/\), not of the CUDA toolkit", errors[0]), r.stderr
