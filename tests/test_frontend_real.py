"""Real CUDA in (issue 12): the host's real C/C++ headers, host code with runtime API calls and
launches, CUDA version macros, and device calls shflx cannot provide named as such. Corpus units
(unmodified third-party files: tests/corpus_location.py) compile as written."""
from __future__ import annotations

import os
import re

import pytest

from shflx.driver.amd import compile_file
from shflx.driver.nvidia import compile_cuda
from shflx.errors import InputError
from shflx.frontend.clang import FrontendOptions

from corpus_location import require_corpus


WHOLE_FILE = r'''
#include <cstdlib>
#include <cstdio>
#include <cmath>
#include <climits>
#include <cstdint>
#include <algorithm>
#include <limits>
#include <type_traits>
#include <vector>
#include <string>
#include <array>
#include <iostream>
static_assert(std::is_same<int64_t, long>::value, "int64_t is long on x86_64 Linux, as nvcc sees it");
#if !defined(CUDART_VERSION) || CUDART_VERSION < 11000 || __CUDACC_VER_MAJOR__ < 11
#error "the CUDA version macros must say a modern toolkit"
#endif
template <typename T> __device__ T warp_sum(T v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);
  return v;
}
__global__ void k(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  out[i] = std::max(warp_sum(v), 0) + (CHAR_BIT - 8) + std::numeric_limits<int>::min() * 0;
}
int main(int argc, char **argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 256;
  std::vector<int> h(n, 1);
  int *d_in, *d_out;
  cudaMalloc(&d_in, n * sizeof(int));
  cudaMalloc((void **)&d_out, n * sizeof(int));
  cudaMemcpy(d_in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  cudaStream_t s; cudaStreamCreate(&s);
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  cudaEventRecord(a, s);
  k<<<(n + 255) / 256, 256, 0, s>>>(d_in, d_out, n);
  cudaEventRecord(b, s); cudaEventSynchronize(b);
  float ms; cudaEventElapsedTime(&ms, a, b);
  if (cudaGetLastError() != cudaSuccess) { std::printf("%s\n", cudaGetErrorString(cudaGetLastError())); return 1; }
  std::cout << ms << std::endl;
  cudaFree(d_in); cudaFree(d_out);
  return 0;
}
'''


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_a_whole_file_with_std_headers_and_host_code_compiles_its_device_code(tmp_path, arch):
    src = tmp_path / "whole.cu"
    src.write_text(WHOLE_FILE)
    res = compile_file(src, arch, emit="asm")
    assert [(c.shape, c.op) for c in res.chains] == [("butterfly", "add")]
    assert "ds_bpermute" not in res.output
    assert "main" not in re.findall(r"^(\w+):", res.output, flags=re.M)        # host code is not emitted


def test_the_same_file_compiles_for_nvidia(tmp_path):
    src = tmp_path / "whole.cu"
    src.write_text(WHOLE_FILE)
    res = compile_cuda(src, "sm_90", emit="ptx")
    assert ".entry _Z1kPKiPii" in res.output


@pytest.mark.parametrize("arch", ["gfx942", "sm_90"])
def test_cxx17_removed_library_names_that_libstdcxx_keeps_compile(tmp_path, arch):
    """nvcc's Linux host library (libstdc++) keeps std::binary_function, unary_function, bind1st,
    ptr_fun, random_shuffle, auto_ptr in C++17; old moderngpu's functors derive from them. The AMD
    pass reads libc++, which removes them unless asked: the same names compile for both vendors."""
    src = tmp_path / "k.cu"
    src.write_text("#include <functional>\n#include <memory>\n#include <algorithm>\n"
                   "template <class T> struct plus_op : std::binary_function<T, T, T> {\n"
                   "  __device__ T operator()(T a, T b) const { return a + b; } };\n"
                   "struct neg_op : std::unary_function<int, int> { __device__ int operator()(int a) const { return -a; } };\n"
                   "typedef std::auto_ptr<int> owner;\n"
                   "int sub(int a, int b) { return a - b; }\n"
                   "void host(int *b, int *e) { std::random_shuffle(b, e); std::bind1st(std::ptr_fun(sub), 0)(1); }\n"
                   "__global__ void k(int *p) { p[0] = plus_op<int>()(p[1], neg_op()(p[2])); }\n")
    out = compile_cuda(src, arch, emit="ptx").output if arch.startswith("sm_") else \
        compile_file(src, arch, emit="llvm").output
    assert "_Z1kPi" in out


