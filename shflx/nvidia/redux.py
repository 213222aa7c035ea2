"""Integer (and sm_100a f32 min/max) warp reductions written as shuffle chains -> one redux.sync.

Why: a 5-step butterfly or down-tree costs 5 x (SHFL + ALU) on the critical path (about 140 cycles
on H100, spec/cuda_ptx_shfl.md §7) against one REDUX.SYNC (44 cycles). The rewrite is made only
when shflx.chains.shape.classify proved, with the multiset semantics, that every live lane of the
chain holds the whole-warp reduction (a numpy replay on random values double-checks it); redux.sync
gives every lane of the full member mask that same value.

Instruction facts (PTX ISA, "Parallel Synchronization and Communication Instructions: redux.sync";
spec/cuda_ptx_shfl.md §5.1):
  - `.add/.min/.max` with `.u32/.s32`, `.and/.or/.xor` with `.b32`: PTX ISA 7.0, sm_80+ (isa feature
    redux_sync_int); `.add` wraps to 32 bits like add.s32/add.u32.
  - `.min/.max.f32` (no .abs, no .NaN: NaN inputs are ignored, +0.0 > -0.0): PTX ISA 8.6, sm_100a
    (isa feature redux_sync_f32_minmax); no f32 add: float sums are never rewritten (and would need
    re-association, DESIGN decision 5)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..combine import FNS
from ..cuda import shuffle_values
from ..isa import NvidiaTarget
from ..lanes import CUDA_WARP, mask_to_lanes
from ..pattern import Collective
from .ptxir import Instruction, Label
from .sites import TID_NOTE, Chain

# combine fn -> (redux op, redux type, isa feature, minimum PTX ISA version)
_FORMS = {
    "add": ("add", None, "redux_sync_int", (7, 0)),
    "smin": ("min", "s32", "redux_sync_int", (7, 0)), "smax": ("max", "s32", "redux_sync_int", (7, 0)),
    "umin": ("min", "u32", "redux_sync_int", (7, 0)), "umax": ("max", "u32", "redux_sync_int", (7, 0)),
    "and": ("and", "b32", "redux_sync_int", (7, 0)), "or": ("or", "b32", "redux_sync_int", (7, 0)),
    "xor": ("xor", "b32", "redux_sync_int", (7, 0)),
    "fmin": ("min", "f32", "redux_sync_f32_minmax", (8, 6)),
    "fmax": ("max", "f32", "redux_sync_f32_minmax", (8, 6)),
}
_NO_FORM = {
    "fadd": "float add: redux.sync has no .f32 add, and a re-associated float sum is not bit-identical",
    "fmul": "float mul: redux.sync has no mul",
    "mul": "integer mul: redux.sync has no mul",
}


@dataclass
class Decision:
    """What happens to one chain: the redux.sync opcode to emit, or why the chain stays."""

    opcode: str | None
    reason: str


def decide(chain: Chain, targets: list[NvidiaTarget], version: tuple[int, int]) -> Decision:
    """The redux.sync form for a PTX chain on every target in `targets`, or why there is none."""
    if chain.reason is not None:
        return Decision(None, chain.reason)
    if guarded(chain) and any(ins.pred is not None for ins in chain.instructions()):
        return Decision(None, "the live lanes were read off threadIdx.x and the chain is already "
                              "predicated: no room for the block-shape guard")
    dec = decide_collective(chain, chain.collective, chain.ptx_type == "s32", targets, version,
                            chain.live_why)
    if dec.opcode and guarded(chain):
        return Decision(dec.opcode, f"{dec.reason}; {GUARD_NOTE}")
    return dec


def decide_collective(chain: Any, coll: Collective | None, signed: bool, targets: list[NvidiaTarget],
                      version: tuple[int, int], live_why: str) -> Decision:
    """The redux.sync form for a chain (PTX or LLVM IR: it needs .fn, .steps and .live) that
    computes `coll` on its live lanes, or why there is none. `signed` picks .s32 for add."""
    if coll is None or coll.kind != "reduce" or coll.group_bits != CUDA_WARP - 1:
        what = "no collective" if coll is None else "a scan" if coll.kind == "scan" else \
            f"a strided reduction over lane bits {coll.bits:#x}" if coll.bits else f"a width-{coll.width} reduction"
        return Decision(None, f"computes {what}; redux.sync reduces whole 32-lane warps only")
    if chain.fn in _NO_FORM:
        return Decision(None, _NO_FORM[chain.fn])
    op, typ, feature, need = _FORMS[chain.fn]
    typ = typ or ("s32" if signed else "u32")
    lacking = [t.name for t in targets if not t.has(feature)]
    if lacking:
        return Decision(None, f"redux.sync.{op}.{typ} is not available on {', '.join(lacking)} "
                              f"(needs {feature.replace('_', ' ')})")
    if version < need:
        return Decision(None, f"redux.sync.{op}.{typ} needs PTX ISA {need[0]}.{need[1]}; "
                              f"the module is .version {version[0]}.{version[1]}")
    if not _replay_agrees(chain):
        return Decision(None, "numpy replay disagrees with the multiset proof (not rewritten; a shflx bug)")
    return Decision(f"redux.sync.{op}.{typ}", f"proved: the live lanes ({live_why}) hold the "
                                               f"whole-warp {chain.fn} reduction (multiset semantics)")


def _replay_agrees(chain: Any, trials: int = 64) -> bool:
    """Run the chain as CUDA would (shfl.sync model + the combine) on random words; every live lane
    must equal the reduction of all 32 inputs."""
    f = FNS[chain.fn]
    rng = np.random.default_rng(0)
    live = mask_to_lanes(chain.live, CUDA_WARP)
    for _ in range(trials):
        x = rng.integers(0, 1 << 32, CUDA_WARP, dtype=np.uint64).astype(np.uint32)
        if f.is_float:
            x = rng.standard_normal(CUDA_WARP).astype(np.float32).view(np.uint32)
        v = x.copy()
        for step in chain.steps:
            moved = shuffle_values(v, step.operands.mode, step.operands.b, step.operands.c).astype(np.uint32)
            combined = f.apply(v, moved)
            v = np.where(mask_to_lanes(step.guard, CUDA_WARP), combined, v).astype(np.uint32)
        total = x[:1].copy()
        for k in range(1, CUDA_WARP):
            total = f.apply(total, x[k:k + 1])
        if not np.array_equal(v[live], np.repeat(total, live.sum())):
            return False
    return True


GUARD_NOTE = ("the live lanes were read off threadIdx.x, so redux.sync runs only when the block shape "
              "makes lane == threadIdx.x % 32 (blockDim.x % 32 == 0, or blockDim.y == blockDim.z == 1; "
              "a uniform check), and the chain as written otherwise")
# The block-shape guard, computed once per function: (opcode, operands) over the registers nx, mx,
# ny, nz and predicates px, py, pg (pg: lane == threadIdx.x % 32 for every thread).
GUARD_CODE = (("mov.u32", "nx %ntid.x"), ("and.b32", "mx nx 31"), ("setp.eq.u32", "px mx 0"),
              ("mov.u32", "ny %ntid.y"), ("mov.u32", "nz %ntid.z"), ("setp.eq.u32", "py ny 1"),
              ("setp.eq.and.u32", "pg nz 1 py"), ("or.pred", "pg pg px"))
GUARD_ALU = len(GUARD_CODE)     # its cost in ALU ops, charged to each guarded chain


def guarded(chain: Chain) -> bool:
    """Whether the chain's proof took the lane as threadIdx.x % 32 (sites.TID_NOTE): then the
    rewrite must keep the chain for block shapes where that is false."""
    return TID_NOTE in chain.notes


def apply(chain: Chain, opcode: str) -> Instruction:
    """Replace the chain by one redux.sync writing the chain's result register where the last
    combine was; the shuffles, the other combines and the moves between them go. A `guarded`
    chain stays, predicated off when the block-shape guard holds, with redux.sync under it."""
    fn = chain.function
    if guarded(chain):
        g = _block_shape_guard(fn)
        for ins in chain.instructions():
            ins.pred, ins.neg = g, True
        red = Instruction.new(opcode, [chain.result, chain.input, "0xffffffff"], pred=g)
        fn.insert_after(chain.combines[-1], [red])
        return red
    red = Instruction.new(opcode, [chain.result, chain.input, "0xffffffff"])
    fn.replace(chain.combines[-1], [red])
    for ins in chain.instructions():
        if ins is not chain.combines[-1]:
            fn.remove(ins)
    return red


def _block_shape_guard(fn: Any) -> str:
    """A predicate register, set once at the top of `fn`, true when every thread's lane is
    threadIdx.x % 32: blockDim.x % 32 == 0, or a 1-D block (warps are runs of 32 linear thread
    ids, linear id = x + blockDim.x * (y + blockDim.y * z))."""
    have = getattr(fn, "_shflx_guard", None)
    if have is not None:
        return have
    regs = {r: fn.new_reg(".b32") for r in ("nx", "mx", "ny", "nz")}
    regs |= {p: fn.new_reg(".pred") for p in ("px", "py", "pg")}
    code = [Instruction.new(op, [regs.get(a, a) for a in args.split()]) for op, args in GUARD_CODE]
    first = next(k for k, st in enumerate(fn.body) if isinstance(st, (Instruction, Label)))
    for ins in code:
        ins.lead = "\n\t"
    fn.insert(first, code)
    fn._shflx_guard = regs["pg"]        # the same guard serves every chain of the function
    return regs["pg"]
