"""gfx1250 v_permlane_bcast/up/down/xor_b32: lanes in groups of a width, moved inside the group.

`llvm.amdgcn.permlane.<kind>(i32 src, i32 src1, i32 src2)` is `v_permlane_<kind>_b32 vdst, vsrc,
ssrc1, ssrc2`: src1 (`sel`) and src2 (`width`) are SGPRs (llvm/llvm-project
llvm/lib/Target/AMDGPU/AMDGPURegBankLegalizeRules.cpp, PR #195583; the asm LLVM 22.1 prints).
No ISA text for gfx1250 was available to shflx. The lane rules come from the comments of HIP's
`__shfl*` paths that call these builtins (ROCm clr hipamd/include/hip/amd_detail/
amd_warp_functions.h, a version newer than the ROCm/rocm-systems one stored here):
  bcast  lane reads group base + (sel[5:0] & (width - 1));
  up     the lane's own value where its position in the group is below sel, else lane - sel
         ("clamps lane_delta to the group width": sel >= width keeps every lane);
  down   the lane's own value where position + sel reaches the width, else lane + sel;
  xor    lane ^ sel, the lane's own value "when that leaves the lane group" and when sel >= the
         wave size, "the same select as" HIP's fallback, which keeps the lane only when lane ^ sel
         lies ABOVE its group.
The two xor readings differ where lane ^ sel lies in a lower group: such lanes are OPEN (an open
question, DESIGN decision 4). Only what every reading agrees on is modeled: widths 1, 2, 4, ..., 32
(the wave), sel below 64 (bcast: any 32-bit sel, its bits [5:0] read); a source lane that is
inactive is OPEN too (nothing says what it reads). Lanes keeping their value read their own."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..lanes import OPEN, UNDEF
from .context import StepContext
from .gather import Gather

XOR_BELOW_GROUP = "permlane.xor into a lower lane group (gfx1250: sources disagree)"
INACTIVE_SOURCE = "permlane.bcast/up/down/xor reading an inactive lane (gfx1250: undocumented)"


def group_source(kind: str, sel: int, width: int, lane: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(source lane, settled) per lane for kind in bcast / up / down / xor; `settled` is False where
    the readings of the sources differ (xor into a lower group)."""
    base = lane & ~(width - 1)
    pos = lane & (width - 1)
    settled = np.ones(lane.shape, bool)
    if kind == "bcast":
        src = base + (sel & 63 & (width - 1))
    elif kind == "up":
        src = np.where(pos >= sel, lane - sel, lane)
    elif kind == "down":
        src = np.where(pos + sel < width, lane + sel, lane)
    else:
        partner = lane ^ sel
        src = np.where((partner & ~(width - 1)) == base, partner, lane)
        settled = ~((partner & ~(width - 1)) < base)
    return src, settled


def permlane_group(step: Any, ctx: StepContext) -> Gather:
    kind = step.op.split(".")[1]
    ctx.require("permlane_group", f"v_permlane_{kind}_b32")
    if ctx.wave != 32:
        raise ctx.illegal(f"v_permlane_{kind}_b32 is modeled in wave32 only (gfx1250 runs wave32)")
    width = step.width
    if width not in (1, 2, 4, 8, 16, 32):
        raise ctx.illegal(f"width {width} is not modeled (lane groups of 1, 2, 4, 8, 16 or 32 lanes)")
    if kind == "bcast":
        ctx.check_range("sel", step.sel, 32)
    elif not 0 <= step.sel < 64:
        raise ctx.illegal(f"sel {step.sel} is not modeled (0..63)")
    lanes = ctx.lanes
    src, settled = group_source(kind, step.sel, width, lanes)
    inactive = ~ctx.exec[np.clip(src, 0, ctx.wave - 1)] & (src != lanes)
    operand = np.where(settled & ~inactive, 0, OPEN)
    operand = np.where(ctx.exec, operand, UNDEF)          # no `old`: an inactive lane's VGPR is unknown
    questions = set()
    if (ctx.exec & ~settled).any():
        questions.add(XOR_BELOW_GROUP)
    if (ctx.exec & settled & inactive).any():
        questions.add(INACTIVE_SOURCE)
    return Gather(operand, np.where(operand == 0, src, lanes), frozenset(questions))