@pytest.mark.parametrize("body,name", [
    ("__global__ void k(int **p) { p[0] = (int *)malloc(4); }", "malloc"),
    ("__global__ void k(int **p) { free(p[0]); }", "free"),
])
def test_a_device_call_shflx_cannot_provide_is_named_with_its_line(tmp_path, body, name):
    src = tmp_path / "k.cu"
    src.write_text("#include <cstdio>\n#include <cstdlib>\n" + body + "\n")
    with pytest.raises(InputError) as e:
        compile_file(src, "gfx942")
    msg = str(e.value)
    assert msg.startswith(f"{src}:3:") and f"shflx does not support '{name}' in device code on AMD targets" in msg
    assert "\n" not in msg


def test_printf_in_host_code_and_assert_in_device_code_compile(tmp_path):
    src = tmp_path / "k.cu"
    src.write_text('#include <cstdio>\n#include <cassert>\n'
                   '__global__ void k(int *p) { assert(p != nullptr); p[0] = 1; }\n'
                   'void report(int x) { printf("%d\\n", x); }\n')
    asm = compile_file(src, "gfx942", emit="asm").output
    assert "s_trap" in asm                                     # a failing assert aborts the kernel
    assert "__ockl_printf" not in asm and "@printf" not in asm


def test_nvidia_links_device_printf_as_nvcc_does(tmp_path):
    src = tmp_path / "k.cu"
    src.write_text('#include <cstdio>\n__global__ void k(int *p) { printf("%d\\n", p[0]); }\n')
    assert "vprintf" in compile_cuda(src, "sm_90", emit="ptx").output


CORPUS_UNITS = ["ROCm__HIPIFY/tests/unit_tests/samples/reduction.cu",
                "ROCm__HIPIFY/tests/unit_tests/samples/axpy.cu",
                "ROCm__HIPIFY/tests/unit_tests/kernel_launch/kernel_launch_syntax.cu"]


@pytest.mark.parametrize("unit", CORPUS_UNITS)
def test_corpus_units_compile_as_written(unit):
    compile_file(require_corpus() / unit, "gfx942", emit="llvm")


def test_cooperative_groups_rank_by_linear_thread_id_and_grid_sync_compiles(tmp_path):
    """Tiles number threads by the linear thread id (2-D blocks too); free cg::sync, thread_group
    and a grid-wide sync (tests/test_cuda_layer.py checks its barrier) compile."""
    src = tmp_path / "k.cu"
    src.write_text('#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n'
                   '__global__ void k(int *p) { cg::thread_block b = cg::this_thread_block();\n'
                   '  cg::thread_group g = b; cg::sync(g);\n'
                   '  auto t = cg::tiled_partition<8>(b); p[b.thread_rank()] = t.thread_rank() + t.meta_group_rank(); }\n')
    ir = compile_file(src, "gfx942", emit="llvm").output
    assert "workitem.id.y" in ir                       # the rank reads threadIdx.y (linear id)
    src.write_text('#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n'
                   '__global__ void k(int *p) { cg::grid_group g = cg::this_grid(); p[g.thread_rank()] = 0; g.sync(); }\n')
    assert "@__shflx_cg_grid_workspace = " in compile_file(src, "gfx942", emit="llvm").output


def test_an_api_the_cuda_layer_lacks_is_one_line_naming_shflx(tmp_path):
    """clang words it "'tex1Dfetch<float>' is unavailable: <our message>"; the user sees our message alone."""
    src = tmp_path / "g.cu"
    src.write_text("#include <cstdio>\n__global__ void k(cudaTextureObject_t t, float *p) { p[0] = tex1Dfetch<float>(t, 0); }\n")
    with pytest.raises(InputError) as e:
        compile_file(src, "gfx942")
    line = next(ln for ln in str(e.value).splitlines() if ln.startswith(f"{src}:2:"))
    assert line.startswith(f"{src}:2:") and "is unavailable" not in line
    assert line.split(": error: ", 1)[1].startswith("shflx does not support 'tex1Dfetch")


