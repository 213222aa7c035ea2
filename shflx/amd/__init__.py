"""AMD cross-lane primitives: per-target legality, lane semantics (numpy and Z3), asm and IR.

`SEMANTICS[op](step, ctx) -> Gather` is the one entry point the emulator and the prover use; each
primitive family lives in its own module (spec/amd_crosslane.md section in its docstring)."""
from __future__ import annotations

from typing import Callable

from . import dpp, permlane, permute, scalar, swizzle
from .context import StepContext
from .gather import Gather

SEMANTICS: dict[str, Callable[..., Gather]] = {
    "update.dpp": dpp.update_dpp,
    "mov.dpp8": dpp.mov_dpp8,
    "ds.swizzle": swizzle.ds_swizzle,
    "permlane16": permlane.permlane16,
    "permlanex16": permlane.permlane16,
    "permlane16.var": permlane.permlane_var,
    "permlanex16.var": permlane.permlane_var,
    "permlane64": permlane.permlane64,
    "permlane16.swap": permlane.permlane_swap,
    "permlane32.swap": permlane.permlane_swap,
    "readlane": scalar.readlane,
    "readfirstlane": scalar.readfirstlane,
    "writelane": scalar.writelane,
    "ds.bpermute": permute.ds_bpermute,
    "ds.bpermute.fi": permute.ds_bpermute_fi,
    "ds.permute": permute.ds_permute,
    "select": scalar.select,
}

__all__ = ["SEMANTICS", "StepContext", "Gather"]
