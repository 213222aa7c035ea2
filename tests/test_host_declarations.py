"""The runtime API of AMD device code is NVIDIA's own cuda_runtime.h; shflx's declarations-only
host headers for libraries that may not be installed (shflx_cublas_host.h, shflx_cublaslt_host.h)
are checked against NVIDIA's real ones (nvidia-cublas-cu12).

Every function, enumerator, struct field, typedef and numeric macro the shflx header declares is
read off clang's AST of an AMD device compile and checked in a host translation unit that
includes the real cuda_runtime.h: a function must have an overload of exactly our type, an
enumerator our value, a field our type. Host code is parsed, never emitted, so a wrong declaration
would compile code nvcc rejects (or reject code nvcc accepts) without any other test noticing."""
from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from shflx.driver.nvidia import cuda_headers
from shflx.errors import InputError
from shflx.frontend.clang import INCLUDE, FrontendOptions, cc1_args, compile_with_cuda_headers
from shflx.frontend.cuda_sdk import runtime_include
from shflx.frontend.toolchain import find_clang, host_cxx_args

# NVIDIA's runtime API headers, as the AMD device pass reads them (frontend/cuda_sdk.RUNTIME_API)
NVIDIA_RUNTIME = ("driver_types.h", "cuda_runtime_api.h", "cuda_runtime.h", "library_types.h", "vector_types.h",
                  "texture_types.h", "surface_types.h", "vector_functions.hpp")
CUBLAS = ("shflx_cublas_host.h",)
# shflx's own names (clang's launch ABI for HIP mode), not CUDA API
NOT_CUDA = {"hipConfigureCall", "cudaConfigureCall", "__cudaPushCallConfiguration"}


