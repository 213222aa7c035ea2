"""Generate the CUDA-on-HIP name tables and headers from HIPIFY's documented tables.

The host half of a .cu file built for AMD (`shflx compile -c`, `shflx launch`) compiles against the
HIP runtime; each CUDA runtime API name (and driver API name, for <cuda.h>) is either renamed to its
HIP equivalent or declared so that a use is shflx's one-line error. Which HIP name stands for which
CUDA name, and from which HIP version, is HIPIFY's fact, not ours: ROCm/HIPIFY docs/tables/
CUDA_Runtime_API_functions_supported_by_HIP.md and CUDA_Driver_API_functions_supported_by_HIP.md
(columns: CUDA name, CUDA added/deprecated/changed/removed; HIP name, HIP added/deprecated/changed/
removed/experimental).

    python tools/cuda_on_hip.py tables HIPIFY/docs/tables --commit SHA   # markdown -> name tables
    python tools/cuda_on_hip.py header                                  # name tables -> headers

writes shflx/frontend/include/cuda_on_hip/cuda_{runtime,driver}_names.tsv and
shflx_cuda_{runtime,driver}_names.h; tests/test_cuda_on_hip.py checks that the committed headers are
what `header` renders."""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import NamedTuple

HERE = Path(__file__).resolve().parents[1] / "shflx" / "frontend" / "include" / "cuda_on_hip"
TABLE = HERE / "cuda_runtime_names.tsv"
HEADER = HERE / "shflx_cuda_runtime_names.h"
SOURCE = "CUDA_Runtime_API_functions_supported_by_HIP.md"
COLUMNS = ("cuda", "kind", "hip", "hip_added", "hip_removed")

