"""`shflx compile -fgpu-rdc` for sm_90 on an NVIDIA GPU: two files' relocatable objects (an extern
__device__ function and variable defined in the other file, a kernel launched from device code)
linked as nvcc -rdc=true links them, by the CUDA driver's JIT linker (cuLink*, nvlink's job) with
NVIDIA's device runtime library cudadevrt, then run: every lane must hold what the source says.
Skips without a GPU (libcuda) or without libcudadevrt.a.

    PYTHONPATH=. python hw_tests/nvidia/test_rdc_hw.py --build   (here: needs the toolchain)
    PYTHONPATH=. python hw_tests/nvidia/test_rdc_hw.py           (on the GPU machine)

Run on an H200 (driver 580, CUDA 13.0's cudadevrt) with objects from shflx's CUDA 12.9 ptxas: linked
and every lane right (p[i] = 3 i + 1 + 5 + 100)."""
from __future__ import annotations

import ctypes
import glob
import os
import subprocess
import sys
from pathlib import Path

BUILD = Path(__file__).resolve().parent / "build" / "rdc"
SOURCES = {"main": """extern __device__ int helper(int);
extern __device__ int counter;
__global__ void child(int *p) { p[threadIdx.x] += 100; }
extern "C" __global__ void k(int *p) { p[threadIdx.x] = helper(p[threadIdx.x]) + counter; }
extern "C" __global__ void parent(int *p) { if (threadIdx.x == 0) child<<<1, 32>>>(p); }
""", "lib": "__device__ int counter = 5;\n__device__ int helper(int x) { return x * 3 + 1; }\n"}
WANT = [i * 3 + 1 + 5 + 100 for i in range(32)]
CU_JIT_INPUT_CUBIN, CU_JIT_INPUT_LIBRARY = 0, 4          # cuda.h: CUjitInputType


def build() -> list[Path]:
    """The relocatable objects, compiled by shflx (-fgpu-rdc)."""
    BUILD.mkdir(parents=True, exist_ok=True)
    out = []
    for name, text in SOURCES.items():
        (BUILD / f"{name}.cu").write_text(text)
        subprocess.run([sys.executable, "-m", "shflx", "compile", str(BUILD / f"{name}.cu"), "--offload-arch", "sm_90",
                        "-fgpu-rdc", "-o", str(BUILD / f"{name}.o")], check=True)
        out.append(BUILD / f"{name}.o")
    return out


def cudadevrt() -> str | None:
    """libcudadevrt.a of an installed toolkit or NVIDIA wheel."""
    roots = [os.environ.get("CUDA_HOME", ""), "/usr/local/cuda*", *sys.path]
    pats = [f"{r}/lib64/libcudadevrt.a" for r in roots] + [f"{r}/targets/x86_64-linux/lib/libcudadevrt.a" for r in roots] \
        + [f"{r}/nvidia/*/lib/libcudadevrt.a" for r in roots]
    return next((f for p in pats if p.strip("/") for f in sorted(glob.glob(p))), None)


def link_and_run(objects: list[Path], devrt: str) -> list[int]:
    """p[i] = i, then k and parent launched on one block of 32 threads; p read back."""
    cu = ctypes.CDLL("libcuda.so.1")
    ref, vp = ctypes.byref, ctypes.c_void_p

    def check(r, what):
        if r != 0:
            raise RuntimeError(f"{what}: CUresult {r}")
    check(cu.cuInit(0), "cuInit")
    ctx, state, image, size, mod = vp(), vp(), vp(), ctypes.c_size_t(), vp()
    check(cu.cuDevicePrimaryCtxRetain(ref(ctx), 0), "context")
    check(cu.cuCtxSetCurrent(ctx), "context")
    check(cu.cuLinkCreate_v2(0, None, None, ref(state)), "cuLinkCreate")
    for obj in objects:
        data = obj.read_bytes()
        check(cu.cuLinkAddData_v2(state, CU_JIT_INPUT_CUBIN, data, len(data), obj.name.encode(), 0, None, None), obj.name)
    check(cu.cuLinkAddFile_v2(state, CU_JIT_INPUT_LIBRARY, devrt.encode(), 0, None, None), devrt)
    check(cu.cuLinkComplete(state, ref(image), ref(size)), "cuLinkComplete")
    check(cu.cuModuleLoadData(ref(mod), image), "cuModuleLoadData")
    buf, host = ctypes.c_uint64(), (ctypes.c_int * 32)(*range(32))
    check(cu.cuMemAlloc_v2(ref(buf), 128), "alloc")
    check(cu.cuMemcpyHtoD_v2(buf, host, 128), "copy in")
    for name in (b"k", b"parent"):
        fn, arg = vp(), ctypes.c_uint64(buf.value)
        check(cu.cuModuleGetFunction(ref(fn), mod, name), name.decode())
        check(cu.cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, None, (vp * 1)(ctypes.cast(ref(arg), vp)), None), "launch")
        check(cu.cuCtxSynchronize(), "synchronize")
    check(cu.cuMemcpyDtoH_v2(host, buf, 128), "copy out")
    return list(host)


def test_rdc_objects_link_with_cudadevrt_and_run():
    import pytest
    try:
        ctypes.CDLL("libcuda.so.1")
    except OSError:
        pytest.skip("no NVIDIA driver (libcuda.so.1)")
    devrt = cudadevrt()
    if devrt is None:
        pytest.skip("no libcudadevrt.a")
    objects = [BUILD / f"{n}.o" for n in SOURCES]
    if not all(o.is_file() for o in objects):
        objects = build()
    assert link_and_run(objects, devrt) == WANT


if __name__ == "__main__":
    if "--build" in sys.argv:
        print(" ".join(map(str, build())))
    else:
        got = link_and_run([BUILD / f"{n}.o" for n in SOURCES], cudadevrt() or sys.exit("no libcudadevrt.a"))
        print("match" if got == WANT else f"MISMATCH {got}")
        sys.exit(0 if got == WANT else 1)