def _ast(tmp: Path, include: str) -> dict:
    tool = find_clang()
    src = tmp / "empty.cu"
    src.write_text(include)
    opts = FrontendOptions(debug=False)
    args = [a for a in cc1_args(src, "gfx942", 64, tmp / "o.ll", opts, False,
                                host_cxx_args(tool), tmp) if a != "-emit-llvm"]
    k = args.index("-o")
    del args[k:k + 2]
    r = subprocess.run([*tool.command, *args, "-ast-dump=json"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout)


def _ours(tu: dict, checked: tuple[str, ...]) -> list[tuple[str, dict, str | None]]:
    """(file, node, parent record name) of every declaration made in a `checked` header. clang's JSON
    names a location's file only where it changes, so the current file is followed in order."""
    out, state = [], {"file": ""}

    def note_file(node):
        for key in ("loc", "range"):
            v = node.get(key)
            for loc in ([v] if key == "loc" else [v.get("begin"), v.get("end")]) if v else []:
                for part in (loc or {}, (loc or {}).get("spellingLoc") or {}, (loc or {}).get("expansionLoc") or {}):
                    if "file" in part:
                        state["file"] = part["file"]

    def walk(node, record):
        note_file(node)
        where = next((c for c in checked if state["file"].endswith("/" + c)), None)
        if where and not node.get("isImplicit"):
            out.append((where, node, record))
        if node.get("kind") == "FunctionTemplateDecl":       # templates are not checked
            return
        inner_record = node.get("name") if node.get("kind") == "CXXRecordDecl" else record
        for child in node.get("inner", []):
            walk(child, inner_record)
    walk(tu, None)
    return out


def _checks(decls) -> list[str]:
    lines = []
    for _, node, record in decls:
        kind, name = node.get("kind"), node.get("name")
        if not name or name in NOT_CUDA or name.startswith(("__shflx", "operator")):   # operators: <new>'s
            continue
        qt = node.get("type", {}).get("qualType", "")
        if kind == "FunctionDecl" and record is None:
            lines.append(f"static_assert(sizeof(static_cast<{_pointer_to(qt)}>(&::{name})) > 0, \"{name}\");")
        elif kind == "EnumConstantDecl":
            value = _value(node)
            if value is not None:
                lines.append(f"static_assert((long long)::{name} == {value}LL, \"{name}\");")
        elif kind == "FieldDecl" and record and "unnamed" not in qt:       # a nested struct's fields are checked
            lines.append(f"static_assert(std::is_same_v<decltype(::{record}::{name}), {qt}>, \"{record}::{name}\");")
        elif kind == "TypedefDecl" and qt == f"enum {name}":      # typedef enum { ... } name;
            lines.append(f"static_assert(std::is_enum_v<::{name}>, \"{name}\");")
        elif kind == "TypedefDecl" and "unnamed" not in qt:
            lines.append(f"static_assert(std::is_same_v<::{name}, {qt}>, \"{name}\");")
    return lines


def _pointer_to(fn_type: str) -> str:
    """`R (A, B)` -> `R (*)(A, B)`: the first top-level '(' starts the parameters."""
    depth = 0
    for k, c in enumerate(fn_type):
        if c == "(" and depth == 0 and k > 0:
            return f"{fn_type[:k].rstrip()} (*){fn_type[k:]}"
        depth += c in "<"
        depth -= c in ">"
    raise ValueError(fn_type)


def _value(node: dict) -> str | None:
    for child in node.get("inner", []):
        if "value" in child:
            return child["value"]
        v = _value(child)
        if v is not None:
            return v
    return None


def _macros(checked: tuple[str, ...]) -> list[str]:
    lines = []
    for rel in checked:
        for m in re.finditer(r"^#define[ \t]+(cuda\w+|CUDA\w+|cublas\w+)[ \t]+(\S.*)$", (INCLUDE / rel).read_text(), re.M):
            value = m.group(2).split("//")[0].strip()
            if re.fullmatch(r"[\s()0-9a-fA-FxXuUlL|&<>~+*-]+", value):       # integral (not a handle or empty)
                lines.append(f"static_assert(({value}) == ({m.group(1)}), \"#define {m.group(1)}\");")
    return lines


@pytest.fixture(scope="module")
def real_sdk():
    sdk = cuda_headers(FrontendOptions())
    if sdk is None:
        pytest.skip("NVIDIA's CUDA headers are not installed (pip install 'shflx[cuda]')")
    return sdk


def test_the_runtime_api_is_nvidias_cuda_runtime_h(tmp_path):
    """The runtime API an AMD device compile sees (types, enums, host functions, vector types) is
    declared in NVIDIA's own headers (the runtime wheel's cuda_runtime.h and what it includes), and
    shflx_cuda_host.h declares none of it: only clang's launch ABI and the texture and surface
    reads it names as unsupported."""
    inc = runtime_include()
    decls = _ours(_ast(tmp_path, ""), NVIDIA_RUNTIME + ("shflx_cuda_host.h",))
    where = {}
    for header, node, record in decls:
        if record is None and node.get("name"):
            where.setdefault(node["name"], header)
    for name, header in {"cudaDeviceProp": "driver_types.h", "cudaStreamCaptureModeGlobal": "driver_types.h",
                         "cudaChannelFormatDesc": "driver_types.h", "cudaMalloc": "cuda_runtime_api.h",
                         "cudaFuncGetAttributes": "cuda_runtime_api.h", "CUDA_R_32F": "library_types.h",
                         "float4": "vector_types.h", "dim3": "vector_types.h",
                         "cudaTextureObject_t": "texture_types.h"}.items():
        assert where.get(name) == header, (name, where.get(name))
    files = {f for f in _files(tmp_path) if Path(f).name in NVIDIA_RUNTIME}
    assert files and all(f.startswith(str(inc)) or "/crt/" in f for f in files), files
    ours = {node.get("name") for header, node, _ in decls if header == "shflx_cuda_host.h"} - {None}
    assert ours and not {n for n in ours if n.startswith(("cuda", "CUDA", "make_"))} - NOT_CUDA, ours


def _files(tmp: Path) -> set[str]:
    """The files an empty AMD device compile reads (its depfile)."""
    tool = find_clang()
    src = tmp / "deps.cu"
    src.write_text("")
    args = [a for a in cc1_args(src, "gfx942", 64, tmp / "o.ll", FrontendOptions(debug=False), False,
                                host_cxx_args(tool), tmp) if a != "-emit-llvm"]
    k = args.index("-o")
    args[k:k + 2] = ["-o", str(tmp / "o.i"), "-E", "-dependency-file", str(tmp / "o.d"), "-MT", "o", "-sys-header-deps"]
    r = subprocess.run([*tool.command, *args], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    return {w for w in (tmp / "o.d").read_text().replace("\\\n", " ").split() if w.endswith((".h", ".hpp"))}


def test_shflx_cublas_declarations_match_cublas_v2_h(real_sdk, tmp_path):
    """Where nvidia-cublas-cu12 is installed (the sm_90 compile then reads its cublas_v2.h): shflx's
    fallback declarations, included by path, against it."""
    if not any((inc / "cublas_v2.h").is_file() for inc in real_sdk.includes):
        pytest.skip("nvidia-cublas-cu12 is not installed (581 MB, not part of shflx[cuda])")
    decls = _ours(_ast(tmp_path, f'#include "{INCLUDE / "shflx_cublas_host.h"}"\n'), CUBLAS)
    names = {node.get("name") for _, node, _ in decls}
    assert {"cublasSgemm_v2", "cublasGemmEx", "CUBLAS_OP_T", "cublasHandle_t"} <= names
    checks = _checks(decls) + _macros(CUBLAS)
    assert len(checks) > 100
    assert _errors(real_sdk, tmp_path, checks, "#include <cublas_v2.h>\n") == []


def _errors(sdk, tmp: Path, checks: list[str], include: str = "") -> list[str]:
    """The errors of a CUDA translation unit with `checks`, compiled for sm_90 against the real
    headers exactly as `shflx compile --offload-arch sm_90` compiles (clang's CUDA mode)."""
    tu = tmp / "check.cu"
    tu.write_text("#include <cuda_runtime.h>\n#include <library_types.h>\n#include <type_traits>\n" + include +
                  "typedef size_t __shflx_size_t;\n" + "\n".join(checks) + "\n")
    try:
        compile_with_cuda_headers(tu, "sm_90", sdk, FrontendOptions(debug=False, opt=0))
    except InputError as e:
        return [ln for ln in str(e).splitlines() if re.search(r":\d+:\d+: error: ", ln)]
    return []


def test_a_wrong_declaration_is_caught(real_sdk, tmp_path):
    """The check can fail: a parameter type, an enumerator value and a field type changed."""
    errors = _errors(real_sdk, tmp_path, [
        f"static_assert(sizeof(static_cast<{_pointer_to('cudaError_t (cudaGraph_t *, int)')}>(&::cudaGraphCreate)) > 0);",
        "static_assert((long long)::cudaGraphExecUpdateError == 2LL);",
        "static_assert(std::is_same_v<decltype(::cudaMemsetParams::value), int>);"])
    assert len(errors) == 3, errors


def test_shflx_cublaslt_declarations_match_cublaslt_h(real_sdk, tmp_path):
    """The same for cuBLASLt (shflx_cublaslt_host.h against NVIDIA's cublasLt.h)."""
    if not any((inc / "cublasLt.h").is_file() for inc in real_sdk.includes):
        pytest.skip("nvidia-cublas-cu12 is not installed (581 MB, not part of shflx[cuda])")
    decls = _ours(_ast(tmp_path, f'#include "{INCLUDE / "shflx_cublaslt_host.h"}"\n'), ("shflx_cublaslt_host.h",))
    names = {node.get("name") for _, node, _ in decls}
    assert {"cublasLtMatmul", "CUBLASLT_EPILOGUE_GELU_BIAS", "cublasLtHandle_t"} <= names
    assert _errors(real_sdk, tmp_path, _checks(decls), "#include <cublasLt.h>\n") == []
