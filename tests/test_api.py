"""The public Python API: what `import shflx` exports, the Plan emitters (to_llvm / to_hip /
to_asm), py.typed, shflx.testing without hypothesis, and the runnable example test of the docs
(docs/examples/test_permutations.py), run as a user would run it."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import shflx
from shflx.frontend.toolchain import find_clang

ROOT = Path(__file__).resolve().parents[1]


def test_every_name_in_all_resolves():
    assert set(shflx.__all__) == {"__version__", "MODEL_VERSION", *shflx._EXPORTS}
    for name in shflx.__all__:
        assert getattr(shflx, name) is not None, name
    assert set(dir(shflx)) >= set(shflx.__all__)
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        shflx.nothing  # noqa: B018


def test_match_and_lower_are_reachable_from_a_bare_import():
    code = "import shflx; print(shflx.match.lower.__module__, shflx.lower('xor 1', 'gfx90a').wave)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["shflx.match", "64"]


def test_py_typed_is_shipped():
    assert (ROOT / "shflx" / "py.typed").is_file()
    assert re.search(r'^"shflx" = \[[^\]]*"py\.typed"', (ROOT / "pyproject.toml").read_text(), re.M)


def test_testing_without_hypothesis_says_what_to_install():
    code = "import sys; sys.modules['hypothesis'] = None; import shflx.testing"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 1
    assert out.stderr.strip().splitlines()[-1] == (
        "ImportError: shflx.testing needs hypothesis: pip install hypothesis, or install shflx "
        "with its test extra (pip install '.[test]' in the shflx checkout)")


def test_to_asm_is_one_line_per_step():
    plan = shflx.lower("xor 5", "gfx942")
    lines = plan.to_asm().splitlines()
    assert len(lines) == len(plan.steps) == 2
    assert all(line.startswith("v_mov_b32_dpp") for line in lines)


def test_to_llvm_is_a_module_with_one_intrinsic_call_per_step():
    plan = shflx.lower("down 1 width 16", "gfx1100")
    ir = plan.to_llvm()
    calls = [line for line in ir.splitlines() if "call i32 @llvm.amdgcn." in line and "workitem" not in line]
    assert len(calls) == len(plan.steps) and 'target triple = "amdgcn-amd-amdhsa"' in ir


HIP_PRELUDE = ("#define __device__ __attribute__((device))\n#define __global__ __attribute__((global))\n"
               "#define __forceinline__ inline __attribute__((always_inline))\n")


@pytest.mark.parametrize("ctype,calls", [("int", 1), ("float", 1), ("double", 2), ("unsigned long long", 2)])
def test_to_hip_compiles_for_each_type(ctype, calls, tmp_path):
    """32-bit types run the plan once on their bits; 64-bit types once per half."""
    plan = shflx.lower("xor 1", "gfx942")
    src = tmp_path / "k.hip"
    kernel = (f'extern "C" __global__ void k({ctype} *p) {{\n'
              f'  int i = __builtin_amdgcn_workitem_id_x();\n  p[i] = f(p[i]);\n}}\n')
    src.write_text(HIP_PRELUDE + plan.to_hip("f", ctype) + kernel)
    r = subprocess.run([*find_clang().command, "-x", "hip", "--cuda-device-only", "-nogpulib", "-nogpuinc",
                        "--offload-arch=gfx942", "-O2", "-S", "-o", "-", str(src)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    dpp = [line for line in r.stdout.splitlines() if "_dpp" in line and "quad_perm" in line]
    assert len(dpp) == calls * len(plan.steps), r.stdout


def test_to_hip_refuses_a_type_it_cannot_move():
    plan = shflx.lower("xor 1", "gfx942")
    with pytest.raises(ValueError, match="no HIP form for type 'char'"):
        plan.to_hip("f", "char")


def test_the_docs_example_test_file_passes():
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          str(ROOT / "docs" / "examples" / "test_permutations.py")],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert re.search(r"^6 passed", out.stdout, re.M), out.stdout
