"""What a .cu file may declare or do under nvcc, on sm_90 and AMD: its own declarations never clash
with what shflx includes implicitly where nvcc's implicit headers have no such name, and what nvcc
also refuses (a kernel launched from device code without -rdc=true; -fgpu-rdc on AMD) is one line
naming what is missing, and -fgpu-rdc on sm_90 is nvcc's -rdc=true. Small inline sources,
one per class."""
from __future__ import annotations

import re
import subprocess
import sys

import pytest

from shflx.errors import InputError
from shflx.frontend.nvcc_differences import builtin_clashes
from tests.conftest import clean_error, compile_for

OWN_UINT = """typedef unsigned long long uint64_t;
typedef unsigned int uint32_t;
typedef unsigned short uint16_t;
typedef unsigned char uint8_t;
__global__ void k(uint64_t *p, const uint32_t *q, const uint16_t *h, const uint8_t *b) {
  p[threadIdx.x] = q[threadIdx.x] + h[threadIdx.x] + b[threadIdx.x];
}
"""
# nvcc's own headers declare glibc's signed intN_t (<stdlib.h> -> <sys/types.h>): nvcc rejects these too
OWN_INT64 = "typedef long long int64_t;\n__global__ void k(int64_t *p) { p[0] = 1; }\n"
# macros and helpers a file commonly defines for itself: none of their names is the layer's
OWN_HELPERS = r"""
#define min(a, b) ((a) < (b) ? (a) : (b))
#define max(a, b) ((a) > (b) ? (a) : (b))
#define WARP_SIZE 32
#define FULL_MASK 0xffffffffu
#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))
#include <cuda_fp16.h>
typedef unsigned int uint;
typedef unsigned short ushort;
typedef unsigned long ulong;
typedef unsigned char uchar;
__device__ float2 operator+(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }
__device__ float4 operator*(float4 a, float s) { return make_float4(a.x * s, a.y * s, a.z * s, a.w * s); }
__device__ float atomicMax(float *addr, float v) { return __int_as_float(atomicMax((int *)addr, __float_as_int(v))); }
__device__ uint lane_id() { return threadIdx.x % WARP_SIZE; }
__device__ float warp_sum(float v) { for (int o = 16; o; o >>= 1) v += __shfl_xor_sync(FULL_MASK, v, o); return v; }
__global__ void k(float2 *p, float4 *q, float *m, ulong n, uchar c) {
  p[0] = p[1] + p[2]; q[0] = q[1] * 2.0f;
  atomicMax(m, warp_sum(max(min(m[lane_id()], 1.0f), 0.0f)) + CEIL_DIV(n, 2) + c);
}
"""
DEVICE_LAUNCH = "__global__ void child(int *p) { p[threadIdx.x] = 1; }\n" \
                "__global__ void parent(int *p) { child<<<1, 32>>>(p); }\n"


def _fails(src, arch) -> str:
    with pytest.raises(InputError) as e:
        compile_for(src, arch)
    return str(e.value)


@pytest.mark.parametrize("arch", ["sm_90", "gfx942"])
def test_own_helpers_and_macros_compile(arch, tmp_path):
    (tmp_path / "k.cu").write_text(OWN_HELPERS)
    compile_for(tmp_path / "k.cu", arch)


def test_own_unsigned_fixed_width_typedefs_compile_for_sm90(tmp_path):
    """nvcc declares no uint8_t ... uint64_t implicitly; clang's CUDA wrapper brought them through
    NVIDIA's cuda.h (<stdint.h>), as 'unsigned long'. The kernel's symbol is nvcc's: y is unsigned
    long long."""
    (tmp_path / "k.cu").write_text(OWN_UINT)
    ptx = compile_for(tmp_path / "k.cu", "sm_90").output
    assert re.search(r"^\.visible \.entry _Z1kPyPKjPKtPKh\(", ptx, re.M)


