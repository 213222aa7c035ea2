"""The CUDA runtime API on the HIP runtime (shflx/frontend/include/cuda_on_hip/): the host half of a
.cu compiled by a HIP compiler (`shflx launch`, `shflx compile -c`).

The name table is HIPIFY's (tools/cuda_on_hip.py reads its markdown); these tests check that the
committed header is what the table renders, that every name it maps resolves in the installed HIP,
that a name HIP lacks is one line at the user's line, and that the host sees CUDA's 32-lane warp.
Needs clang++ and HIP's headers (Debian: `apt-get install hipcc`, which .ci/run does)."""
from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

from shflx.driver.launch import unsupported_in_one_line
from shflx.frontend.clang import INCLUDE

ROOT = Path(__file__).resolve().parents[1]
HERE = INCLUDE / "cuda_on_hip"


def generator():
    spec = importlib.util.spec_from_file_location("cuda_on_hip_gen", ROOT / "tools" / "cuda_on_hip.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def table(api: str = "RUNTIME"):
    return generator().read_table(getattr(generator(), api).table.read_text())


def host_compile_argv(tools: dict[str, str]) -> list[str]:
    """The host pass `shflx launch` runs for a .cu (launch.host_compile), without a device bundle."""
    from shflx.frontend.clang import version_macros
    return [tools["clang"], "-x", "hip", "--cuda-host-only", f"--rocm-path={tools['prefix']}", "-I", str(HERE),
            "-include", str(INCLUDE / "shflx_cuda_on_hip.h"), *version_macros()]


@pytest.fixture(scope="module")
def tools():
    from test_launcher import hip_toolchain
    return hip_toolchain()


def test_the_header_is_what_the_name_table_renders():
    gen = generator()
    source, rows = table()
    assert re.fullmatch(r"From ROCm/HIPIFY docs/tables/\S+\.md at commit [0-9a-f]{40}", source)
    assert (HERE / "shflx_cuda_runtime_names.h").read_text() == gen.render_header(source, rows)
    names = [r["cuda"] for r in rows]
    assert len(names) == len(set(names)) > 1000
    by_name = {r["cuda"]: r for r in rows}
    assert by_name["cudaMalloc"]["hip"] == "hipMalloc" and by_name["cudaMemcpyHostToDevice"]["hip"] == "hipMemcpyHostToDevice"
    assert all(by_name[n]["hip"] for n in gen.OWN) and all(n in by_name for n in gen.GAPS)


def test_the_driver_header_is_what_its_name_table_renders():
    """<cuda.h>'s names (HIPIFY's driver table, one commit with the runtime's): the header leaves
    the names the runtime header has to it (both come into one host pass)."""
    gen = generator()
    source, rows = table("DRIVER")
    assert re.fullmatch(r"From ROCm/HIPIFY docs/tables/CUDA_Driver_API\S+\.md at commit [0-9a-f]{40}", source)
    assert source.split()[-1] == table()[0].split()[-1]
    header = (HERE / "shflx_cuda_driver_names.h").read_text()
    assert header == gen.render_header(source, rows, gen.DRIVER, gen.earlier_names(gen.DRIVER))
    by_name = {r["cuda"]: r for r in rows}
    assert len(by_name) == len(rows) > 1500
    assert by_name["cuInit"]["hip"] == "hipInit" and by_name["CUdeviceptr"]["hip"] == "hipDeviceptr_t"
    assert "#define cuMemAlloc_v2 hipMalloc\n" in header and "#define CUstream_st " not in header
    assert all(by_name[n]["hip"] for n in gen.DRIVER.own) and all(n in by_name for n in gen.DRIVER.gaps)


def test_the_generator_reads_hipify_markdown(tmp_path):
    """A table in HIPIFY's layout: a function, a data type, a name HIP lacks, one from a later HIP."""
    gen = generator()
    md = tmp_path / gen.SOURCE
    md.write_text("## **1. Device Management**\n\n|**CUDA**|**A**|**D**|**C**|**R**|**HIP**|**A**|**D**|**C**|**R**|**E**|\n"
                  "|:--|:-:|:-:|:-:|:-:|:--|:-:|:-:|:-:|:-:|:-:|\n"
                  "|`cudaSetDevice`| | | | |`hipSetDevice`|1.6.0| | | | |\n"
                  "|`cudaDeviceSetLimit`| | | | |`hipDeviceSetLimit`|5.3.0| | | | |\n"
                  "|`cudaInitDevice`|12.0| | | | | | | | | |\n"
                  "## **35. Data types used by CUDA Runtime**\n\n"
                  "|`cudaStream_t`| | | | |`hipStream_t`|1.5.0| | | | |\n|`CUDART_PI_F`| | | | |`HIP_PI_F`|5.3.0| | | | |\n")
    rows = gen.read_markdown(md)
    assert [(r["cuda"], r["kind"], r["hip"]) for r in rows] == [
        ("cudaDeviceSetLimit", "function", "hipDeviceSetLimit"), ("cudaInitDevice", "function", ""),
        ("cudaSetDevice", "function", "hipSetDevice"), ("cudaStream_t", "name", "hipStream_t")]
    header = gen.render_header(*gen.read_table(gen.write_table(rows, "0" * 40)))
    driver = tmp_path / gen.DRIVER.source      # its data types section; a name listed twice is one row
    driver.write_text("## **1. CUDA Driver Data Types**\n\n|`CUdevice`| | | | |`hipDevice_t`|1.6.0| | | | |\n"
                      "## **5. Device Management**\n\n|`cuDeviceGet`| | | | |`hipDeviceGet`|1.6.0| | | | |\n"
                      "## **6. Device Management [DEPRECATED]**\n\n|`cuDeviceGet`| | | | |`hipDeviceGet`|1.6.0| | | | |\n")
    assert [(r["cuda"], r["kind"]) for r in gen.read_markdown(driver)] == [("CUdevice", "name"), ("cuDeviceGet", "function")]
    assert "#define cudaSetDevice hipSetDevice\n" in header and "#define cudaStream_t hipStream_t\n" in header
    assert '__SHFLX_NO_FUNCTION(cudaInitDevice, "")' in header
    assert ("#if HIP_VERSION >= 50300000\n#define cudaDeviceSetLimit hipDeviceSetLimit\n#else\n"
            '__SHFLX_NO_FUNCTION(cudaDeviceSetLimit, " before HIP 5.3.0")\n#endif') in header


@pytest.mark.parametrize("api, header", [("RUNTIME", "cuda_runtime.h"), ("DRIVER", "cuda.h")])
def test_every_name_the_table_maps_resolves_in_the_installed_hip(tools, tmp_path, api, header):
    """One statement per mapped CUDA name: clang then says 'undeclared identifier' only for a HIP
    name the installed headers lack (a type or an overloaded function draws another message)."""
    gen = generator()
    which = getattr(gen, api)
    version = subprocess.run([tools["clang"], "-x", "hip", "--cuda-host-only", f"--rocm-path={tools['prefix']}",
                              "-E", "-dM", "-include", "hip/hip_version.h", "-"], input="", capture_output=True,
                             text=True).stdout
    have = int(re.search(r"#define HIP_VERSION_MAJOR (\d+)", version)[1]) * 10000000 + \
        int(re.search(r"#define HIP_VERSION_MINOR (\d+)", version)[1]) * 100000
    earlier = gen.earlier_names(which)
    mapped = [r for r in table(api)[1] if r["hip"] and r["cuda"] not in which.gaps and r["cuda"] not in which.own
              and r["cuda"] not in earlier and gen.hip_version(r["hip_added"] or "0") <= have]
    assert len(mapped) > 600
    probe = tmp_path / "probe.cu"
    probe.write_text(f"#include <{header}>\nvoid probe() {{\n" + "".join(f"  {r['cuda']};\n" for r in mapped) + "}\n")
    done = subprocess.run([*host_compile_argv(tools), "-fsyntax-only", "-ferror-limit=0", str(probe)],
                          capture_output=True, text=True)
    missing = sorted(set(re.findall(r"undeclared identifier '(\w+)'", done.stderr)))
    assert missing == [], missing
    assert "file not found" not in done.stderr, done.stderr[:2000]


def test_a_name_hip_lacks_is_one_line_at_the_users_line(tools, tmp_path):
    """Through `shflx launch`: a type, a function, an enumerator HIP lacks and a function of a later
    HIP, each one line (file:line:col: error: shflx does not support ...), nothing from the header."""
    src = tmp_path / "uses.cu"
    src.write_text("#include <cuda_runtime.h>\n__global__ void k(int *p) { p[threadIdx.x] = 1; }\nint main() {\n"
                   "  cudaLaunchConfig_t cfg = {};\n  const char *name;\n  cudaFuncGetName(&name, (const void *)k);\n"
                   "  if (cudaGraphUpload(0, 0) == cudaErrorTimeout) return 1;\n  return 0;\n}\n")
    done = subprocess.run([sys.executable, "-m", "shflx", "launch", "--", tools["clang"], "-x", "hip",
                           f"--rocm-path={tools['prefix']}", f"--hip-device-lib-path={tools['bitcode']}",
                           "--offload-arch=gfx90a", "-c", str(src), "-o", str(tmp_path / "uses.o")],
                          capture_output=True, text=True)
    assert done.returncode != 0 and not (tmp_path / "uses.o").exists()
    assert done.stderr.splitlines() == [
        f"{src}:4:3: error: shflx does not support 'cudaLaunchConfig_t' on AMD targets",
        f"{src}:6:3: error: shflx does not support 'cudaFuncGetName' on AMD targets",
        f"{src}:7:7: error: shflx does not support 'cudaGraphUpload' on AMD targets before HIP 5.3.0",
        f"{src}:7:32: error: shflx does not support 'cudaErrorTimeout' on AMD targets",
        "4 errors generated when compiling for host."], done.stderr


def _launch(tools, src: Path, out: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "shflx", "launch", "--", tools["clang"], "-x", "hip",
                           f"--rocm-path={tools['prefix']}", f"--hip-device-lib-path={tools['bitcode']}",
                           "--offload-arch=gfx90a", "-c", str(src), "-o", str(out)], capture_output=True, text=True)


