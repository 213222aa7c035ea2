"""One small plan per AMD cross-lane primitive a target has: shared by tests/test_codegen.py (prove,
compile, check the assembly) and hw_tests/amd/test_primitives_hw.py (run on the GPU, compare
every lane with shflx.emulate).

Each Sample holds the plan JSON, regexes that some assembly line must match (LLVM may fold a DPP
mov into its consumer, so they ask for `_dpp` plus the modifier, not a mnemonic), and the proof
status to expect. A sample without a CUDA pattern gets its target from the emulator: the `map`
of the lanes it reads when that is a per-warp map (one map for both CUDA warps of a wave64),
else a deliberately wrong "xor 1" so that prove must refute it."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from shflx.amd.asm import dpp_ctrl_text
from shflx.emulate import Concrete, Multiset, Provenance, plan_fn, result
from shflx.isa import amd_target
from shflx.plan import Combine, Plan, load_plan

TARGETS = ("gfx90a", "gfx942", "gfx950", "gfx1030", "gfx1100", "gfx1200", "gfx1250")
UNREALIZED = "xor 1"           # the target given to plans that are no CUDA shuffle (must refute)

# Samples that fail because of a known shflx bug (tests mark them xfail(strict=True): once the
# bug is fixed they XPASS and fail, so the entry gets removed).
KNOWN_BUGS: dict[str, str] = {}


@dataclass(frozen=True)
class Sample:
    name: str
    plan: dict[str, Any]
    expect: tuple[str, ...]    # regexes; each must match one instruction line
    status: str                # "proved" | "refuted"

    def load(self) -> Plan:
        return load_plan(self.plan)


def _quad(*sel: int) -> int:
    return sum(s << (2 * k) for k, s in enumerate(sel))


def _dpp(src: str, ctrl: int, *, old: str | None = None, row_mask: int = 0xF, bank_mask: int = 0xF,
         bound_ctrl: int = 0, sid: str = "d") -> dict[str, Any]:
    return {"id": sid, "op": "update.dpp", "src": src, "old": old or src, "dpp_ctrl": ctrl,
            "row_mask": row_mask, "bank_mask": bank_mask, "bound_ctrl": bound_ctrl}


def _per_lane(wave: int, f: Callable[[int], int]) -> list[int]:
    return [f(i) for i in range(wave)]


def _nibbles(values: list[int]) -> int:
    return sum((v & 15) << (4 * k) for k, v in enumerate(values))


def derived_target(plan: Plan) -> str | None:
    """`map s0..s31` when the plan moves data inside each CUDA warp, the same way in both."""
    if any(isinstance(s, Combine) for s in plan.steps):
        return None
    prov = result(plan, Provenance(plan.wave))
    warp = prov[:32]
    if (warp < 0).any() or (warp >= 32).any():
        return None
    if plan.wave == 64 and not np.array_equal(prov[32:], warp + 32):
        return None
    return "map " + ",".join(str(int(s)) for s in warp)


def defined_lanes(plan: Plan) -> np.ndarray:
    """Lanes whose value the model fixes (no garbage, no open question): the ones to compare."""
    if plan_fn(plan) is None:
        prov = result(plan, Provenance(plan.wave))
        return (prov >= 0) | (prov == -1)          # a lane, or ZERO
    ms = result(plan, Multiset(plan.wave))
    return (ms[:, plan.wave + 1] == 0) & (ms[:, plan.wave + 2] == 0)


def emulated(plan: Plan, x: np.ndarray) -> np.ndarray:
    """The model's output for one input vector x (uint32, one value per lane)."""
    return result(plan, Concrete(plan.wave, plan_fn(plan), x=x.reshape(plan.wave, 1)))[:, 0]


def _sample(arch: str, wave: int, name: str, steps: list[dict[str, Any]], expect: tuple[str, ...],
            target: str | None = None) -> Sample:
    plan = {"arch": arch, "wave": wave, "target": target or UNREALIZED, "steps": steps,
            "result": steps[-1]["id"]}
    status = "proved"
    if target is None:
        derived = derived_target(load_plan(plan))
        plan["target"] = derived or UNREALIZED
        status = "proved" if derived else "refuted"
    return Sample(name, plan, expect, status)