# CUDA names whose HIP counterpart does not say what CUDA code expects: shflx's own definitions
# (shflx_cuda_runtime_own.h) take their place. warpSize: the device side keeps CUDA's 32-lane warps
# on every AMD target (DESIGN decision 2), so the host reports 32 too; the C++ overloads are
# CUDA's (cuda_runtime.h, "C++ API Routines") that HIP 5.2 lacks for a kernel's own pointer type
# or a typed pointer's address (HIP has hipMalloc's, hipHostMalloc's and hipMallocManaged's).
OWN = {
    "cudaGetDeviceProperties": "warpSize is 32: a CUDA warp is 32 lanes on every AMD target",
    "cudaDeviceGetAttribute": "cudaDevAttrWarpSize is 32, as cudaDeviceProp.warpSize",
    "cudaFuncGetAttributes": "CUDA's template overload for a kernel pointer",
    "cudaFuncSetAttribute": "CUDA's template overload for a kernel pointer",
    "cudaFuncSetCacheConfig": "CUDA's template overload for a kernel pointer",
    "cudaLaunchKernel": "CUDA's template overload for a kernel pointer",
    "cudaHostAlloc": "CUDA's template overload for a typed pointer",
    "cudaHostGetDevicePointer": "CUDA's template overload for a typed pointer",
    "cudaMallocPitch": "CUDA's template overload for a typed pointer",
    "cudaEventCreate": "CUDA's overload with flags",
}
# CUDA struct names whose HIP name is a typedef (`typedef struct _hipGraphicsResource
# hipGraphicsResource;`, HIP 5.2's hip_runtime_api.h): code writes CUDA's `struct cudaGraphicsResource *`
# (GPUJPEG), so the name is HIP's struct tag, which C++ also takes without `struct`.
STRUCT_TAGS = {"cudaGraphicsResource": "_hipGraphicsResource"}
# math_constants.h's names (CUDART_PI_F ...): a device header that cuda_runtime.h does not include;
# device code is shflx's own CUDA layer's, so the host pass leaves them to that header.
# __CUDACC__ (the driver table pairs it with __HIPCC__) is the compiler's macro, which the host pass
# defines as nvcc does (shflx_cuda_on_hip.h).
SKIP = re.compile(r"CUDART_\w+|__CUDACC__")
# Names HIPIFY's table maps that the HIP headers shflx is tested with lack (Debian bookworm's
# libamdhip64-dev 5.2.3; tests/test_cuda_on_hip.py compiles every mapped name against the installed
# HIP and finds them): declared unsupported, with the reason.
GAPS = {
    "cudaDevAttrMaxBlocksPerMultiprocessor": "hipDeviceAttributeMaxBlocksPerMultiprocessor",  # table: HIP 4.3.0
    "cudaErrorLossyQuery": "hipErrorLossyQuery",                                                # table: no version
    "cudaGraphNodeTypeConditional": "hipGraphNodeTypeConditional",                              # table: no version
}
# The driver API's (cuda.h) names with shflx's own definition: as the runtime's above.
DRIVER_OWN = {
    "cuDeviceGetAttribute": "CU_DEVICE_ATTRIBUTE_WARP_SIZE is 32, as cudaDeviceProp.warpSize",
}
# Driver API names HIPIFY's table maps that the HIP headers shflx is tested with lack (as GAPS; the
# JIT options are hiprtc.h's HIPRTC_JIT_* from HIP 6, which 5.2's hiprtc.h has not).
DRIVER_GAPS = {
    # table: HIP 4.3.0
    "CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR": "hipDeviceAttributeMaxBlocksPerMultiprocessor",
    "CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID": "hipDeviceAttributeMultiGpuBoardGroupId",  # table: HIP 4.3.0
    "CU_GRAPH_DEBUG_DOT_FLAGS_RUNTIME_TYPES": "hipGraphDebugDotFlagsRuntimeTypes",  # table: no version
    "CU_JIT_CACHE_MODE": "HIPRTC_JIT_CACHE_MODE",  # table: HIP 1.6.0
    "CU_JIT_ERROR_LOG_BUFFER": "HIPRTC_JIT_ERROR_LOG_BUFFER",  # table: HIP 1.6.0
    "CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES": "HIPRTC_JIT_ERROR_LOG_BUFFER_SIZE_BYTES",  # table: HIP 1.6.0
    "CU_JIT_FALLBACK_STRATEGY": "HIPRTC_JIT_FALLBACK_STRATEGY",  # table: HIP 1.6.0
    "CU_JIT_FAST_COMPILE": "HIPRTC_JIT_FAST_COMPILE",  # table: HIP 1.6.0
    "CU_JIT_GENERATE_DEBUG_INFO": "HIPRTC_JIT_GENERATE_DEBUG_INFO",  # table: HIP 1.6.0
    "CU_JIT_GENERATE_LINE_INFO": "HIPRTC_JIT_GENERATE_LINE_INFO",  # table: HIP 1.6.0
    "CU_JIT_INFO_LOG_BUFFER": "HIPRTC_JIT_INFO_LOG_BUFFER",  # table: HIP 1.6.0
    "CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES": "HIPRTC_JIT_INFO_LOG_BUFFER_SIZE_BYTES",  # table: HIP 1.6.0
    "CU_JIT_LOG_VERBOSE": "HIPRTC_JIT_LOG_VERBOSE",  # table: HIP 1.6.0
    "CU_JIT_MAX_REGISTERS": "HIPRTC_JIT_MAX_REGISTERS",  # table: HIP 1.6.0
    "CU_JIT_NEW_SM3X_OPT": "HIPRTC_JIT_NEW_SM3X_OPT",  # table: HIP 1.6.0
    "CU_JIT_NUM_OPTIONS": "HIPRTC_JIT_NUM_OPTIONS",  # table: HIP 1.6.0
    "CU_JIT_OPTIMIZATION_LEVEL": "HIPRTC_JIT_OPTIMIZATION_LEVEL",  # table: HIP 1.6.0
    "CU_JIT_TARGET": "HIPRTC_JIT_TARGET",  # table: HIP 1.6.0
    "CU_JIT_TARGET_FROM_CUCONTEXT": "HIPRTC_JIT_TARGET_FROM_HIPCONTEXT",  # table: HIP 1.6.0
    "CU_JIT_THREADS_PER_BLOCK": "HIPRTC_JIT_THREADS_PER_BLOCK",  # table: HIP 1.6.0
    "CU_JIT_WALL_TIME": "HIPRTC_JIT_WALL_TIME",  # table: HIP 1.6.0
    "cuGraphAddBatchMemOpNode": "hipGraphAddBatchMemOpNode",  # table: no version
    "cuGraphBatchMemOpNodeGetParams": "hipGraphBatchMemOpNodeGetParams",  # table: no version
    "cuGraphBatchMemOpNodeSetParams": "hipGraphBatchMemOpNodeSetParams",  # table: no version
    "cuGraphExecBatchMemOpNodeSetParams": "hipGraphExecBatchMemOpNodeSetParams",  # table: no version
    "cuTexRefGetArray": "hipTexRefGetArray",  # table: HIP 3.0.0
}