@pytest.mark.parametrize("header, why", [
    ("cudaTypedefs.h", "the driver API's function pointer types (PFN_cu*) are not provided for host code; cuda.h's "
                       "functions are"),
    ("cuda_bf16.h", "CUDA's bfloat16 types are not provided for host code"),
    ("cooperative_groups/reduce.h", "HIP's cooperative groups, which the host pass parses the kernels with, have no "
                                    "such header"),
    ("thrust/device_vector.h", "CUB and Thrust are not provided for host code; their HIP counterparts are hipCUB "
                               "and rocThrust"),
    ("cub/cub.cuh", "CUB and Thrust are not provided for host code; their HIP counterparts are hipCUB and rocThrust"),
])
def test_an_nvidia_header_hip_has_no_counterpart_of_is_one_line_at_its_include(tools, tmp_path, header, why):
    """An NVIDIA header in a .cu's host code (the held-out sets: stdgpu's thrust, candle's cuda_bf16.h):
    the host half says at the #include that it is not provided, in one line."""
    src = tmp_path / "drv.cu"
    src.write_text(f"#include <cstdio>\n#ifndef __CUDA_ARCH__\n#include <{header}>\n#endif\n"
                   "__global__ void k(int *p) { p[threadIdx.x] = 1; }\nint main() { return 0; }\n")
    done = _launch(tools, src, tmp_path / "drv.o")
    assert done.returncode != 0 and done.stderr.splitlines() == [
        f"{src}:3:10: error: shflx does not support '{header}' on AMD targets ({why})",
        "1 error generated when compiling for host."], done.stderr