def test_a_clang_on_path_without_its_builtin_headers_is_passed_over(tmp_path, monkeypatch):
    """A wrapper around a clang binary outside its installation (the AMD emulator puts one first on
    PATH) finds no stddef.h; shflx must not pick it, or every file including a C header fails."""
    import sys

    from shflx.frontend import toolchain
    real = [sys.executable, "-m", "ziglang", "clang"]
    wrapper = tmp_path / "clang"
    wrapper.write_text(f"#!/bin/sh\nexec {' '.join(real)} \"$@\"\n")     # the emulator's wrapper, as written
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("ROCM_PATH", str(tmp_path / "no-rocm"))
    monkeypatch.delenv("SHFLX_LLVM_BIN", raising=False)
    toolchain._find_clang.cache_clear()
    try:
        assert toolchain.find_clang().origin == "ziglang"
        src = tmp_path / "k.cu"
        src.write_text("#include <cstdio>\n#include <vector>\n__global__ void k(int *p) { p[threadIdx.x] = 1; }\n")
        assert compile_file(src, "gfx942").output[:4] == b"\x7fELF"
    finally:
        toolchain._find_clang.cache_clear()


@pytest.mark.parametrize("cov,slot", [(None, 9), ("4", 3), ("5", 9)])
def test_device_printf_is_rocms_buffered_printf(tmp_path, cov, slot):
    """Device printf compiles as ROCm's buffered printf: the format strings in the code object's
    amdhsa.printf metadata (which the HIP runtime reads to print the buffer after the kernel), the
    kernel given the hidden printf-buffer argument, which __printf_alloc reads at the implicit
    argument slot of the code object version (hw_tests/amd/test_cuda_printf_hw.py runs it)."""
    from shflx.codegen.inspect import inspect_code_object
    from shflx.frontend.clang import FrontendOptions
    src = tmp_path / "k.cu"
    src.write_text('#include <cstdio>\nextern "C" __global__ void k(int *p) { printf("p[0] = %d, %s\\n", p[0], "x"); }\n')
    extra = (f"-mcode-object-version={cov}",) if cov else ()
    res = compile_file(src, "gfx942", opts=FrontendOptions(extra=extra))
    meta = inspect_code_object(res.output).metadata
    [fmt] = meta["amdhsa.printf"]
    assert fmt.endswith(",p[0] = %d, %s\n")
    [kernel] = meta["amdhsa.kernels"]
    offsets = {a[".value_kind"]: a[".offset"] for a in kernel[".args"]}
    explicit = 8                                           # one pointer argument
    assert offsets["hidden_printf_buffer"] == explicit + 8 * slot
    ir = compile_file(src, "gfx942", emit="llvm", opts=FrontendOptions(extra=extra)).output
    assert "@__printf_alloc(i32" in ir and "__ockl_printf" not in ir


# clang 22.1's optimizer can die by SIGSEGV on valid code (TensorRT's topkLastDim.cu: InferAddressSpaces
# leaves a null operand, InstCombine crashes on it) after printing only warnings.
CRASH_WARNINGS = "k.cu:1:40: warning: equality comparison with extraneous parentheses [-Wparentheses-equality]\n"


def _killed_unless(monkeypatch, survives, signal_number=-11):
    """clang as run by the front end, killed by SIGSEGV (or `signal_number`) after its warnings
    unless `survives(args)`."""
    import subprocess

    from shflx.frontend import clang
    real = clang._run_clang
    calls = []

    def run(tool, args):
        calls.append(args)
        if "-emit-llvm" in args and not survives(args):
            return subprocess.CompletedProcess(args, signal_number, "", CRASH_WARNINGS + "1 warning generated.\n")
        return real(tool, args)
    monkeypatch.setattr(clang, "_run_clang", run)
    return calls