def test_own_cuda_h_include_still_reads_nvidias(tmp_path):
    """A file's own #include <cuda.h> is NVIDIA's whole header (its driver API types), after the
    wrapper's first inclusion read only the version."""
    (tmp_path / "k.cu").write_text("#include <cuda.h>\n#include <stdint.h>\n"
                                   "__global__ void k(uint64_t *p, const cuuint32_t *q) { p[0] = q[0] + CUDA_VERSION; }\n"
                                   "int host() { CUresult r = CUDA_SUCCESS; CUdeviceptr d = 0; return (int)r + (int)d; }\n")
    ptx = compile_for(tmp_path / "k.cu", "sm_90").output
    assert "_Z1kPmPKj" in ptx                  # uint64_t is <stdint.h>'s again: unsigned long


def test_own_unsigned_fixed_width_typedefs_compile_for_amd_as_nvcc_reads_them(tmp_path):
    """libc++ declares uint64_t (as 'unsigned long') in every file: the C library's typedef takes the
    file's type, so the kernel's symbol is nvcc's (y: unsigned long long), and the report says so."""
    (tmp_path / "k.cu").write_text(OWN_UINT)
    res = compile_for(tmp_path / "k.cu", "gfx942")
    assert re.search(r"^define .*@_Z1kPyPKjPKtPKh\(", res.output, re.M)
    assert any("uint64_t is 'unsigned long long' here, the type the file's own typedef gives it" in n for n in res.notes)


@pytest.mark.parametrize("mine, name", [("unsigned long", "uint32_t"), ("long long", "uint64_t")])
def test_own_fixed_width_typedef_of_another_width_or_sign_on_amd_is_one_line(mine, name, tmp_path):
    """Library code must not see a 64-bit uint32_t or a signed uint64_t: one line, no rewrite."""
    (tmp_path / "k.cu").write_text(f"typedef {mine} {name};\n__global__ void k({name} *p) {{ p[0] = 1; }}\n")
    msg = _fails(tmp_path / "k.cu", "gfx942")
    assert re.search(rf"k\.cu:1:\d+: error: shflx does not support 'typedef {mine} {name}' on AMD targets \(.*"
                     r"include <stdint\.h> in place of the typedef\)", msg), msg
    assert "typedef redefinition" not in msg


@pytest.mark.parametrize("arch", ["sm_90", "gfx942"])
def test_own_signed_typedef_of_another_type_fails_as_with_nvcc(arch, tmp_path):
    (tmp_path / "k.cu").write_text(OWN_INT64)
    msg = _fails(tmp_path / "k.cu", arch)
    assert "k.cu:1:19: error: typedef redefinition with different types ('long long' vs" in msg
    assert "shflx does not support" not in msg


@pytest.mark.parametrize("arch, said", [
    ("sm_90", "a kernel launch from device code (dynamic parallelism) needs relocatable device code: compile with "
              "-fgpu-rdc (nvcc's -rdc=true) and link the object with NVIDIA's device runtime library, cudadevrt"),
    ("gfx942", "shflx does not support 'kernel launch from device code' on AMD targets (AMD GPUs have no "
               "device-side kernel launch)")])
def test_kernel_launch_from_device_code_is_one_line(arch, said, tmp_path):
    (tmp_path / "k.cu").write_text(DEVICE_LAUNCH)
    msg = _fails(tmp_path / "k.cu", arch)
    errors = [ln for ln in msg.splitlines() if re.match(r".*:\d+:\d+: error:", ln)]   # clang's, as shflx says them
    assert len(errors) == 1 and errors[0].startswith(f"{tmp_path / 'k.cu'}:2:39: error: {said}"), msg


EXTERN = "extern __device__ int f(int);\nextern __device__ int n;\n__global__ void k(int *p) { p[0] = f(p[1]) + n; }\n"


def _shflx(tmp_path, *args):
    return subprocess.run([sys.executable, "-m", "shflx", "compile", *args], capture_output=True, text=True, cwd=tmp_path)