def test_device_functions_hip_lacks_are_declared_for_the_host_parse(tools, tmp_path):
    """The host pass parses the kernels with HIP's device declarations; CUDA's __trap (diff-gaussian-
    rasterization) and half-precision atomicAdd (how-to-optim-algorithm-in-cuda), which HIP 5.2's
    headers lack, are declared for it (shflx compiles the kernels)."""
    src = tmp_path / "decl.cu"
    src.write_text("#include <cuda_fp16.h>\n__global__ void k(__half *h, __half2 *h2, int *p) {\n"
                   "  if (p[0] < 0) __trap();\n  atomicAdd(h, __float2half(1.f));\n"
                   "  atomicAdd(h2, __floats2half2_rn(1.f, 2.f));\n}\nint main() { return 0; }\n")
    done = _launch(tools, src, tmp_path / "decl.o")
    assert done.returncode == 0 and done.stderr == "", done.stderr[-3000:]


def test_a_device_property_hip_lacks_is_one_line(tools, tmp_path):
    """cudaDeviceProp is HIP's hipDeviceProp_t: a field it lacks (HIP 5.2: sharedMemPerBlockOptin,
    NVIDIA's gups sample) is one line naming CUDA's field, not clang's error about HIP's struct."""
    src = tmp_path / "prop.cu"
    src.write_text("#include <cstdio>\n__global__ void k(int *p) { p[threadIdx.x] = 1; }\nint main() {\n"
                   "  cudaDeviceProp prop;\n  cudaGetDeviceProperties(&prop, 0);\n"
                   "  std::printf(\"%zu %d\\n\", prop.sharedMemPerBlockOptin, prop.warpSize);\n}\n")
    done = _launch(tools, src, tmp_path / "prop.o")
    hip = subprocess.run([tools["clang"], "-x", "hip", "--cuda-host-only", f"--rocm-path={tools['prefix']}", "-E",
                          "-"], input="#include <hip/hip_runtime.h>\n", capture_output=True, text=True).stdout
    if "sharedMemPerBlockOptin" in hip:
        pytest.skip("this HIP's hipDeviceProp_t has sharedMemPerBlockOptin")
    assert done.returncode != 0 and done.stderr.splitlines() == [
        f"{src}:6:32: error: shflx does not support 'cudaDeviceProp::sharedMemPerBlockOptin' on AMD targets "
        "(HIP's device properties lack it)", "1 error generated when compiling for host."], done.stderr


def test_nvccs_annotations_and_the_programs_own_geometry_declarations_build(tools, tmp_path):
    """ccminer's and ethminer's cuda_helper.h: nvcc's annotations (crt/host_defines.h) and, for host
    code, `extern const dim3 blockDim; extern const uint3 threadIdx;` (CUDA's own declarations again;
    HIP's are objects of other types: read as nothing). Another form of it is one line."""
    helper = tmp_path / "helper.h"
    helper.write_text("#include <cuda_runtime.h>\nextern __device__ __device_builtin__ void __syncthreads(void);\n"
                      "struct __device_builtin__ __builtin_align__(16) F { float a[4]; };\n"
                      "#ifndef __CUDA_ARCH__\nextern const dim3 blockDim;\nextern const uint3 threadIdx;\n#endif\n")
    src = tmp_path / "geo.cu"
    src.write_text('#include "helper.h"\n__global__ void k(const __grid_constant__ int y, int *p) '
                   "{ p[threadIdx.x] = y * blockDim.x; }\n"
                   "void CUDART_CB done(cudaStream_t, cudaError_t, void *) {}\n"
                   "static_assert(alignof(F) == 16, \"nvcc's __builtin_align__\");\nint main() { return 0; }\n")
    done = _launch(tools, src, tmp_path / "geo.o")
    assert done.returncode == 0 and done.stderr == "", done.stderr[-3000:]
    helper.write_text(helper.read_text().replace("extern const dim3 blockDim;", "extern dim3 blockDim;"))
    done = _launch(tools, src, tmp_path / "geo.o")
    assert done.returncode != 0 and done.stderr.splitlines() == [
        f"In file included from {src}:1:",
        f"{helper}:5:13: error: shflx does not support 'blockDim' declared by the program on AMD targets (the HIP "
        "runtime's headers declare it as an object of another type)", "1 error generated when compiling for host."]


def test_the_programs_code_takes_its_cuda_branch_in_both_halves(tools, tmp_path):
    """A .cu with a HIP port in the same file (bitsandbytes' compat.cuh: `#if defined(__HIP_PLATFORM_AMD__)
    || defined(__HIPCC__)`): the device pass defines neither, so the host pass's code sees neither,
    after the CUDA headers whose HIP headers need them (cuda_fp16.h, cooperative_groups.h); and
    __CUDACC__ is nvcc's 1 (HIPIFY's driver table pairs it with __HIPCC__)."""
    src = tmp_path / "branch.cu"
    src.write_text("#include <cuda_fp16.h>\n#include <cooperative_groups.h>\n#include <cuda.h>\n"
                   "#if defined(__HIP_PLATFORM_AMD__) || defined(__HIPCC__) || defined(__HIP_PLATFORM_HCC__)\n"
                   "#error the HIP branch\n#endif\n#if __CUDACC__ != 1\n#error nvcc's __CUDACC__\n#endif\n"
                   "namespace cg = cooperative_groups;\n__global__ void k(__half *p) {\n"
                   "  cg::thread_block b = cg::this_thread_block();\n  p[b.thread_rank()] = __float2half(1.f);\n}\n"
                   "int main() {\n  __half *d;\n  cudaMalloc(&d, 64);\n  k<<<1, 32>>>(d);\n"
                   "  return cudaDeviceSynchronize();\n}\n")
    done = _launch(tools, src, tmp_path / "branch.o")
    assert done.returncode == 0 and done.stderr == "", done.stderr[-3000:]


