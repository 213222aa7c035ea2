"""sm_NN device code compiled against NVIDIA's real CUDA headers (shflx[cuda]), and host-only
library headers that are not installed (both vendors)."""
from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from shflx.driver.nvidia import compile_cuda, cuda_headers
from shflx.errors import InputError
from shflx.frontend.clang import FrontendOptions
from shflx.frontend.host_only import library_of, missing_host_header

needs_cuda = pytest.mark.skipif(cuda_headers(FrontendOptions()) is None,
                                reason="NVIDIA's CUDA headers are not installed (pip install 'shflx[cuda]')")

# What the shflx prelude never had: CUB, cuda_fp16's class types, vector types, precise libdevice
# math, device printf, atomicInc, __ll2double_rn; an int butterfly (redux.sync on sm_90) and a
# float down-tree read by lane 0 (kept as shfl.sync: float add is not re-associated).
REAL = r"""
#include <cstdio>
#include <cstdint>
#include <cub/cub.cuh>
#include <cuda_fp16.h>
__global__ void reduce(const float4* in, float* out, int* total, unsigned* ticket, const __half* h, int64_t n) {
  float4 v = in[threadIdx.x];
  float s = expf(v.x) + powf(v.y, 2.5f) + __half2float(h[threadIdx.x]) + (float)__ll2double_rn(n);
  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
  int t = (int)threadIdx.x;
  for (int o = 16; o > 0; o >>= 1) t += __shfl_xor_sync(0xffffffffu, t, o);
  typedef cub::WarpReduce<int> WR;
  __shared__ typename WR::TempStorage tmp;
  int c = WR(tmp).Sum(t);
  if ((threadIdx.x & 31) == 0) { out[threadIdx.x / 32] = s; total[threadIdx.x / 32] = c + atomicInc(ticket, 100u); }
  if (n < 0) printf("negative n %lld\n", (long long)n);
}
int main() { reduce<<<1, 64>>>(nullptr, nullptr, nullptr, nullptr, nullptr, 0); return 0; }
"""


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    src = tmp_path_factory.mktemp("real") / "real.cu"
    src.write_text(REAL)
    return compile_cuda(src, "sm_90", emit="ptx")


@needs_cuda
def test_real_headers_compile_what_the_prelude_could_not(real):
    ptx = real.output
    assert re.search(r"^\.visible \.entry _Z6reducePK6float4PfPiPjPK6__halfl\(", ptx, re.M), \
        "kernel symbol as nvcc mangles it (float4, __half and int64_t = long are CUDA's own types)"
    assert "vprintf" in ptx and "atom.global.inc.u32" in ptx


@needs_cuda
def test_shuffles_from_clangs_intrinsics_are_sites_and_chains(real):
    by_shape = {(c.shape, c.op, c.type): c for c in real.chains}
    assert by_shape[("butterfly", "add", "i32")].status == "re-synthesized"
    fadd = by_shape[("down-tree", "fadd", "float")]
    assert fadd.status == "step by step"
    mine = [s for s in real.sites if s.location.endswith("real.cu:9:41")]
    assert [s.cuda for s in mine] == [f"__shfl_down_sync(0xffffffff, v, {o}, 32)" for o in (16, 8, 4, 2, 1)]
    # CUB's WarpReduce shuffles in inline PTX (cub/util_ptx.cuh), reported at the user's line that
    # calls it (the PTX's .loc names the user's innermost frame: docs/compile-flags.md)
    cub = [s for s in real.sites if "(inline asm)" in s.location]
    assert cub and all("real.cu:" in s.location and "site-packages" not in s.location for s in cub)
    assert re.search(r"redux\.sync\.add\.s32", real.output)
    assert len(re.findall(r"shfl\.sync\.down\.b32", real.output)) >= 5