@pytest.mark.parametrize("flag", ["-fgpu-rdc", "-rdc=true", "--relocatable-device-code=true"])
def test_relocatable_device_code_for_sm90_is_ptxas_relocatable_object(flag, tmp_path):
    """nvcc -rdc=true's object: what other files define is .extern in the PTX, and the cubin is an
    ELF of type ET_REL (ptxas -c) for the device link (hw_tests/nvidia/test_rdc_hw.py links and runs
    two such files and a device-side launch with cudadevrt on a GPU)."""
    (tmp_path / "k.cu").write_text(EXTERN + DEVICE_LAUNCH + "__device__ int g(int x) { return x + 1; }\n")
    r = _shflx(tmp_path, "k.cu", "--offload-arch", "sm_90", flag, "-o", "k.o", "--report-file", "k.json")
    assert r.returncode == 0, r.stderr
    elf = (tmp_path / "k.o").read_bytes()
    assert elf[:4] == b"\x7fELF" and int.from_bytes(elf[16:18], "little") == 1        # e_type ET_REL
    r = _shflx(tmp_path, "k.cu", "--offload-arch", "sm_90", flag, "-S", "-o", "k.ptx")
    ptx = (tmp_path / "k.ptx").read_text()
    assert r.returncode == 0 and re.search(r"^\.extern \.func .*_Z1fi$", ptx, re.M)
    assert re.search(r"^\.extern \.global .* n;$", ptx, re.M) and re.search(r"^\.visible \.func .*_Z1gi\($", ptx, re.M)
    assert "__cudaCDP2LaunchDevice" in ptx                                   # the device runtime's launch
    assert "relocatable device code (-fgpu-rdc)" in (tmp_path / "k.json").read_text()


def test_without_rdc_an_extern_device_function_is_one_line(tmp_path):
    (tmp_path / "k.cu").write_text(EXTERN)
    r = _shflx(tmp_path, "k.cu", "--offload-arch", "sm_90", "-o", "k.o")
    clean_error(r, 2, "call to undefined device function(s) _Z1fi", "or compile with -fgpu-rdc")


@pytest.mark.parametrize("flag", ["-fgpu-rdc", "-rdc=true", "-dc"])
def test_relocatable_device_code_for_amd_compiles_a_file_that_defines_what_it_uses(flag, tmp_path):
    """lightseq and BitCrack build every file with -rdc=true: on AMD a file whose device code is its
    own compiles as without the flag (the same code), the report notes it; a file that needs another's
    device function or variable is one line naming them, for AMD, with the flag or without."""
    (tmp_path / "own.cu").write_text("__device__ int g(int x) { return x * 3; }\n__device__ int n;\n"
                                     "__global__ void k(int *p) { p[0] = g(p[1]) + n; }\n")
    asm = {}
    for words in ([flag], []):
        r = _shflx(tmp_path, "own.cu", "--offload-arch", "gfx942", *words, "-S", "-o", "-",
                   *(["--report-file", "own.json"] if words else []))
        assert r.returncode == 0, r.stderr
        asm[bool(words)] = r.stdout
    assert asm[True] == asm[False] and "global_load" in asm[True]
    assert "relocatable device code (-rdc=true): AMD links" in (tmp_path / "own.json").read_text()
    (tmp_path / "k.cu").write_text(EXTERN)
    for words in ([flag], []):
        r = _shflx(tmp_path, "k.cu", "--offload-arch", "gfx942", *words, "-o", "k.o")
        clean_error(r, 2, "call to undefined device function(s) _Z1fi",
                    "separate compilation of device code is not supported on AMD targets")
        assert len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_an_extern_device_variable_on_amd_is_one_line(tmp_path):
    """ld.lld's 'undefined protected symbol' had been the message; the variables are named instead."""
    (tmp_path / "k.cu").write_text("extern __device__ int n;\nextern __constant__ float c;\n"
                                   "__global__ void k(int *p) { p[0] = n + (int)c; }\n")
    r = _shflx(tmp_path, "k.cu", "--offload-arch", "gfx942", "-rdc=true", "-o", "k.o")
    clean_error(r, 2, "undefined device variable(s) c, n",
                "separate compilation of device code is not supported on AMD targets")
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_without_rdc_an_extern_device_variable_is_one_line(tmp_path):
    """ptxas accepts the .extern variable and the module would fail only when loaded; nvcc refuses it."""
    (tmp_path / "k.cu").write_text("extern __device__ int n;\nextern __constant__ float c;\n"
                                   "__global__ void k(int *p) { p[0] = n + (int)c; }\n")
    r = _shflx(tmp_path, "k.cu", "--offload-arch", "sm_90", "-o", "k.o")
    clean_error(r, 2, "undefined device variable(s) c, n", "or compile with -fgpu-rdc")
    (tmp_path / "s.cu").write_text("extern __shared__ float dyn[];\n"          # dynamic shared memory: no definition
                                   "__global__ void k(float *p) { dyn[threadIdx.x] = p[0]; p[1] = dyn[0]; }\n")
    r = _shflx(tmp_path, "s.cu", "--offload-arch", "sm_90", "-o", "s.o")
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("arch,first", [("gfx942", ""), ("sm_90", ""), ("gfx942", "#include <cooperative_groups.h>\n")])
def test_a_function_named_as_a_clang_builtin_compiles_renamed(arch, first, tmp_path):
    """VanitySearch's Int.h defines `static uint64_t __rdtsc()`: GCC (nvcc's host compiler) has no
    such builtin, clang has one of type unsigned long long (); the device pass compiles the
    program's function under another name, and the report says so (also on the path that compiles
    preprocessed text, which a file reading NVIDIA's cooperative groups takes)."""
    (tmp_path / "k.cu").write_text(first + "#include <stdint.h>\nstatic uint64_t inline __rdtsc() { return 1; }\n"
                                   "uint64_t now() { return __rdtsc(); }\n__global__ void k(int *p) { p[0] = 1; }\n")
    res = compile_for(tmp_path / "k.cu", arch)
    assert [n for n in res.notes if "'__rdtsc' is compiled as '__shflx_program___rdtsc'" in n], res.notes


