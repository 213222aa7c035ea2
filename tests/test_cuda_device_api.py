"""Every device function NVIDIA's headers declare is there on AMD targets, or is shflx's one-line
error: the declarations are read from the installed CUDA headers (crt/math_functions.h,
crt/device_functions.h, the sm_NN intrinsics and atomics headers), each is called once in a probe
file, and the file is compiled for sm_90 (NVIDIA's headers beneath clang's CUDA wrapper) and for
gfx942 (the CUDA layer). Every function compiles for sm_90, as with nvcc; on gfx942 one that fails
with anything but `shflx does not support` is a gap in the layer. Needs the cuda extra (ptxas,
clang's CUDA headers) for sm_90."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from ci_policy import IN_CI
from shflx.frontend.cuda_sdk import package_dir, runtime_include

CRT = ("math_functions.h", "device_functions.h", "device_double_functions.h")
RUNTIME = ("sm_20_intrinsics.h", "sm_30_intrinsics.h", "sm_32_intrinsics.h", "sm_35_intrinsics.h",
           "sm_61_intrinsics.h", "device_atomic_functions.h", "sm_20_atomic_functions.h",
           "sm_32_atomic_functions.h", "sm_60_atomic_functions.h")
# a declaration: one of the headers' declaration macros, the return type, the name, its parameters
DECLARATION = re.compile(r"(?:__device_builtin__|__(?:SM_\d+_(?:INTRINSICS|ATOMIC_FUNCTIONS)|DEVICE_ATOMIC_FUNCTIONS|"
                         r"DEVICE_FUNCTIONS)_DECL__)"
                         r"[^;{}()]*?\b(?P<ret>(?:unsigned |signed |const )*(?:long long|long|int|short|char|float|"
                         r"double|void|bool|\w+)\s*\**)\s*(?:__cdecl\s+)?(?P<name>[a-z_]\w*)\s*\((?P<params>[^()]*)\)")
NAME = re.compile(r"__[a-z]\w*|[a-z]\w+")
# what the headers declare that is no device function on Linux x86-64: the long double and Apple-only
# forms (crt/math_functions.h's `#if defined(__APPLE__)` block) and libc++'s helpers they name
NOT_DEVICE_FUNCTIONS = {"__finitel", "__isinfl", "__isnanl", "__signbitl", "__isfinite", "__isfinitef", "__isinfd",
                        "__isnand", "__cmath_power", "__libcpp_isinf", "__libcpp_isnan", "__pow_helper", "defined"}


def header_files() -> list[Path]:
    nvcc = package_dir("nvidia.cuda_nvcc")
    runtime = runtime_include()
    if nvcc is None or runtime is None:
        return []
    return [nvcc / "include" / "crt" / f for f in CRT] + [runtime / f for f in RUNTIME]


def declarations(files: list[Path]) -> dict[str, list[list[str]]]:
    """name -> each overload's return type and parameter types, read from NVIDIA's headers."""
    found: dict[str, list[list[str]]] = {}
    for path in files:
        text = re.sub(r"/\*.*?\*/|//[^\n]*", "", path.read_text(errors="replace"), flags=re.S)
        for m in DECLARATION.finditer(text):
            name, params = m["name"], " ".join(m["params"].split())
            parts = [] if params in ("", "void") else [p.strip() for p in params.split(",")]
            if not NAME.fullmatch(name) or any("=" in p or "..." in p or re.search(r"\b_[A-Z]", p) for p in parts):
                continue                     # default arguments, varargs, a template's parameter types
            signature = [" ".join(m["ret"].split())] + \
                [p[:p.rfind("*") + 1] if "*" in p else re.sub(r"\s+\w+$", "", p) for p in parts]
            if signature[1:] not in [s[1:] for s in found.setdefault(name, [])]:
                found[name].append(signature)
    return found


def probe(decls: dict[str, list[str]]) -> tuple[str, list[str]]:
    """A .cu file calling each function once (value-initialized arguments), and its names by line."""
    lines = ["#include <cuda_runtime.h>", "template <class T> __device__ constexpr T __probe_value() { return T(); }"]
    names = [""] * len(lines)
    for name, overloads in sorted(decls.items()):
        for ret, *params in overloads:
            args = ", ".join(f"({t.replace('const ', '')})0" if t.endswith("*") else f"__probe_value<{t}>()"
                             for t in params)      # a void one may be a statement macro (clang's __prof_trigger)
            lines.append(f"__device__ void __probe_{len(lines)}() {{ {'' if ret == 'void' else '(void)'}{name}({args}); }}")
            names.append(name)
    return "\n".join(lines) + "\n", names


def failures(src: Path, target: str, names: list[str]) -> dict[str, str]:
    """name -> the first error at its probe line, compiling `src` for `target`."""
    done = subprocess.run([sys.executable, "-m", "shflx", "compile", str(src), "--offload-arch", target,
                           "-Xclang", "-ferror-limit", "-Xclang", "0", "-o", str(src.with_suffix(f".{target}"))],
                          capture_output=True, text=True)
    found: dict[str, str] = {}
    for m in re.finditer(rf"^{re.escape(str(src))}:(\d+):\d+: error: (.*)$", done.stderr, re.M):
        found.setdefault(names[int(m[1]) - 1], m[2])
    assert done.returncode == 0 or found, done.stderr[-2000:]
    return found


@pytest.fixture(scope="module")
def probed(tmp_path_factory):
    files = header_files()
    if not files or not all(f.is_file() for f in files):
        (pytest.fail if IN_CI else pytest.skip)("NVIDIA's crt headers are not installed (shflx's cuda extra)")
    decls = declarations(files)
    text, names = probe(decls)
    src = tmp_path_factory.mktemp("api") / "probe.cu"
    src.write_text(text)
    return decls, {t: failures(src, t, names) for t in ("sm_90", "gfx942")}


def test_the_declarations_are_read_from_nvidias_headers(probed):
    decls, _ = probed
    assert len(decls) > 450 and sum(map(len, decls.values())) > 900
    assert decls["j0"] == [["double", "double"]] and decls["__vsetgtu4"] == [["unsigned int"] * 3]
    assert decls["remquof"] == [["float", "float", "float", "int *"]] and decls["__funnelshift_lc"] == [["unsigned int"] * 4]
    assert decls["sincospi"] == [["void", "double", "double *", "double *"]]
    assert ["void", "float4 *", "float4"] in decls["__stcs"] and len(decls["__stcs"]) > 20
    assert [s[1:] for s in decls["atomicAdd"]] == [["int *", "int"], ["unsigned int *", "unsigned int"], [
        "unsigned long long int *", "unsigned long long int"], ["float *", "float"], ["double *", "double"]]


def test_every_device_function_nvidia_declares_is_provided_or_named_on_amd(probed):
    decls, failed = probed
    for target in ("sm_90", "gfx942"):
        gaps = {name: error for name, error in failed[target].items()
                if name not in NOT_DEVICE_FUNCTIONS and "shflx does not support" not in error}
        assert not gaps, f"{len(gaps)} of NVIDIA's device functions fail on {target} with a raw error: {gaps}"
    assert not set(failed["sm_90"]) - NOT_DEVICE_FUNCTIONS, failed["sm_90"]     # nvcc compiles every one
    provided = set(decls) - set(failed["gfx942"])
    assert {"j0", "norm3df", "sincospi", "scalbnf", "__vsadu4", "__funnelshift_rc", "atomicInc_system", "__tanhf",
            "__uni_sync", "__double2float_rz", "__ll2double_ru", "syncthreads_or", "__isLocal", "__prof_trigger"} <= provided
