"""NVIDIA's CCCL (CUB, Thrust, libcu++) beneath the CUDA layer for AMD: found where shflx
installed it, searched after the user's directories, a one-line `shflx does not support` error
naming the header and its #include where it is not installed, and the constraint-rewriting path
taken at once for files that read it (tests/test_ptx_operands.py covers the rewrite itself).
The CUB primitives' results are checked on the emulator by hw_tests/amd/test_cub_hw.py."""
from __future__ import annotations

import os
import re

import pytest

from shflx.driver.amd import compile_file
from shflx.errors import InputError
from shflx.frontend import clang
from shflx.frontend.cuda_sdk import cccl_include, runtime_include
from shflx.frontend.ptx_operands import may_need_rewrite, rewrite_constraints, search_dirs, without_depfile

IN_CI = os.environ.get("CI", "").lower() == "true"


def need_cccl():
    if cccl_include() is None:
        (pytest.fail if IN_CI else pytest.skip)("NVIDIA's CCCL headers are not installed (a dependency of shflx: pip install .)")


@pytest.mark.parametrize("header", ["cub/cub.cuh", "cub/block/block_reduce.cuh", "thrust/device_vector.h",
                                    "cuda/atomic", "cuda/std/atomic", "nv/target"])
def test_without_cccl_a_cccl_header_is_a_shflx_error_at_its_include(tmp_path, monkeypatch, header):
    monkeypatch.setattr(clang, "cccl_include", lambda: None)
    src = tmp_path / "k.cu"
    src.write_text(f"// a kernel\n#include <{header}>\n__global__ void k(int *p) {{ p[0] = 1; }}\n")
    with pytest.raises(InputError) as e:
        compile_file(src, "gfx942")
    assert str(e.value) == (f"{src}:2:10: error: shflx does not support '{header}' on AMD targets without NVIDIA's "
                            "CCCL headers (CUB, Thrust, libcu++: reinstall shflx (pip install . in the shflx checkout), "
                            "which depends on nvidia-cuda-cccl)")


def test_without_cccl_the_error_names_the_project_header_that_includes_cub(tmp_path, monkeypatch):
    monkeypatch.setattr(clang, "cccl_include", lambda: None)
    (tmp_path / "inc.h").write_text("#pragma once\n  #include <cub/cub.cuh>\n")
    src = tmp_path / "k.cu"
    src.write_text('#include "inc.h"\n__global__ void k(int *p) { p[0] = 1; }\n')
    with pytest.raises(InputError) as e:
        compile_file(src, "gfx1100")
    assert str(e.value).startswith(f"{tmp_path / 'inc.h'}:2:12: error: shflx does not support 'cub/cub.cuh'")
    assert "\n" not in str(e.value)


def test_without_cccl_a_project_header_under_cuda_is_still_file_not_found(tmp_path, monkeypatch):
    monkeypatch.setattr(clang, "cccl_include", lambda: None)
    src = tmp_path / "k.cu"
    src.write_text('#include "cuda/helpers.h"\n__global__ void k(int *p) { p[0] = 1; }\n')
    with pytest.raises(InputError) as e:
        compile_file(src, "gfx942")
    assert "'cuda/helpers.h' file not found" in str(e.value) and "shflx does not support" not in str(e.value)


def test_cccl_is_searched_after_the_users_directories(tmp_path):
    need_cccl()
    mine = tmp_path / "inc" / "cub"
    mine.mkdir(parents=True)
    (mine / "cub.cuh").write_text("#define MY_OWN_CUB 7\n")
    src = tmp_path / "k.cu"
    src.write_text("#include <cub/cub.cuh>\n__global__ void k(int *p) { p[0] = MY_OWN_CUB; }\n")
    from shflx.frontend.clang import FrontendOptions
    res = compile_file(src, "gfx942", emit="llvm", opts=FrontendOptions(includes=(str(tmp_path / "inc"),)))
    assert "store i32 7" in res.output


KERNEL = r"""
#include <cub/warp/warp_reduce.cuh>
__global__ void k(const float *in, float *out) {
  using WR = cub::WarpReduce<float>;
  __shared__ WR::TempStorage tmp;
  float r = WR(tmp).Sum(in[threadIdx.x]);
  if (threadIdx.x == 0) out[0] = r;
}
"""


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_a_cub_warp_reduction_compiles_and_its_shuffles_are_lowered(tmp_path, arch):
    need_cccl()
    src = tmp_path / "k.cu"
    src.write_text(KERNEL)
    res = compile_file(src, arch, emit="asm")
    # CUB's float Sum is five inline-PTX `shfl.sync.down ... @p add.f32` steps: each is a site the
    # synthesizer lowered (proven), none is left to the general lowering
    downs = [s for s in res.sites if s.cls == "down"]
    assert len(downs) == 5 and all(s.proof == "proved" for s in downs), [(s.cls, s.proof) for s in res.sites]
    assert all("warp_reduce_shfl.cuh" in " ".join(s.inlined) for s in downs)
    # placed at the user's call of CUB, not inside the installed headers, and named as written
    assert all(s.location.startswith(f"{src}:") and s.intrinsic == "cub::WarpReduce::Sum" for s in downs), \
        [(s.location, s.intrinsic) for s in downs]