def test_the_builtin_clash_is_read_from_clangs_error_and_note():
    stderr = ("k.cu:2:24: error: conflicting types for '__rdtsc'\n"
              "    2 | static uint64_t inline __rdtsc() { return 1; }\n"
              "k.cu:2:24: note: '__rdtsc' is a builtin with type 'unsigned long long ()'\n"
              "k.cu:9:3: error: use of undeclared identifier 'x'\n")
    assert builtin_clashes(stderr) == ["__rdtsc"]
    assert builtin_clashes("k.cu:9:3: error: use of undeclared identifier 'x'\n") == []
    # clang 15 (Debian's hipcc, the host pass of `-c`) prints the builtin's type as a number
    assert builtin_clashes("k.cu:2:24: error: static declaration of '__rdtsc' follows non-static declaration\n"
                           "k.cu:2:24: note: '__rdtsc' is a builtin with type 1\n") == ["__rdtsc"]


def test_a_device_function_named_as_an_ms_builtin_compiles_renamed(tmp_path):
    """NVIDIA/warp's builtin.h: `__device__ inline void __debugbreak() { __brkpt(); }`. GCC has no
    __debugbreak; clang has it as an MSVC builtin (-fms-extensions, which the AMD device pass uses),
    __host__ __device__, and refuses the program's as an overload of it: compiled renamed, said."""
    (tmp_path / "k.cu").write_text("__device__ inline void __debugbreak() { __brkpt(); }\n"
                                   "__global__ void k(int *p) { if (!p[1]) __debugbreak(); p[0] = 1; }\n")
    res = compile_for(tmp_path / "k.cu", "gfx942")
    assert [n for n in res.notes if "'__debugbreak' is compiled as '__shflx_program___debugbreak'" in n], res.notes
    said = ("k.cu:1:24: error: __device__ function '__debugbreak' cannot overload __host__ __device__ function "
            "'__debugbreak'\n    1 | __device__ inline void __debugbreak() { __brkpt(); }\n"
            "k.cu:1:24: note: previous declaration is here\n")
    assert builtin_clashes(said) == ["__debugbreak"]
    # a program's own __host__ __device__ function declared again __device__: its previous declaration is elsewhere
    assert builtin_clashes(said.replace("note: previous", "x").replace("k.cu:1:24: x", "k.cu:1:1: note: previous")) == []


