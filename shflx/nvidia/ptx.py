"""The cheapest PTX for a shuffle pattern on NVIDIA: one `shfl.sync` with immediate operands when
any uniform (mode, b, c) realizes the map, else `shfl.sync.idx` with a per-lane b from a table.

All 131,072 uniform configurations collapse to 4,236 distinct 32-lane maps (spec/cuda_ptx_shfl.md
§1.5); the table is built once with numpy and keeps, per map, the configuration with CUDA's own
c encoding when one exists (immediate b costs 24 cycles against 26 for a register b on H100, §7)."""
from __future__ import annotations

import numpy as np

from ..cuda import uniform_table
from ..errors import UsageError
from ..isa import known_nvidia_targets, nvidia_target
from ..pattern import Collective, Shuffle, format_pattern, parse_pattern

PTX_VERSION = "7.8"      # at least this (the H100's); newer targets need newer PTX ISA


def ptx_version_for(target_min: str) -> str:
    """PTX_VERSION, or the target's own minimum `target_min` where that is newer (sm_100a needs
    8.6, sm_120 8.7: `ptxas` rejects `.version 7.8` with them). The caller reads the minimum off
    LLVM's NVPTX backend (shflx.codegen.nvptx.ptx_version), an edge this core module does not import."""
    return max(PTX_VERSION, target_min, key=lambda v: tuple(int(x) for x in v.split(".")))


def _per_lane_b(src: np.ndarray) -> list[str] | None:
    """A per-lane b from one ALU op on %laneid when one fits (b[4:0] wraps for free)."""
    lanes = np.arange(32)
    for k in range(1, 32):
        if np.array_equal(src, (lanes + k) & 31):
            return [f"  add.u32 %r4, %r2, {k};"]
    for k in range(3, 32, 2):
        if np.array_equal(src, (lanes * k) & 31):
            return [f"  mul.lo.u32 %r4, %r2, {k};"]
    return None


def _target(sm: str) -> None:
    if not sm.startswith("sm_"):
        raise UsageError(f"unknown NVIDIA target '{sm}'; known: {', '.join(known_nvidia_targets())}")
    nvidia_target(sm)


def ptx_for_pattern(pattern: str | Shuffle, sm: str, name: str = "shflx_shuffle",
                    target_min_version: str = PTX_VERSION) -> str:
    """A PTX module with `.func (.param .b32 out) name(.param .b32 x)` implementing the pattern;
    `target_min_version`: the oldest PTX ISA the target accepts (see ptx_version_for)."""
    _target(sm)
    p = parse_pattern(pattern) if isinstance(pattern, str) else pattern
    if isinstance(p, Collective):
        raise UsageError("reductions and scans are lowered by the compile pipeline, not `lower --ptx`")
    warp = p.warp_map()
    mask = p.member_mask
    if p.operands is not None:
        ops = p.operands
        body = [f"  shfl.sync.{ops.mode}.b32 %r1, %r0, {ops.b & 31}, {ops.c & 0x1F1F:#x}, {mask:#x};"]
        how = "one shfl.sync, immediate operands"
    else:
        hit = uniform_table().get(np.asarray(warp.src, np.int8).tobytes())
        if hit is not None:
            mode, b, c = hit
            body = [f"  shfl.sync.{mode}.b32 %r1, %r0, {b}, {c:#x}, {mask:#x};"]
            how = "one shfl.sync, immediate operands (uniform-configuration table)"
        else:
            alu = _per_lane_b(np.asarray(warp.src))
            fetch = alu or ["  mov.u32 %r3, shflx_src;", "  mad.lo.u32 %r3, %r2, 4, %r3;",
                            "  ld.const.u32 %r4, [%r3];"]
            body = ["  mov.u32 %r2, %laneid;", *fetch, f"  shfl.sync.idx.b32 %r1, %r0, %r4, 0x1f, {mask:#x};"]
            how = ("shfl.sync.idx with b = one ALU op on %laneid" if alu else
                   "shfl.sync.idx with a per-lane source lane from a .const table")
    table = ""
    if p.operands is None and "shflx_src" in "\n".join(body):
        table = f".const .align 4 .u32 shflx_src[32] = {{{', '.join(str(int(v)) for v in warp.src)}}};\n"
    return (f"// shflx: '{format_pattern(p)}' for {sm}: {how}\n"
            f".version {ptx_version_for(target_min_version)}\n.target {sm}\n.address_size 64\n\n{table}"
            f".visible .func (.param .b32 out) {name}(.param .b32 x)\n{{\n"
            f"  .reg .b32 %r<5>;\n  ld.param.b32 %r0, [x];\n" + "\n".join(body) +
            "\n  st.param.b32 [out], %r1;\n  ret;\n}\n")