def test_thrust_transform_on_a_device_vector_compiles_for_amd(tmp_path):
    """CCCL 3.0 runs thrust::transform as cub's transform kernel, which prefetches with inline PTX
    (`prefetch.global.L2 [$0]`): a hint, left out on AMD (tests/test_ptxblock.py), not an error."""
    need_cccl()
    src = tmp_path / "t.cu"
    src.write_text("#include <thrust/device_vector.h>\n#include <thrust/transform.h>\n"
                   "struct sq { __host__ __device__ float operator()(float x) const { return x * x; } };\n"
                   "void f(thrust::device_vector<float> &v) { thrust::transform(v.begin(), v.end(), v.begin(), sq()); }\n")
    assert "prefetch.global.L2" in (cccl_include() / "cub" / "device" / "dispatch" / "kernels" / "transform.cuh").read_text()
    assert "amdhsa.kernels" in compile_file(src, "gfx942", emit="asm").output


def test_files_that_read_cccl_take_the_rewriting_path_first(tmp_path):
    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "mine.h").write_text('#pragma once\n#include "deeper.h"\n')
    (inc / "deeper.h").write_text("#include <cub/block/block_reduce.cuh>\n")
    plain, via_header, asm = (tmp_path / n for n in ("plain.cu", "via.cu", "asm.cu"))
    plain.write_text('#include <vector>\n#include "cuda_helpers.h"\n__global__ void k() {}\n')
    via_header.write_text('#include "mine.h"\n')
    asm.write_text('__device__ float f(float x) { float y; asm("mov.f32 %0, %1;" : "=f"(y) : "f"(x)); return y; }\n')
    assert not may_need_rewrite(plain, (str(inc),))
    assert may_need_rewrite(via_header, (str(inc),)) and not may_need_rewrite(via_header, (), depth=0)
    assert may_need_rewrite(asm)
    # the CLI passes -I as cc1 words: those directories are searched too (a DeepSpeed file whose
    # asm is in its project's headers took a failed first compile of the whole file without them)
    words = clang.FrontendOptions(extra=("-D", "X=1", "-I", str(inc), "-std=c++17"))
    assert search_dirs(words) == (str(inc),) and search_dirs(clang.FrontendOptions(extra=(f"-I{inc}",))) == (str(inc),)
    assert may_need_rewrite(via_header, search_dirs(words))


def test_files_that_read_nvidias_cooperative_groups_take_the_rewriting_path_first(tmp_path):
    """NVIDIA's cooperative groups (details/memory.h) and awbarrier helpers hold "l" operands, which
    AMDGPU's clang rejects: a first compile of a file that includes them could only fail."""
    inc = runtime_include()
    assert inc is not None, "the runtime wheel is an ordinary dependency"
    held = [p.name for p in (inc / "cooperative_groups/details/memory.h", inc / "cuda_awbarrier_helpers.h")
            if rewrite_constraints(p.read_text()) != p.read_text()]
    assert held == ["memory.h", "cuda_awbarrier_helpers.h"]
    for n, include in enumerate(("<cooperative_groups.h>", "<cooperative_groups/reduce.h>", '"cuda_pipeline.h"',
                                 "<cuda_awbarrier.h>")):
        (tmp_path / f"{n}.cu").write_text(f"#include {include}\n__global__ void k() {{}}\n")
        assert may_need_rewrite(tmp_path / f"{n}.cu"), include
    (tmp_path / "own.cu").write_text('#include "cooperative_groups_helpers.h"\n')
    assert not may_need_rewrite(tmp_path / "own.cu")


def test_the_depfile_is_written_by_the_preprocessing_run_only():
    words = ("-target-feature", "+xnack", "-dependency-file", "o.d", "-MT", "o.o", "-sys-header-deps", "-MP", "-w")
    assert without_depfile(words) == ("-target-feature", "+xnack", "-w")


def test_a_cccl_file_with_md_lists_the_real_headers_not_the_preprocessed_text(tmp_path):
    need_cccl()
    src = tmp_path / "k.cu"
    src.write_text(KERNEL)
    dep = tmp_path / "k.d"
    from shflx.frontend.clang import FrontendOptions
    compile_file(src, "gfx942", emit="llvm",
                 opts=FrontendOptions(extra=("-dependency-file", str(dep), "-MT", "k.o", "-sys-header-deps")))
    text = dep.read_text()
    assert text.startswith("k.o:") and str(src) in text and "warp_reduce.cuh" in text
    assert ".hipi" not in text and not re.search(r"shflx-ptxops-", text)