def test_host_code_nvcc_reads_and_clang_does_not_builds(tools, tmp_path):
    """nvcc's readings the device pass makes (frontend.nvcc_syntax), in the host pass too: a launch
    written `k << <g, b >> > (...)` (CUDA_Freshman's reduceInteger, cuBERT's Embedding); and CUDA's
    `struct cudaGraphicsResource *` (GPUJPEG), a typedef's name in HIP."""
    src = tmp_path / "spaced.cu"
    src.write_text("#include <cuda_runtime.h>\n__global__ void k(int *p) { p[threadIdx.x] = 1; }\n"
                   "struct cudaGraphicsResource *resource;\n"
                   "int main() {\n  int *d;\n  cudaMalloc(&d, 128);\n  k << <1, 32 >> > (d);\n"
                   "  return cudaDeviceSynchronize();\n}\n")
    done = _launch(tools, src, tmp_path / "spaced.o")
    assert done.returncode == 0 and done.stderr == "", done.stderr[-3000:]


DRIVER_PROGRAM = """#include <cstdio>
#include <cuda.h>
__global__ void k(int *p) { p[threadIdx.x] = 1; }
int main() {
  CUdevice dev; CUdeviceptr p; int warp = 0, major = 0;
  if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&dev, 0) != CUDA_SUCCESS) { std::printf("no device\\n"); return 1; }
  cuDeviceGetAttribute(&warp, CU_DEVICE_ATTRIBUTE_WARP_SIZE, dev);
  cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
  cuMemAlloc(&p, 128);
  cuMemsetD32(p, 7, 32);
  cuMemFree(p);
  std::printf("%d %d %d\\n", warp, major > 0, (int)CUDA_VERSION / 1000);
  return 0;
}
"""


def test_the_driver_api_builds_as_a_host_object(tools, tmp_path):
    """<cuda.h> in a .cu (issue 28's stretch; the most common host-pass failure of the held-out
    sets): device, context and memory calls of the driver API compile against HIP's, and
    CUDA_VERSION is the device pass's."""
    from shflx.frontend.clang import CUDA_VERSION
    src = tmp_path / "drv.cu"
    src.write_text(DRIVER_PROGRAM)
    done = _launch(tools, src, tmp_path / "drv.o")
    assert done.returncode == 0 and done.stderr == "", done.stderr[-3000:]
    (tmp_path / "drv.cu").write_text(DRIVER_PROGRAM.replace("return 0;\n}", "return 0;\n}\n"
                                     f"static_assert(CUDA_VERSION == {CUDA_VERSION[0] * 1000 + CUDA_VERSION[1] * 10}"
                                     f" && __CUDACC_VER_MAJOR__ == {CUDA_VERSION[0]}, \"the device pass's\");"))
    done = _launch(tools, src, tmp_path / "drv.o")
    assert done.returncode == 0 and done.stderr == "", done.stderr[-3000:]