class Api(NamedTuple):
    """One of HIPIFY's tables and what shflx renders of it."""
    source: str                 # the markdown file in HIPIFY's docs/tables
    table: Path                 # the name table kept in the repository (columns COLUMNS)
    header: Path                # the header rendered from it
    includer: str               # the header of this directory that includes it
    own: dict[str, str]         # CUDA name -> why shflx defines it (shflx_cuda_runtime_own.h)
    gaps: dict[str, str]        # CUDA name -> the HIP name HIPIFY gives that the tested HIP lacks


RUNTIME = Api(SOURCE, TABLE, HEADER, "cuda_runtime.h", OWN, GAPS)
# <cuda.h>'s header comes after the runtime's (cuda.h of this directory includes cuda_runtime.h, as
# every .cu's host pass does): the names both tables have are the runtime header's.
DRIVER = Api("CUDA_Driver_API_functions_supported_by_HIP.md", HERE / "cuda_driver_names.tsv",
             HERE / "shflx_cuda_driver_names.h", "cuda.h", DRIVER_OWN, DRIVER_GAPS)
APIS = (RUNTIME, DRIVER)

# The oldest HIP shflx builds host code against (Debian bookworm's libamdhip64-dev, which CI
# installs): names HIP has had since then need no version test.
FLOOR = "5.2.0"


def read_markdown(path: Path) -> list[dict[str, str]]:
    """Every row of a runtime or driver table: name, kind (a function, or a 'name' of the data-types
    section: a type, an enumerator or a macro), HIP name, HIP added and removed versions."""
    rows, kind, seen = [], None, set()
    for line in path.read_text().splitlines():
        if line.startswith("## "):
            kind = "name" if "data types" in line.lower() else "function"
        elif line.startswith("|`"):
            cells = [c.strip().strip("`") for c in line.strip().strip("|").split("|")]
            if len(cells) != 11:
                raise SystemExit(f"{path}: a row with {len(cells)} cells, not 11: {line}")
            if SKIP.fullmatch(cells[0]) or cells[0] in seen:
                continue
            seen.add(cells[0])
            rows.append(dict(cuda=cells[0], kind=kind, hip=cells[5], hip_added=cells[6], hip_removed=cells[9]))
    return sorted(rows, key=lambda r: r["cuda"])


def write_table(rows: list[dict[str, str]], commit: str, api: Api = RUNTIME) -> str:
    head = [f"# From ROCm/HIPIFY docs/tables/{api.source} at commit {commit}",
            "# (generated by tools/cuda_on_hip.py; hip empty: no HIP equivalent)", "\t".join(COLUMNS)]
    return "\n".join(head + ["\t".join(r[c] for c in COLUMNS) for r in rows]) + "\n"