@needs_cuda
@pytest.mark.skipif(shutil.which("ptxas") is None, reason="no ptxas to assemble with")
def test_the_ptx_assembles(real, tmp_path):
    (tmp_path / "k.ptx").write_text(real.output)
    r = subprocess.run(["ptxas", "-arch=sm_90", str(tmp_path / "k.ptx"), "-o", str(tmp_path / "k.cubin")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


# ------------------------------------------------------------------ host-only library headers

@pytest.mark.parametrize("header,lib", [("cublas_v2.h", "cuBLAS"), ("nvtx3/nvToolsExt.h", "NVTX"), ("mpi.h", "MPI"),
                                        ("cufft.h", "cuFFT"), ("library_types.h", "the CUDA library data types (cudaDataType)"),
                                        ("nvFatbin.h", "nvFatbin"), ("nvJitLink.h", "nvJitLink")])
def test_host_only_table(header, lib):
    assert library_of(header) == lib


@pytest.mark.parametrize("header", ["cub/cub.cuh", "cuda_runtime.h", "myproject/cublas_v2.h.in", "cublas_v2.hpp",
                                    "nvtx3/../../../../tmp/evil.h", "/usr/include/nvtx3/x.h", "nvtx3/a b.h"])
def test_other_headers_are_not_host_only(header):
    assert library_of(header) is None


def test_missing_host_header_reads_clangs_diagnostic():
    diag = "x.cu:3:10: fatal error: 'cublas_v2.h' file not found\n    3 | #include <cublas_v2.h>\n"
    assert missing_host_header(diag) == ("cublas_v2.h", "x.cu:3:10")
    assert missing_host_header(diag.replace("cublas_v2.h", "helper_cuda.h")) is None


UNUSED = """#include <cudnn.h>
#include <nccl.h>
__global__ void k(int* y) { y[threadIdx.x] = __shfl_xor_sync(0xffffffffu, y[threadIdx.x], 1); }
"""
USED = """#include <nccl.h>
__global__ void k(int* y) { ncclComm_t c; y[0] = (int)sizeof(c); }
"""


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:          # its parent package (nvidia) is not installed at all
        return False


def _shflx(*args, cwd):
    return subprocess.run([sys.executable, "-m", "shflx", *args], capture_output=True, text=True, cwd=cwd)


@pytest.mark.parametrize("arch", ["gfx942", "sm_90"])
def test_a_used_missing_nvfatbin_is_one_named_error(arch, tmp_path):
    """cuda-api-wrappers includes nvFatbin.h (CUDA 12.4+) and calls it from host code: with no
    nvFatbin installed the compile stops with one line naming the header, not clang's noise."""
    if _installed("nvidia.nvfatbin"):
        pytest.skip("nvFatbin's wheel is installed")
    (tmp_path / "k.cu").write_text("#include <nvFatbin.h>\nunsigned v() { unsigned a, b; nvFatbinVersion(&a, &b); return a; }\n"
                                   "__global__ void k(int *p) { p[0] = 1; }\n")
    r = _shflx("compile", "k.cu", "--offload-arch", arch, "-o", "k.o", cwd=tmp_path)
    assert r.returncode != 0
    assert re.search(r"^k\.cu:1:10: error: shflx does not support 'nvFatbin\.h' on (AMD|NVIDIA) targets \(nvFatbin is not "
                     r"installed and host code in this file uses it", r.stderr, flags=re.M), r.stderr
    (tmp_path / "u.cu").write_text("#include <nvFatbin.h>\n__global__ void k(int *p) { p[0] = 1; }\n")
    assert _shflx("compile", "u.cu", "--offload-arch", arch, "-o", "u.o", cwd=tmp_path).returncode == 0


@pytest.mark.parametrize("arch", ["gfx942", "sm_90"])
def test_unused_missing_host_headers_are_skipped_and_said(arch, tmp_path):
    (tmp_path / "k.cu").write_text(UNUSED)
    r = _shflx("compile", "k.cu", "--offload-arch", arch, "--emit", "llvm", "-o", "k.ll", "--report", "json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    import json
    (entry,) = json.loads(r.stdout)
    notes = entry["notes"]
    # cuDNN's and NCCL's wheels are not part of shflx[cuda] (a machine with them installed gets their real headers)
    assert not any(_installed(f"nvidia.{w}") for w in ("cudnn", "nccl")), "test premise"
    assert len(notes) == 2
    assert any(n.startswith("skipped host-only header cudnn.h (cuDNN, included at k.cu:1:10)") for n in notes)
    assert any(n.startswith("skipped host-only header nccl.h (NCCL, included at k.cu:2:10)") for n in notes)
    assert len(entry["sites"]) == 1


@pytest.mark.parametrize("arch", ["gfx942", "sm_90"])
def test_a_missing_header_device_code_uses_is_the_error(arch, tmp_path):
    (tmp_path / "k.cu").write_text(USED)
    r = _shflx("compile", "k.cu", "--offload-arch", arch, "-o", "k.out", cwd=tmp_path)
    assert r.returncode == 2
    assert (f"k.cu:1:10: error: shflx does not support 'nccl.h' on {'NVIDIA' if arch.startswith('sm_') else 'AMD'} "
            "targets (NCCL is not installed and host code in this file uses it") in r.stderr
    assert "the device pass fails at: k.cu:2:" in r.stderr and "'ncclComm_t'" in r.stderr   # where, and why
    assert "file not found" not in r.stderr
    assert "Traceback" not in r.stderr
    assert not (tmp_path / "k.out").exists()


def test_a_missing_project_header_is_not_skipped(tmp_path):
    src = tmp_path / "k.cu"
    src.write_text('#include "faiss/gpu/utils/DeviceUtils.h"\n__global__ void k() {}\n')
    with pytest.raises(InputError, match="DeviceUtils.h' file not found"):
        compile_cuda(src, "sm_90", emit="llvm")


VERSION_PROBE = r"""
#include <cuda_runtime.h>
__global__ void k(int* o) {
#if defined(__CUDACC_VER_MAJOR__) && defined(__CUDACC_VER_MINOR__) && defined(__CUDACC_VER_BUILD__)
  o[0] = __CUDACC_VER_MAJOR__; o[1] = __CUDACC_VER_MINOR__;
#else
  o[0] = -1; o[1] = -1;
#endif
  o[2] = CUDART_VERSION;
#if __CUDACC_VER_MAJOR__ >= 11
  o[3] = 11;  // DeepSpeed's test for __cvta_generic_to_shared; its other branch is broken inline PTX
#else
  asm volatile("not ptx at all");
#endif
}
"""


@needs_cuda
def test_nvcc_version_macros_match_the_headers_cuda_version(tmp_path):
    """nvcc defines __CUDACC_VER_MAJOR__/MINOR__ itself (not its headers): they must be the
    toolkit's version (CUDART_VERSION, read by the headers from cuda_runtime_api.h)."""
    src = tmp_path / "ver.cu"
    src.write_text(VERSION_PROBE)
    ptx = compile_cuda(src, "sm_90", emit="ptx").output
    stored = dict(re.findall(r"st\.global\.b32\s+\[%rd\d+(?:\+(\d+))?\],\s*(-?\d+);", ptx))
    rt = int(stored["8"])
    assert rt >= 11000, ptx
    assert (int(stored[""]), int(stored["4"])) == (rt // 1000, rt % 1000 // 10), stored
    assert stored["12"] == "11"


@needs_cuda
def test_host_code_calling_cudas_host_min_max_compiles(tmp_path):
    """nvcc's host pass has CUDA's host min/max/umin/llmax...; clang's device pass parses host code
    too, where only __device__ versions exist without shflx's stand-ins (cuda-samples'
    threadFenceReduction: `blocks = min(maxBlocks, blocks);`)."""
    src = tmp_path / "mm.cu"
    src.write_text("__global__ void k(int* p, int n) { p[0] = min(n, 3) + max(n, 1); }\n"
                   "int blocks(int n, int most) { return min(most, max(1, n / 64)) + (int)umin(1u, 2u)"
                   " + (int)llmax(1ll, 2ll); }\n")
    ptx = compile_cuda(src, "sm_90", emit="ptx").output
    assert re.search(r"\.entry _Z1kPii\(", ptx) and "blocks" not in ptx      # host code is not emitted


def test_a_stand_in_never_leaves_its_directory(tmp_path):
    """`#include <nvtx3/../../x.h>` must not make shflx write outside its stand-in directory."""
    from shflx.frontend.host_only import stand_in
    with pytest.raises(ValueError):
        stand_in(tmp_path / "root", "nvtx3/../../escaped.h")
    assert not (tmp_path / "escaped.h").exists()


@pytest.mark.parametrize("arch", ["gfx942", "sm_90"])
def test_host_code_that_uses_a_missing_library_names_both(arch, tmp_path):
    """The stand-in cannot serve a file whose host code calls the library (clang parses host code
    in its device pass): the error is the missing header, then where the stand-in failed."""
    (tmp_path / "k.cu").write_text("#include <nccl.h>\n__global__ void k(int* y) { y[0] = 1; }\n"
                                   "int host() { ncclComm_t c; return c != 0; }\n")
    r = _shflx("compile", "k.cu", "--offload-arch", arch, "-o", "k.out", cwd=tmp_path)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "k.cu:1:10: error: shflx does not support 'nccl.h'" in r.stderr
    assert "with an empty stand-in, the device pass fails at: k.cu:3:" in r.stderr


@pytest.mark.parametrize("arch", ["gfx942", "sm_90"])
def test_host_code_that_uses_a_missing_library_names_both_in_a_file_that_reads_cccl(arch, tmp_path):
    """NVIDIA's multi-gpu-programming-models jacobi.cu: CUB, then NVTX, which host code uses. A file
    that reads CCCL is compiled from its preprocessed text on AMD (frontend/ptx_operands.py), where
    the stand-in served the preprocessing and the compile failed after: the same one line."""
    (tmp_path / "k.cu").write_text("#include <cub/block/block_reduce.cuh>\n#include <nvtx3/nvToolsExt.h>\n"
                                   "__global__ void k(int* y) { y[0] = 1; }\n"
                                   "int host() { nvtxEventAttributes_t a = {0}; return a.version; }\n")
    r = _shflx("compile", "k.cu", "--offload-arch", arch, "-o", "k.out", cwd=tmp_path)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    errors = [ln for ln in r.stderr.splitlines() if ": error:" in ln and "rejected the source" not in ln]
    assert len(errors) == 1 and "k.cu:2:10: error: shflx does not support 'nvtx3/nvToolsExt.h'" in errors[0], r.stderr
    assert "with an empty stand-in, the device pass fails at: k.cu:4:" in errors[0], r.stderr


def test_which_nvidia_front_end_compiled_is_in_the_report(tmp_path, monkeypatch):
    import shflx.driver.nvidia as nv
    src = tmp_path / "k.cu"
    src.write_text("__global__ void k(int* p) { p[threadIdx.x] = 1; }\n")
    if nv.cuda_headers(FrontendOptions()) is not None:
        assert nv.PRELUDE_NOTE not in compile_cuda(src, "sm_90", emit="llvm").notes
    monkeypatch.setattr(nv, "cuda_headers", lambda opts: None)
    assert nv.PRELUDE_NOTE in compile_cuda(src, "sm_90", emit="llvm").notes


@needs_cuda
def test_every_documented_cache_hint_overload_and_dpx_compile_for_sm90(tmp_path):
    """__stcs/__stcg/__stwb/__ldca/__ldlu for every type (clang's wrapper writes only __ldcg, __ldcs,
    __ldcv, __stwt), and NVIDIA's own DPX code, whose inline PTX needs PTX ISA 8.0 (CUDA 12.0's)."""
    src = tmp_path / "k.cu"
    src.write_text("#include <cuda_fp16.h>\n"
                   "__global__ void k(float *p, float4 *q, int *i, double *d, __half *h, unsigned *u) {\n"
                   "  __stcs(p, p[1]); __stcs(q, q[1]); __stcg(i, __ldcs(i + 1)); __stwt(d, __ldcg(d + 1));\n"
                   "  __stcs(p + 2, __ldlu(p + 3)); __stwb(i + 2, __ldca(i + 3)); __stcs(h, __ldcs(h + 1));\n"
                   "  u[0] = __viaddmax_s16x2(u[1], u[2], u[3]) + __vimax3_s16x2_relu(u[1], u[2], u[3]);\n}\n")
    ptx = compile_cuda(src, "sm_90", emit="ptx").output
    assert re.search(r"^\.version 8\.\d", ptx, re.M)
    assert "max.s16x2" in ptx and "ld.global.cs.s32" in ptx      # NVIDIA's DPX asm; clang's own __ldcs(int *)


@needs_cuda
def test_host_code_calls_the_c_math_classification_unqualified_for_sm90(tmp_path):
    """nvcc's math_functions.h brings <math.h>, so host code (llm.c's validate_result, a template)
    calls isfinite/isnan unqualified after including only <cmath>."""
    src = tmp_path / "k.cu"
    src.write_text("#include <cmath>\ntemplate <class T> int bad(const T *p, int n) { int k = 0;\n"
                   "  for (int i = 0; i < n; ++i) k += !isfinite(p[i]) + isnan(p[i]) + (fabs(p[i]) > 1); return k; }\n"
                   "__global__ void k(float *p) { p[0] = expf(p[1]); }\nint main() { float v[2] = {}; return bad(v, 2); }\n")
    compile_cuda(src, "sm_90", emit="ptx")


def test_nvidias_fp16_headers_are_read_from_checked_copies(tmp_path, monkeypatch):
    """cuda_fp16/bf16 are read on AMD from copies whose "=h"/"f"/"l" constraints are written "r"
    (AMDGPU's clang rejects those letters): line for line NVIDIA's text otherwise; a copy found in
    the cache is used only if it holds exactly that text, and a cache directory others may write is
    not used at all."""
    from shflx.frontend.cuda_sdk import CONSTRAINTS_REWRITTEN, constraints_rewritten, runtime_include
    from shflx.frontend.ptx_operands import rewrite_constraints
    from shflx.driver.amd import compile_file

    inc = runtime_include()
    cache = tmp_path / "cache"
    monkeypatch.setenv("SHFLX_CACHE_DIR", str(cache))
    folder = constraints_rewritten(inc, tmp_path / "scratch")
    assert folder is not None and folder.parent == cache / "nvidia-headers"
    changed = set()
    for name in CONSTRAINTS_REWRITTEN:
        original, copy = (inc / name).read_text(), (folder / name).read_text()
        assert copy.count("\n") == original.count("\n")
        assert rewrite_constraints(copy) == copy and not re.search(r'"=?[hfl]"\s*\(', copy)
        changed |= {name} if copy != original else set()
    assert {"cuda_fp16.hpp", "cuda_bf16.hpp"} <= changed
    # a tampered copy is written again, and a compile that reads it is right
    (folder / "cuda_fp16.hpp").write_text('#error "tampered"\n')
    assert constraints_rewritten(inc, tmp_path / "scratch") == folder
    assert "tampered" not in (folder / "cuda_fp16.hpp").read_text()
    src = tmp_path / "h.cu"
    src.write_text("#include <cuda_fp16.h>\n__global__ void k(__half *p) { p[threadIdx.x] = __hadd(p[0], p[1]); }\n")
    compile_file(src, "gfx942")
    # a cache directory writable by others is not used: the copies go to the compile's scratch
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o777)
    shared.chmod(0o777)
    monkeypatch.setenv("SHFLX_CACHE_DIR", str(shared))
    assert constraints_rewritten(inc, tmp_path / "scratch").parent == tmp_path / "scratch" / "nvidia-headers"
    assert not any(shared.iterdir())


@pytest.mark.parametrize("arch", ["gfx942", "sm_90"])
def test_cublas_headers_define_nvidias_include_guards(arch, tmp_path):
    """cudahandbook's chError_cuda.h defines its cublas() check only `#ifdef CUBLAS_V2_H_`, NVIDIA's
    include guard of cublas_v2.h: shflx's stand-in (no nvidia-cublas-cu12 installed) defines it too."""
    (tmp_path / "k.cu").write_text(
        "#include <cublas_v2.h>\n#ifdef CUBLAS_V2_H_\n#define cublas(fn) (cublas##fn)\n#endif\n#include <cublas_api.h>\n"
        "#ifndef CUBLAS_API_H_\n#error no guard\n#endif\n"
        "cublasStatus_t make(cublasHandle_t *h) { return cublas(Create(h)); }\n"
        "__global__ void k(int *p) { p[0] = 1; }\n")
    r = _shflx("compile", "k.cu", "--offload-arch", arch, "-o", "k.o", cwd=tmp_path)
    assert r.returncode == 0, r.stderr


def test_toolkit_headers_the_layer_provides_on_amd_are_found(tmp_path):
    """sm_20/30/32/61_intrinsics.h (__syncthreads_count, shuffles, __ldg, funnel shifts, __dp4a: the
    layer's), sm_35_intrinsics.h (NVIDIA's own is its include guard only) and cudaTypedefs.h (PFN_cu* types, read as NVIDIA writes them) by name, as
    cudahandbook's testFunnelShift.cu, reductionWarpShuffle.cuh and NVIDIA/warp's native code include them."""
    (tmp_path / "k.cu").write_text(
        "#include <sm_20_intrinsics.h>\n#include <sm_30_intrinsics.h>\n#include <sm_61_intrinsics.h>\n"
        "#include <sm_32_intrinsics.h>\n#include <sm_35_intrinsics.h>\n#include <cudaTypedefs.h>\n"
        "PFN_cuInit init_entry = nullptr;\n"
        "__global__ void k(unsigned *p, const unsigned *q) {\n"
        "  p[0] = __funnelshift_l(__ldg(q), q[1], 3) + __shfl_xor_sync(0xffffffffu, q[2], 1) + __dp4a(q[3], q[4], 0u);\n"
        "  p[1] = __syncthreads_count(q[5] > 0);\n}\n")
    r = _shflx("compile", "k.cu", "--offload-arch", "gfx942", "-o", "k.o", cwd=tmp_path)
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("arch", ["gfx942", "sm_90"])
@pytest.mark.parametrize("ndebug", [[], ["-DNDEBUG"]])
def test_a_release_build_with_cccl_and_assert_compiles(arch, ndebug, tmp_path):
    """CMake's Release flags (-O3 -DNDEBUG) with CUB: CCCL declares __assert_fail again, __host__
    __device__, for nvcc under NDEBUG (NVIDIA warp's native/*.cu; any release build of a file that
    reads CCCL): it compiles, and without NDEBUG a device assert still aborts the kernel (a trap)."""
    (tmp_path / "k.cu").write_text("#include <cub/cub.cuh>\n#include <cassert>\n"
                                   "__global__ void k(int *p) { assert(p[1] == 7); p[0] = 1; }\n"
                                   "int main() { assert(sizeof(int) == 4); return 0; }\n")
    r = _shflx("compile", "k.cu", "--offload-arch", arch, *ndebug, "--emit", "llvm", "-o", "k.ll", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    ir = (tmp_path / "k.ll").read_text()
    kernel = ir[ir.index("@_Z1kPi("):]
    kernel = kernel[:kernel.index("\n}\n")]
    if arch.startswith("gfx"):
        assert ("@llvm.trap()" in kernel) == (not ndebug) and "@__assert_fail" not in kernel, kernel


@pytest.mark.parametrize("arch", ["gfx942", "sm_90"])
def test_a_host_template_that_names_syncthreads_compiles(arch, tmp_path):
    """NVIDIA warp's tile_matmul.h: a function template without an execution space (never
    instantiated for the host) calls __syncthreads, which nvcc accepts and clang's NVPTX builtin
    allows; AMD's has a host overload (never compiled) beside the device one."""
    (tmp_path / "k.cu").write_text("template <class T> T &twice(T &x) { x += x; __syncthreads(); return x; }\n"
                                   "__global__ void k(int *p) { __syncthreads(); p[threadIdx.x] = 1; }\n")
    r = _shflx("compile", "k.cu", "--offload-arch", arch, "-o", "k.o", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