def test_the_host_reports_cudas_32_lane_warp_through_the_driver_api(tools, tmp_path):
    """cuDeviceGetAttribute(CU_DEVICE_ATTRIBUTE_WARP_SIZE) is 32, as the runtime's warpSize; other
    attributes are HIP's (HIP's runtime stood in for as in HOST_ONLY)."""
    src = tmp_path / "drv.cu"
    src.write_text("#include <cstdio>\n#include <cuda.h>\n"
                   "extern \"C\" hipError_t hipDeviceGetAttribute(int *v, hipDeviceAttribute_t, int) { *v = 64; return hipSuccess; }\n"
                   "int main() {\n  int warp = 0, clock = 0;\n"
                   "  cuDeviceGetAttribute(&warp, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 0);\n"
                   "  cuDeviceGetAttribute(&clock, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, 0);\n"
                   "  std::printf(\"%d %d\\n\", warp, clock);\n}\n")
    exe = tmp_path / "drv"
    done = subprocess.run([*host_compile_argv(tools), str(src), "-o", str(exe)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    assert subprocess.run([str(exe)], capture_output=True, text=True).stdout.split() == ["32", "64"]


def test_a_driver_api_name_hip_lacks_is_one_line_at_the_users_line(tools, tmp_path):
    src = tmp_path / "drv.cu"
    src.write_text("#include <cuda.h>\n__global__ void k(int *p) { p[threadIdx.x] = 1; }\n"
                   "int main() {\n  CUdevice d;\n  cuInit(0);\n  cuDeviceGet(&d, 0);\n"
                   "  return cuCtxCreate_v3(0, 0, 0, 0, d) == CUDA_SUCCESS;\n}\n")
    done = _launch(tools, src, tmp_path / "drv.o")
    assert done.returncode != 0 and done.stderr.splitlines() == [
        f"{src}:7:10: error: shflx does not support 'cuCtxCreate_v3' on AMD targets",
        "1 error generated when compiling for host."], done.stderr


def test_cudas_typed_pointer_overloads_build(tools, tmp_path):
    """cuda_runtime.h's C++ overloads (a typed pointer's address; cudaEventCreate with flags) that
    HIP 5.2's functions lack: OLCF's streams exercise and VanitySearch call cudaHostAlloc(&typed, ...)."""
    src = tmp_path / "typed.cu"
    src.write_text("#include <cuda_runtime.h>\n__global__ void k(float *p) { p[threadIdx.x] = 1; }\nint main() {\n"
                   "  float *h, *d, *m; size_t pitch; cudaEvent_t ev;\n"
                   "  cudaHostAlloc(&h, 64, cudaHostAllocMapped);\n  cudaHostGetDevicePointer(&d, h, 0);\n"
                   "  cudaMallocPitch(&m, &pitch, 16, 16);\n  cudaEventCreate(&ev);\n"
                   "  return cudaEventCreate(&ev, cudaEventDisableTiming);\n}\n")
    done = _launch(tools, src, tmp_path / "typed.o")
    assert done.returncode == 0 and done.stderr == "", done.stderr[-3000:]


def test_a_programs_function_named_as_a_clang_builtin_builds_in_the_host_pass(tools, tmp_path):
    """VanitySearch's and Kangaroo's Int.h: `static uint64_t inline __rdtsc()` in host code, which
    clang (the HIP compiler) has as an x86 builtin and GCC has not: renamed, as the device pass does."""
    src = tmp_path / "tsc.cu"
    src.write_text("#include <stdint.h>\n#include <cuda_runtime.h>\nstatic uint64_t inline __rdtsc() { return 7; }\n"
                   "__global__ void k(int *p) { p[threadIdx.x] = 1; }\n"
                   "int main() { return (int)__rdtsc() - 7; }\n")
    done = _launch(tools, src, tmp_path / "tsc.o")
    assert done.returncode == 0 and done.stderr == "", done.stderr[-3000:]


def test_other_diagnostics_pass_unchanged():
    text = ("a.cu:3:5: warning: unused variable 'x' [-Wunused-variable]\n  int x;\n    ^\n"
            "a.cu:4:1: error: use of undeclared identifier 'y'\ny;\n^\n2 errors generated when compiling for host.\n")
    assert unsupported_in_one_line(text) == text
    own = "a.cu:1:10: fatal error: 'api.h' file not found\n#include <api.h>\n         ^~~~~~~\n1 error generated.\n"
    assert unsupported_in_one_line(own) == own                  # a project's own header: clang's words
    lib = ("In file included from a.cu:1:\n                 from c.h:2:\nb.h:3:10: fatal error: 'cublas_v2.h' file not found\n#include "
           "<cublas_v2.h>\n         ^~~~~~~~~~~~~\n1 error generated when compiling for host.\n")
    assert unsupported_in_one_line(lib) == (
        "In file included from a.cu:1:\n                 from c.h:2:\nb.h:3:10: error: shflx does not support 'cublas_v2.h' on AMD targets "
        "(NVIDIA's library has no implementation on AMD; its HIP counterpart is a different API)\n"
        "1 error generated when compiling for host.\n")
    mixed = ("In file included from a.cu:1:\nb.h:2:3: error: must use 'struct' tag to refer to type 'cudaFoo' in "
             "this scope\n  cudaFoo x;\n  ^\n/x/cuda_on_hip/n.h:9:1: note: struct 'cudaFoo' is hidden\nz\n^\n"
             "b.h:2:3: error: 'cudaFoo' is unavailable: shflx does not support 'cudaFoo' on AMD targets\n"
             "  cudaFoo x;\n  ^\nIn file included from <built-in>:1:\n                 from /x/shflx_cuda_on_hip.h:9:\n"
             "/x/cuda_on_hip/n.h:9:1: note: 'cudaFoo' has been explicitly marked unavailable here\n"
             "z\n^\n" + text.replace("2 errors", "4 errors"))
    assert unsupported_in_one_line(mixed) == (
        "In file included from a.cu:1:\nb.h:2:3: error: shflx does not support 'cudaFoo' on AMD targets\n"
        + text.replace("2 errors", "2 errors"))
    colored = ("\x1b[1ma.cu:2:3: \x1b[0m\x1b[0;1;31merror: \x1b[0m\x1b[1m'cudaFoo' is unavailable: shflx does not "
               "support 'cudaFoo' on AMD targets\x1b[0m\n  cudaFoo();\n\x1b[0;1;32m  ^\n\x1b[0m"
               "\x1b[1m1 error generated when compiling for host.\x1b[0m\n")
    assert unsupported_in_one_line(colored) == ("a.cu:2:3: error: shflx does not support 'cudaFoo' on AMD targets\n"
                                                "1 error generated when compiling for host.\n")


HOST_ONLY = r"""
#include <cstdio>
// HIP's runtime stood in for by the test: a device whose hardware wave is 64 lanes
extern "C" hipError_t hipGetDeviceProperties(hipDeviceProp_t *p, int) { *p = hipDeviceProp_t(); p->warpSize = 64; return hipSuccess; }
extern "C" hipError_t hipDeviceGetAttribute(int *v, hipDeviceAttribute_t, int) { *v = 64; return hipSuccess; }
int main() {
  cudaDeviceProp prop;
  int warp = 0, clock = 0;
  cudaGetDeviceProperties(&prop, 0);
  cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, 0);
  cudaDeviceGetAttribute(&clock, cudaDevAttrClockRate, 0);
  std::printf("%d %d %d\n", prop.warpSize, warp, clock);
}
"""


def test_the_host_reports_cudas_32_lane_warp(tools, tmp_path):
    """cudaDeviceProp.warpSize and cudaDevAttrWarpSize are 32 where HIP says 64 (the kernels of a
    .cu run 32-lane warps on every AMD target); other attributes are HIP's."""
    src = tmp_path / "props.cu"
    src.write_text("#include <cuda_runtime.h>\n" + HOST_ONLY)
    exe = tmp_path / "props"
    done = subprocess.run([*host_compile_argv(tools), str(src), "-o", str(exe)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    assert subprocess.run([str(exe)], capture_output=True, text=True).stdout.split() == ["32", "32", "64"]


PROGRAMS = ROOT / "tests" / "data" / "cuda_programs"
PROGRAM_TARGETS = ("gfx90a", "gfx1030")


@pytest.fixture(scope="module")
def programs(tools, tmp_path_factory):
    """name -> its executable, each built once for the module."""
    built: dict[str, Path] = {}

    def get(name: str) -> Path:
        if name not in built:
            built[name] = build_program(tools, name, tmp_path_factory.mktemp(name))
        return built[name]
    return get


def build_program(tools, name: str, tmp: Path) -> Path:
    """docs/porting.md's "CUDA programs": `shflx compile -c` (HIP's compiler for the host half),
    then a link against the HIP runtime; or both by `shflx compile --link` (reduce)."""
    obj, exe = tmp / f"{name}.o", tmp / name
    cxx = f"{tools['clang']} --rocm-path={tools['prefix']} --hip-device-lib-path={tools['bitcode']}"
    if name == "reduce":
        done = subprocess.run([sys.executable, "-m", "shflx", "compile", "--link", str(PROGRAMS / f"{name}.cu"), "-O2",
                               f"--offload-arch={','.join(PROGRAM_TARGETS)}", "--host-cxx", cxx, "-o", str(exe)],
                              capture_output=True, text=True)
        assert done.returncode == 0 and done.stderr == "", done.stderr[-3000:]
        return exe
    done = subprocess.run([sys.executable, "-m", "shflx", "compile", "-c", str(PROGRAMS / f"{name}.cu"), "-O2",
                           f"--offload-arch={','.join(PROGRAM_TARGETS)}", "--host-cxx", cxx, "-o", str(obj)],
                          capture_output=True, text=True)
    assert done.returncode == 0 and done.stderr == "", done.stderr[-3000:]
    done = subprocess.run([tools["clang"], str(obj), f"-L{tools['prefix']}/lib", "-lamdhip64", "-o", str(exe)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    return exe


KERNELS = {"reduce": {"_Z10block_sumsPKiPyi"}, "scan": {"_Z9warp_scanPKiPi"},
           "pipeline": {"_Z6squarePKiPi", "_Z8warp_maxPKiPi"}}


@pytest.mark.parametrize("name", ["reduce", "scan", "pipeline"])
def test_a_cuda_program_links_against_the_hip_runtime_and_runs(programs, tmp_path, name):
    """A whole CUDA program: the executable needs libamdhip64 and nothing of CUDA's; the kernels the
    host registers (__hipRegisterFunction's names) are the kernels of every embedded code object;
    without an AMD GPU it stops at its first runtime call with the HIP runtime's no-device error (an
    exit status, not a crash); with one it prints a correct result."""
    check_executable(programs(name), KERNELS[name], PROGRAM_TARGETS, tmp_path)


def check_executable(exe: Path, kernels: set[str], targets, tmp: Path) -> None:
    """The checks of a CUDA program built for AMD (also tests/test_cuda_project_builds.py's)."""
    from elftools.elf.elffile import ELFFile

    from shflx.codegen.bundle import hip_entry_id, read_bundle

    name = exe.name
    with exe.open("rb") as f:
        elf = ELFFile(f)
        needed = [t.needed for t in elf.get_section_by_name(".dynamic").iter_tags() if t.entry.d_tag == "DT_NEEDED"]
        strings = b"".join(s.data() for s in elf.iter_sections() if s.name.startswith(".rodata"))
        bundle = read_bundle(elf.get_section_by_name(".hip_fatbin").data())
        undefined = {s.name for s in elf.get_section_by_name(".dynsym").iter_symbols() if s["st_shndx"] == "SHN_UNDEF"}
    assert any(n.startswith("libamdhip64.so") for n in needed) and not any("cuda" in n for n in needed), needed
    assert {"__hipRegisterFunction", "hipMalloc", "hipGetLastError"} <= undefined, sorted(undefined)
    assert not [n for n in undefined if n.lower().startswith("cuda")], sorted(undefined)
    registered = {s.decode() for s in re.findall(rb"(_Z\w+)\x00", strings)}
    assert registered == kernels, registered
    assert set(bundle) == {"host-x86_64-unknown-linux-gnu-", *(hip_entry_id(t) for t in targets)}
    for t in targets:
        code = tmp / f"{name}-{t}.co"
        code.write_bytes(bundle[hip_entry_id(t)])
        with code.open("rb") as f:
            defined = {s.name[:-3] for s in ELFFile(f).get_section_by_name(".symtab").iter_symbols()
                       if s.name.endswith(".kd")}
        assert defined == kernels, (t, defined)
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300)
    if Path("/dev/kfd").exists():                    # an AMD GPU (or its driver): the result is checked
        assert run.returncode == 0, run.stdout + run.stderr
    else:
        assert run.returncode == 1, (run.returncode, run.stderr)
        assert re.search(r"cudaGetDeviceCount\(&devices\) failed: (hipErrorNoDevice|no ROCm-capable device)",
                         run.stderr), run.stderr


# amdemu puts its clang wrapper first on PATH when imported, so it runs in a child process: argv[1]
# the folder holding amdemu, argv[2] a launch (code object, kernel, grid, block, arguments as .npy
# files or i32 values); each array argument is written back to its .npy file after the run.
_EMULATE = """
import json, sys
import numpy as np
from shflx.runtime.emulator import probe_emulator
spec = json.loads(sys.argv[2])
device, why = probe_emulator(spec["target"], [sys.argv[1]])
if device is None:
    print(json.dumps({"why": why}))
    sys.exit(0)
args = [np.load(a["npy"]) if "npy" in a else np.int32(a["i32"]) for a in spec["args"]]
code = open(spec["code"], "rb").read()
out = device.launch(code, spec["kernel"], args, tuple(spec["grid"]), tuple(spec["block"]))
for a, value in zip(spec["args"], out):
    if "npy" in a:
        np.save(a["npy"], value)
print(json.dumps({"ran": spec["kernel"]}))
"""


def host_inputs(name: str) -> list[tuple]:
    """The launches `name`'s main() makes, read from its source (sizes, input pattern), each with
    the numpy reference of what its kernel leaves in its output buffer: [(kernel, grid, block,
    args, out, want)]; a later stage's input is what the stage before it computes."""
    import numpy as np

    text = (PROGRAMS / f"{name}.cu").read_text()
    size = re.search(r"const int n = 1 << (\d+), threads = (\d+|4 \* prop\.warpSize);", text)
    pattern = re.search(r"host\[i\] = i % (\d+)( - \d+)?;", text)
    assert size and pattern, f"{name}.cu's main() no longer reads as this test expects"
    n = 1 << int(size[1])
    threads = 4 * 32 if "warpSize" in size[2] else int(size[2])    # warpSize: cudaDeviceProp's 32
    host = (np.arange(n) % int(pattern[1]) + int((pattern[2] or "0").replace(" ", ""))).astype(np.int32)
    if name == "reduce":
        assert "block_sums<<<(n + threads - 1) / threads, threads>>>(in, total, n);" in text
        return [("_Z10block_sumsPKiPyi", -(-n // threads), threads, [host, np.zeros(1, np.uint64), n], 1,
                 np.array([host.astype(np.uint64).sum()], np.uint64))]
    if name == "pipeline":
        assert "square<<<n / threads, threads, 0, a>>>(in, squares);" in text
        assert "warp_max<<<n / threads, threads, 0, b>>>(squares, maxima);" in text
        squares = host * host
        return [("_Z6squarePKiPi", n // threads, threads, [host, np.zeros(n, np.int32)], 1, squares),
                ("_Z8warp_maxPKiPi", n // threads, threads, [squares, np.zeros(n // 32, np.int32)], 1,
                 squares.reshape(-1, 32).max(axis=1))]
    assert "warp_scan<<<n / threads, threads, 0, stream>>>(in, out);" in text
    return [("_Z9warp_scanPKiPi", n // threads, threads, [host, np.zeros(n, np.int32)], 1,
             host.reshape(-1, 32).cumsum(axis=1, dtype=np.int32).ravel())]


@pytest.mark.parametrize("name", ["reduce", "scan", "pipeline"])
def test_a_cuda_programs_kernels_run_on_the_emulator_with_its_inputs(programs, tmp_path, name):
    """The gfx90a code object taken out of the executable's offload bundle (.hip_fatbin), its kernel
    run on the AMD emulator (wave64: two CUDA warps per wave) with the launch and inputs main()
    makes: the output buffer is numpy's answer. (Found blockDim.x read from the wrong implicit
    argument when the front end wrote v5 reads into a v4 code object.)"""
    check_on_the_emulator(programs(name), name, tmp_path)


def check_on_the_emulator(exe: Path, name: str, tmp_path: Path) -> None:
    """`exe`'s gfx90a kernel on the emulator with `name`'s host inputs (also tests/test_cuda_project_builds.py's)."""
    import json

    import numpy as np
    from elftools.elf.elffile import ELFFile

    from ci_policy import IN_CI
    from conftest import shared_path
    from shflx.codegen.bundle import hip_entry_id, read_bundle

    with exe.open("rb") as f:
        code = read_bundle(ELFFile(f).get_section_by_name(".hip_fatbin").data())[hip_entry_id("gfx90a")]
    (tmp_path / "k.co").write_bytes(code)
    for kernel, grid, block, args, out, want in host_inputs(name):
        spec = {"target": "gfx90a", "code": str(tmp_path / "k.co"), "kernel": kernel, "grid": [grid, 1, 1],
                "block": [block, 1, 1], "args": []}
        for i, a in enumerate(args):
            if isinstance(a, np.ndarray):
                np.save(tmp_path / f"arg{i}.npy", a)
                spec["args"].append({"npy": str(tmp_path / f"arg{i}.npy")})
            else:
                spec["args"].append({"i32": a})
        done = subprocess.run([sys.executable, "-c", _EMULATE, str(shared_path("amdemu")), json.dumps(spec)],
                              capture_output=True, text=True, timeout=1200)
        assert done.returncode == 0, done.stderr[-3000:]
        said = json.loads(done.stdout.splitlines()[-1])
        if "why" in said:
            (pytest.fail if IN_CI else pytest.skip)(f"no AMD emulator: {said['why']}")
        got = np.load(tmp_path / f"arg{out}.npy")
        assert got.dtype == want.dtype and got.shape == want.shape
        assert (got == want).all(), (kernel, np.flatnonzero(got != want)[:8], got[:8], want[:8])


def test_the_porting_guides_cuda_program_commands_run_as_written(tools, tmp_path):
    """docs/porting.md step 6: its commands, as written, from a directory holding the checkout's
    tests/ (shflx and hipcc from PATH); the program ends as the text says (no GPU: HIP's error)."""
    import os
    import shutil

    if shutil.which("hipcc") is None:
        from test_launcher import _need
        _need("no hipcc on PATH")
    text = (ROOT / "docs" / "porting.md").read_text()
    section = text[text.index("## 6. CUDA programs"):]
    lines = re.search(r"```sh\n(.*?)```", section, re.S)[1].strip().splitlines()
    said = re.search(r"HIP runtime's own error \(`([^`]+)`\)", " ".join(section.split()))[1]
    (tmp_path / "tests").symlink_to(ROOT / "tests")
    env = {**os.environ, "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]),
           "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}
    if os.environ.get("SHFLX_TEST_INSTALLED"):
        env["PYTHONPATH"] = os.environ.get("PYTHONPATH", "")
    for line in lines[:-1]:
        done = subprocess.run(line, shell=True, cwd=tmp_path, env=env, capture_output=True, text=True)
        assert done.returncode == 0, (line, done.stderr[-3000:])
    run = subprocess.run(lines[-1], shell=True, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    if Path("/dev/kfd").exists():
        assert run.returncode == 0, run.stdout + run.stderr
    else:
        assert run.returncode == 1 and said in run.stderr, (said, run.stderr)


@pytest.mark.parametrize("family", ["butterfly", "hw_reduce"])
def test_an_example_kernel_file_builds_as_a_host_object(tools, tmp_path, family):
    """Issue 28's example: patterns/kernels/butterfly/kernel.cu (cuda_runtime.h, cuda_fp16.h) once
    failed in the host compile; hw_reduce's kernels call __reduce_and/or/xor_sync, which the host
    pass declares for HIP before 6.2."""
    cxx = f"{tools['clang']} --rocm-path={tools['prefix']} --hip-device-lib-path={tools['bitcode']}"
    done = subprocess.run([sys.executable, "-m", "shflx", "compile", "-c", str(ROOT / "patterns" / "kernels" / family /
                           "kernel.cu"), "--offload-arch=gfx90a", "--host-cxx", cxx, "-o", str(tmp_path / "k.o")],
                          capture_output=True, text=True)
    assert done.returncode == 0 and done.stderr == "", done.stderr[-3000:]


@pytest.mark.parametrize("words, said", [
    (["--offload-arch=sm_90"], "--link builds a program with AMD device code"),
    (["--offload-arch=gfx90a", "-MD"], "--link writes one program: no depfile flags"),
])
def test_link_refuses_what_it_cannot_build_in_one_line(tmp_path, words, said):
    done = subprocess.run([sys.executable, "-m", "shflx", "compile", "--link", str(PROGRAMS / "reduce.cu"), *words,
                           "-o", str(tmp_path / "app")], capture_output=True, text=True)
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1 and said in done.stderr, done.stderr
    assert not (tmp_path / "app").exists()


def test_math_constants_are_nvidias_in_host_and_device_code(tools, tmp_path):
    """<math_constants.h> (CUDART_PI_F, CUDART_INF_F) in a kernel and in host code of one .cu: the
    host half reads NVIDIA's header from the runtime wheel (shflx[cuda]), as the device half does."""
    from shflx.frontend.cuda_sdk import amd_header_args
    if not any("MATH_CONSTANTS" in w for w in amd_header_args()):
        from test_launcher import _need
        _need("NVIDIA's CUDA runtime wheel is not installed (pip install '.[cuda]')")
    src = tmp_path / "pi.cu"
    src.write_text("#include <cstdio>\n#include <math_constants.h>\n"
                   "__global__ void k(float *p) { p[threadIdx.x] = p[threadIdx.x] == CUDART_INF_F ? 0.f : "
                   "__shfl_xor_sync(~0u, p[threadIdx.x], 1); }\n"
                   'int main() { std::printf("%.5f\\n", CUDART_PI_F); return 0; }\n')
    cxx = f"{tools['clang']} --rocm-path={tools['prefix']} --hip-device-lib-path={tools['bitcode']}"
    done = subprocess.run([sys.executable, "-m", "shflx", "compile", "--link", str(src), "--offload-arch=gfx90a",
                           "--host-cxx", cxx, "-o", str(tmp_path / "pi")], capture_output=True, text=True)
    assert done.returncode == 0 and done.stderr == "", done.stderr[-3000:]
    assert subprocess.run([str(tmp_path / "pi")], capture_output=True, text=True).stdout == "3.14159\n"


def test_a_host_object_for_targets_the_hip_compiler_does_not_know(tools, tmp_path):
    """The device code objects are shflx's, so the host pass needs none of the targets: Debian's
    clang 15 (HIP 5.2) rejects gfx942, which LLVM 17 added, yet `-c` builds its object, and the
    bundle holds a code object for each requested target."""
    from elftools.elf.elffile import ELFFile

    from shflx.codegen.bundle import hip_entry_id, read_bundle

    src = tmp_path / "k.cu"
    src.write_text("#include <cuda_runtime.h>\n__global__ void k(int *p) { p[threadIdx.x] = "
                   "__shfl_xor_sync(0xffffffffu, p[threadIdx.x], 1); }\n"
                   "int main() { int *d; cudaMalloc(&d, 128); k<<<1, 32>>>(d); return cudaDeviceSynchronize(); }\n")
    cxx = f"{tools['clang']} --rocm-path={tools['prefix']} --hip-device-lib-path={tools['bitcode']}"
    obj = tmp_path / "k.o"
    done = subprocess.run([sys.executable, "-m", "shflx", "compile", "-c", str(src), "--offload-arch=gfx942,gfx1100",
                           "--host-cxx", cxx, "-o", str(obj)], capture_output=True, text=True)
    assert done.returncode == 0 and done.stderr == "", done.stderr[-3000:]
    with obj.open("rb") as f:
        entries = read_bundle(ELFFile(f).get_section_by_name(".hip_fatbin").data())
    assert {hip_entry_id("gfx942"), hip_entry_id("gfx1100")} <= set(entries)
    assert not any("gfx900" in e for e in entries)


def test_link_gives_library_flags_to_the_link_after_the_objects(tools, tmp_path):
    """nvcc's -L/-l (a CMake project's CMAKE_CUDA_FLAGS reach compile and link alike): a compile
    ignores them, --link gives them to its link after the objects, so a static library resolves
    what the program's object needs (before the objects, the linker would drop it unread)."""
    (tmp_path / "mine.c").write_text("int mine(void) { return 42; }\n")
    lib = tmp_path / "lib" / "libmine.a"
    lib.parent.mkdir()
    assert subprocess.run([tools["clang"], "-x", "c", "-c", str(tmp_path / "mine.c"), "-o", str(tmp_path / "mine.o")]).returncode == 0
    assert subprocess.run(["ar", "rcs", str(lib), str(tmp_path / "mine.o")]).returncode == 0
    src = tmp_path / "app.cu"
    src.write_text('extern "C" int mine(void);\n__global__ void k(int *p) { p[threadIdx.x] = 1; }\n'
                   "int main() { return mine() == 42 ? 0 : 1; }\n")
    cxx = f"{tools['clang']} --rocm-path={tools['prefix']} --hip-device-lib-path={tools['bitcode']}"
    done = subprocess.run([sys.executable, "-m", "shflx", "compile", "--link", str(src), "--offload-arch=gfx90a",
                           "-L", str(lib.parent), "-lmine", "--host-cxx", cxx, "-o", str(tmp_path / "app")],
                          capture_output=True, text=True)
    assert done.returncode == 0 and done.stderr == "", done.stderr[-3000:]
    assert subprocess.run([str(tmp_path / "app")]).returncode == 0