@pytest.mark.parametrize("source", ["__global__ void k(int *p) { p[threadIdx.x] = 1; }\n",
                                    # an "l" operand: the preprocessed path (frontend/ptx_operands.py)
                                    '__global__ void k(int *p) { asm volatile("st.global.u32 [%0], %1;" :: '
                                    '"l"(p + threadIdx.x), "r"(1)); }\n'])
def test_a_crashed_optimizer_is_run_again_without_infer_address_spaces_and_the_report_says_so(tmp_path, monkeypatch,
                                                                                                source):
    calls = _killed_unless(monkeypatch, lambda args: "-opt-disable=infer-address-spaces" in args)
    src = tmp_path / "k.cu"
    src.write_text(source)
    res = compile_file(src, "gfx1100", emit="asm")
    assert re.search(r"global_store_b32", res.output)
    assert [n for n in res.notes if "killed by SIGSEGV" in n and "without LLVM's infer-address-spaces pass" in n], res.notes
    assert sum("-emit-llvm" in a for a in calls) == 2


def test_clang_stopped_from_outside_is_not_retried_and_not_called_a_crash(tmp_path, monkeypatch):
    """SIGKILL (the out-of-memory killer, a kill) is no crash: one run, one line that says so; Ctrl-C
    (SIGINT) reaching clang stops the build as an interrupt."""
    calls = _killed_unless(monkeypatch, lambda args: False, signal_number=-9)
    src = tmp_path / "k.cu"
    src.write_text("__global__ void k(int *p) { p[threadIdx.x] = 1; }\n")
    with pytest.raises(InputError, match=r"clang was stopped by SIGKILL \(from outside"):
        compile_file(src, "gfx1100", emit="asm")
    assert sum("-emit-llvm" in a for a in calls) == 1
    _killed_unless(monkeypatch, lambda args: False, signal_number=-2)
    with pytest.raises(KeyboardInterrupt):
        compile_file(src, "gfx1100", emit="asm")


def test_a_crash_of_clang_is_one_line_that_says_so_not_its_warnings(tmp_path, monkeypatch):
    """Never a failure that shows only warnings: clang killed twice is one line naming the signal."""
    _killed_unless(monkeypatch, lambda args: False)
    src = tmp_path / "k.cu"
    src.write_text("__global__ void k(int *p) { p[threadIdx.x] = 1; }\n")
    with pytest.raises(InputError) as e:
        compile_file(src, "gfx1100", emit="asm")
    assert str(e.value) == (f"{src}: error: the CUDA front end failed: clang was killed by SIGSEGV (a crash of clang "
                            "itself, not an error in the source)")


@pytest.mark.parametrize("source, error", [
    ("__global__ void k(int *p) { if ((p[0] == 1)) p[1] = undeclared; }\n",
     r"k\.cu:1:\d+: error: use of undeclared identifier 'undeclared'"),
    ('#include "not_there.h"\n__global__ void k(int *p) { p[0] = 1; }\n',
     r"k\.cu:1:10: fatal error: 'not_there\.h' file not found"),
])
def test_a_clang_failure_shows_its_own_error_line(tmp_path, source, error):
    src = tmp_path / "k.cu"
    src.write_text(source)
    with pytest.raises(InputError) as e:
        compile_file(src, "gfx1100", emit="asm")
    assert re.search(error, str(e.value))


def test_an_unoptimized_compile_that_crashes_is_not_run_again(tmp_path, monkeypatch):
    """The retry is for the optimizer's pass; at -O0 there is none to leave out: one run, one line."""
    calls = _killed_unless(monkeypatch, lambda args: False)
    src = tmp_path / "k.cu"
    src.write_text("__global__ void k(int *p) { p[threadIdx.x] = 1; }\n")
    with pytest.raises(InputError, match=r"clang was killed by SIGSEGV"):
        compile_file(src, "gfx1100", emit="asm", opts=FrontendOptions(opt=0))
    assert sum("-emit-llvm" in a for a in calls) == 1 and "-O0" in calls[0]