def read_table(text: str) -> tuple[str, list[dict[str, str]]]:
    lines = text.splitlines()
    source = lines[0].lstrip("# ")
    body = [ln for ln in lines if not ln.startswith("#")]
    return source, [dict(zip(COLUMNS, ln.split("\t"))) for ln in body[1:]]


def hip_version(v: str) -> int:
    """HIP_VERSION's encoding (hip/hip_version.h): major * 10000000 + minor * 100000 + patch."""
    major, minor, patch = (int(x) for x in (v.split(".") + ["0", "0"])[:3])
    return major * 10000000 + minor * 100000 + patch


def _unsupported(row: dict[str, str], why: str = "") -> str:
    macro = "__SHFLX_NO_FUNCTION" if row["kind"] == "function" else "__SHFLX_NO_NAME"
    return f'{macro}({row["cuda"]}, "{why}")'


def render_header(source: str, rows: list[dict[str, str]], api: Api = RUNTIME,
                  before: frozenset[str] = frozenset()) -> str:
    """The header: one #define per CUDA name HIP has (under the HIP versions that have it), one
    unavailable declaration per name it lacks; none for the names `before` (a header included
    earlier has them)."""
    out = [f"// Generated by tools/cuda_on_hip.py from the name table {api.table.name}; do not edit.",
           f"// {source}.", f"// Included by {api.includer} of this directory (the host pass of a .cu on HIP).",
           "#pragma once", "#pragma clang system_header"]
    groups: dict[tuple[int, int], list[dict[str, str]]] = {}
    for r in rows:
        if r["cuda"] in before:
            continue
        if r["hip"] and r["cuda"] in api.own:
            out.append(f'#define {r["cuda"]} __shflx_{r["cuda"]}')
        elif r["hip"] and r["cuda"] in STRUCT_TAGS:
            out.append(f'#define {r["cuda"]} {STRUCT_TAGS[r["cuda"]]}')
        elif r["cuda"] in api.gaps:
            out.append(_unsupported(r, f" (the HIP headers lack '{api.gaps[r['cuda']]}')"))
        elif r["hip"]:
            key = (hip_version(r["hip_added"]) if r["hip_added"] and hip_version(r["hip_added"]) > hip_version(FLOOR) else 0,
                   hip_version(r["hip_removed"]) if r["hip_removed"] else 0)
            groups.setdefault(key, []).append(r)
        else:
            out.append(_unsupported(r))
    for (added, removed), group in sorted(groups.items()):
        cond = " && ".join(c for c in (f"HIP_VERSION >= {added}" if added else "",
                                      f"HIP_VERSION < {removed}" if removed else "") if c)
        have = [f'#define {r["cuda"]} {r["hip"]}' for r in group]
        if not cond:
            out += have
            continue
        why = f" before HIP {group[0]['hip_added']}" if added else ""
        why += f"{' or' if added else ''} from HIP {group[0]['hip_removed']}" if removed else ""
        out += [f"#if {cond}", *have, "#else", *(_unsupported(r, why) for r in group), "#endif"]
    return "\n".join(out) + "\n"


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="what", required=True)
    t = sub.add_parser("tables", help="read HIPIFY's markdown tables into the name tables, then write the headers")
    t.add_argument("tables_dir", type=Path, help="HIPIFY's docs/tables directory")
    t.add_argument("--commit", required=True, help="the HIPIFY commit the tables are from")
    sub.add_parser("header", help="write the headers from the committed name tables")
    a = p.parse_args(argv)
    for api in APIS:
        if a.what == "tables":
            api.table.write_text(write_table(read_markdown(a.tables_dir / api.source), a.commit, api))
        api.header.write_text(render_header(*read_table(api.table.read_text()), api, earlier_names(api)))
    return 0


def earlier_names(api: Api) -> frozenset[str]:
    """The CUDA names of the tables whose headers come before `api`'s (APIS's order)."""
    earlier = APIS[:APIS.index(api)]
    return frozenset(r["cuda"] for e in earlier for r in read_table(e.table.read_text())[1])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