def samples(arch: str, wave: int) -> list[Sample]:
    """Every primitive `arch` has, in wave `wave`, as one-plan-per-sample."""
    t = amd_target(arch)
    out: list[Sample] = []

    def add(name: str, steps: list[dict[str, Any]], *expect: str, target: str | None = None) -> None:
        out.append(_sample(arch, wave, name, steps, expect, target))

    def dpp(name: str, ctrl: int, target: str | None = None, **kw: Any) -> None:
        text = re.escape(dpp_ctrl_text(ctrl, t))
        extra = [rf"row_mask:{kw['row_mask']:#x}"] if "row_mask" in kw else []
        extra += ["bound_ctrl:1"] if kw.get("bound_ctrl") else []
        add(name, [_dpp("x", ctrl, **kw)], rf"_dpp\b.*{text}" + "".join(rf".*{e}" for e in extra),
            target=target)

    if t.has("dpp16"):
        dpp("dpp_quad_perm_xor1", _quad(1, 0, 3, 2), "xor 1")
        dpp("dpp_row_shr1", 0x111, "up 1 width 16")
        dpp("dpp_row_shr1_bound_ctrl", 0x111, bound_ctrl=1)
        dpp("dpp_row_ror4", 0x124)
        dpp("dpp_row_mirror", 0x140, "xor 15")
        dpp("dpp_row_half_mirror", 0x141, "xor 7")
        dpp("dpp_row_mask_bank_mask", _quad(1, 0, 3, 2), row_mask=0x5, bank_mask=0x3)
    if t.has("dpp_row_xmask"):
        dpp("dpp_row_xmask5", 0x165, "xor 5")
    if t.has("dpp_row_share") or t.has("dpp_row_newbcast"):
        dpp("dpp_row_share3" if t.has("dpp_row_share") else "dpp_row_newbcast3", 0x153, "idx 3 width 16")
    if t.has("dpp_row_bcast") and wave == 64:
        dpp("dpp_row_bcast15", 0x142, row_mask=0xA)
        dpp("dpp_row_bcast31", 0x143, row_mask=0xC)
    if t.has("dpp_wave_shift") and wave == 64:
        dpp("dpp_wave_shr1", 0x138)
        dpp("dpp_wave_rol1", 0x134)
    if t.has("dpp8"):
        sel = sum((7 - k) << (3 * k) for k in range(8))
        add("dpp8_reverse", [{"id": "d", "op": "mov.dpp8", "src": "x", "sel": sel}],
            r"_dpp\b.*dpp8:\[7,6,5,4,3,2,1,0\]", target="xor 7 width 8")
    if t.has("ds_swizzle"):
        # `llvm` is LLVM's printer spelling of the offset (AMDGPUInstPrinter::printSwizzle).
        def sw(name: str, offset: int, llvm: str, target: str | None = None) -> None:
            add(name, [{"id": "s", "op": "ds.swizzle", "src": "x", "offset": offset}],
                r"ds_swizzle_b32\b.*offset:" + re.escape(llvm), target=target)
        sw("swizzle_bitmask_xor1", 0x1F | (1 << 10), "swizzle(SWAP,1)", "xor 1")
        sw("swizzle_bitmask_bcast5", (5 << 5), "swizzle(BROADCAST,32,5)", "idx 5")
        sw("swizzle_quad", 0x8000 | _quad(3, 2, 1, 0), "swizzle(QUAD_PERM,3,2,1,0)", "xor 3 width 4")
        if t.has("ds_swizzle_fft_rotate"):
            sw("swizzle_fft", 0xE000 | 0x03, "swizzle(FFT,3)")
            sw("swizzle_rotate", 0xC000 | (3 << 5), "swizzle(ROTATE,0,3)")
            sw("swizzle_rotate_right", 0xC000 | (1 << 10) | (1 << 5), "swizzle(ROTATE,1,1)")
    if t.has("permlane16"):
        rev = [15 - k for k in range(16)]
        add("permlane16_reverse", [{"id": "p", "op": "permlane16", "src": "x", "old": "x",
                                    "sel_lo": _nibbles(rev[:8]), "sel_hi": _nibbles(rev[8:]),
                                    "fi": 0, "bound_ctrl": 0}], r"v_permlane16_b32\b", target="xor 15")
        add("permlanex16_same", [{"id": "p", "op": "permlanex16", "src": "x", "old": "x",
                                  "sel_lo": 0x76543210, "sel_hi": 0xFEDCBA98, "fi": 0, "bound_ctrl": 0}],
            r"v_permlanex16_b32\b", target="xor 16")
    if t.has("permlane64") and wave == 64:
        add("permlane64", [{"id": "p", "op": "permlane64", "src": "x"}], r"v_permlane64_b32\b")
    if t.has("permlane_var"):
        add("permlane16_var_reverse", [{"id": "p", "op": "permlane16.var", "src": "x", "old": "x",
                                        "sel": _per_lane(wave, lambda i: 15 - (i & 15)), "fi": 0,
                                        "bound_ctrl": 0}], r"v_permlane16_var_b32\b", target="xor 15")
        add("permlanex16_var_same", [{"id": "p", "op": "permlanex16.var", "src": "x", "old": "x",
                                      "sel": _per_lane(wave, lambda i: i & 15), "fi": 0, "bound_ctrl": 0}],
            r"v_permlanex16_var_b32\b", target="xor 16")
    if t.has("permlane_swap") and wave == 64:
        for op in ("permlane16.swap", "permlane32.swap"):
            for take in (0, 1):
                add(f"{op.replace('.', '_')}_take{take}",
                    [{"id": "p", "op": op, "vdst_old": "x", "src0_old": "x", "fi": 0, "bound_ctrl": 0,
                      "take": take}], rf"v_{op.replace('.', '_')}_b32")
    if t.has("permlane_group"):
        # gfx1250: src, sel, width (LLVM prints both scalars as inline constants); one CUDA shuffle each
        for kind, sel, width, pattern in (("bcast", 5, 8, "idx 5 width 8"), ("up", 3, 16, "up 3 width 16"),
                                          ("down", 1, 4, "down 1 width 4"), ("xor", 9, 16, "xor 9 width 16")):
            add(f"permlane_{kind}{sel}_width{width}",
                [{"id": "p", "op": f"permlane.{kind}", "src": "x", "sel": sel, "width": width}],
                rf"v_permlane_{kind}_b32\b.*, {sel}, {width}$", target=pattern)
    if t.has("readlane"):
        add("readlane5", [{"id": "r", "op": "readlane", "src": "x", "lane": 5}], r"v_readlane_b32\b.*, 5$")
        add("readfirstlane", [{"id": "r", "op": "readfirstlane", "src": "x"}], r"v_readfirstlane_b32\b")
        add("writelane7", [{"id": "r", "op": "readlane", "src": "x", "lane": 3},
                           {"id": "w", "op": "writelane", "value": "r", "lane": 7, "old": "x"}],
            r"v_readlane_b32\b.*, 3$", r"v_writelane_b32\b.*, 7$")
    if t.has("ds_permute"):
        add("bpermute_xor3", [{"id": "b", "op": "ds.bpermute", "src": "x",
                               "index": _per_lane(wave, lambda i: i ^ 3)}], r"ds_bpermute_b32\b", target="xor 3")
        add("bpermute_rotate16", [{"id": "b", "op": "ds.bpermute", "src": "x",
                                   "index": _per_lane(wave, lambda i: (i + 16) % wave)}], r"ds_bpermute_b32\b")
        add("permute_xor3", [{"id": "b", "op": "ds.permute", "src": "x",
                              "index": _per_lane(wave, lambda i: i ^ 3)}], r"ds_permute_b32\b", target="xor 3")
    if t.has("ds_bpermute_fi"):
        add("bpermute_fi_xor3", [{"id": "b", "op": "ds.bpermute.fi", "src": "x",
                                  "index": _per_lane(wave, lambda i: i ^ 3)}], r"ds_bpermute_fi_b32\b",
            target="xor 3")
    if t.has("dpp16"):
        even = sum(1 << i for i in range(0, wave, 2))
        add("select_even", [_dpp("x", _quad(1, 0, 3, 2)),
                            {"id": "s", "op": "select", "a": "d", "b": "x", "lanes": even}],
            r"_dpp\b.*quad_perm:\[1,0,3,2\]")
        add("reduce_add_width4", [_dpp("x", _quad(1, 0, 3, 2), sid="t1"),
                                  {"id": "c1", "op": "combine", "fn": "add", "a": "x", "b": "t1"},
                                  _dpp("c1", _quad(2, 3, 0, 1), sid="t2"),
                                  {"id": "c2", "op": "combine", "fn": "add", "a": "c1", "b": "t2"}],
            r"_dpp\b.*quad_perm:\[1,0,3,2\]", r"_dpp\b.*quad_perm:\[2,3,0,1\]", target="reduce add width 4")
    return out


def all_cases() -> list[tuple[str, int, Sample]]:
    return [(arch, wave, s) for arch in TARGETS for wave in amd_target(arch).waves
            for s in samples(arch, wave)]