@pytest.mark.parametrize("arch", ["sm_90", "gfx942"])
@pytest.mark.parametrize("header, lib", [("<cub/block/block_reduce.cuh>", "CUB"), ("<cooperative_groups/reduce.h>", "libcu++")])
def test_cpp14_with_a_header_that_reads_cccl_is_one_line_at_the_programs_include(arch, header, lib, tmp_path):
    """FasterTransformer's CMake compiles with --std=c++14; CCCL 3 (CUB, Thrust, libcu++; CUDA 13's
    cooperative_groups reads libcu++) stops it with an #error, as nvcc 13 does. One line, at the
    #include of the program's own header that led there, and none of clang's errors that follow."""
    (tmp_path / "mine.cuh").write_text(f"#pragma once\n#include {header}\n")
    (tmp_path / "k.cu").write_text('#include "mine.cuh"\n__global__ void k(int *p) { p[0] = 1; }\n')
    r = _shflx(tmp_path, "k.cu", "--offload-arch", arch, "-std=c++14", "-o", "k.o")
    clean_error(r, 2, "shflx does not support C++ before C++17 with CUDA 13's CCCL",
                f"({lib}, which this #include reads, requires C++17, as nvcc 13 does: compile with -std=c++17)")
    errors = [ln for ln in r.stderr.splitlines() if ": error:" in ln and "rejected the source" not in ln]
    assert len(errors) == 1 and re.match(r"(\./)?mine\.cuh:2:10: error: ", errors[0]), r.stderr
    assert _shflx(tmp_path, "k.cu", "--offload-arch", arch, "-std=c++17", "-o", "k.o").returncode == 0


def test_cpp14_with_cccl_is_said_before_a_missing_host_header(tmp_path):
    """NVIDIA's multi-gpu-programming-models jacobi.cu: CUB at line 1 and NVTX (not installed) at
    line 2, built with -std=c++14. CCCL's C++17 #error comes first and stands whatever the missing
    header: it is the one line, not the header's stand-in message."""
    (tmp_path / "k.cu").write_text("#include <cub/block/block_reduce.cuh>\n#include <nvtx3/nvToolsExt.h>\n"
                                   "__global__ void k(int *p) { p[0] = 1; }\n"
                                   'int main() { nvtxRangePushA("x"); nvtxRangePop(); return 0; }\n')
    r = _shflx(tmp_path, "k.cu", "--offload-arch", "gfx942", "-std=c++14", "-o", "k.o")
    errors = [ln for ln in r.stderr.splitlines() if ": error:" in ln and "rejected the source" not in ln]
    assert len(errors) == 1 and re.match(r"(\./)?k\.cu:1:10: error: shflx does not support C\+\+ before C\+\+17", errors[0]), \
        r.stderr


@pytest.mark.parametrize("arch", ["gfx942", "sm_90"])
def test_a_definition_with_another_execution_space_than_its_declaration_is_one_named_line(arch, tmp_path):
    """cudahandbook's spinlockReduction.cu declares `cudaSpinlock(int *p);` in its class and defines
    `inline __device__ cudaSpinlock::cudaSpinlock(int *p)`; reduction_Sumi.h defines `__device__ __host__`
    what its class declares plain. nvcc compiles them with the definition's execution space; clang reads
    other functions: named at the definition, with the declaration's place. A definition that differs in
    more than that (const here) keeps clang's error."""
    (tmp_path / "k.cu").write_text(
        "class Lock {\npublic:\n  Lock(int *p);\n  int get() const;\n  Lock &operator+=(int a);\n  int *m;\n};\n"
        "inline __device__\nLock::Lock(int *p) { m = p; }\n"
        "inline __host__ __device__ Lock &Lock::operator+=(int a) { *m += a; return *this; }\n"
        "__device__ int Lock::get() { return *m; }\n"
        "__global__ void k(int *p) { Lock l(p); l += 1; }\n")
    r = _shflx(tmp_path, "k.cu", "--offload-arch", arch, "-o", "k.o")
    vendor = "NVIDIA" if arch.startswith("sm_") else "AMD"
    errors = [ln for ln in r.stderr.splitlines() if ": error: " in ln and "rejected the source" not in ln]
    assert errors[0] == (f"k.cu:9:7: error: shflx does not support '__device__' on the out-of-line definition of "
                         f"'Lock::Lock' declared without it at k.cu:3:3 on {vendor} targets (nvcc compiles the function "
                         "with the definition's; clang, shflx's front end, reads two functions: give the declaration "
                         "the same execution space)"), r.stderr
    assert errors[1].startswith(f"k.cu:10:40: error: shflx does not support '__host__ __device__' on the definition of "
                                f"'operator+=' declared __host__ at k.cu:5:9 on {vendor} targets"), r.stderr
    assert errors[2].startswith("k.cu:11:22: error: out-of-line definition of 'get' does not match"), r.stderr
