"""The steps of a plan: one frozen dataclass per AMD cross-lane step (DESIGN.md "Plan JSON").

Its fields are the JSON keys and, in order, the operands of the LLVM intrinsic it is emitted as,
so (de)serialization is generic. Hardware bits keep their raw ISA meaning (bound_ctrl = the BC
bit, fi = the FI bit; spec/amd_crosslane.md §3.5). `exec` (an active-lane bitmask, default all
lanes) and `asm` are accepted on every step. Apart from `shflx.plan` so that the emitters
(`shflx.amd`) read steps without importing the Plan, whose `to_llvm`/`to_hip`/`to_asm` call them."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

Ref = str
SPECIAL_REFS = ("x", "identity", "undef", "zero")
COMBINE_FNS = ("add", "mul", "and", "or", "xor", "umin", "umax", "smin", "smax",
               "fadd", "fmul", "fmin", "fmax")


@dataclass(frozen=True)
class Step:
    op: ClassVar[str] = ""
    refs: ClassVar[tuple[str, ...]] = ()          # fields that name other values
    lane_lists: ClassVar[tuple[str, ...]] = ()    # per-lane integer lists (length = wave)
    id: str

    def inputs(self) -> tuple[Ref, ...]:
        return tuple(getattr(self, r) for r in self.refs if getattr(self, r) is not None)


def _opt(default: Any = None) -> Any:
    return field(default=default, kw_only=True)


@dataclass(frozen=True)
class UpdateDpp(Step):
    op: ClassVar[str] = "update.dpp"
    refs: ClassVar[tuple[str, ...]] = ("old", "src")
    src: Ref
    old: Ref
    dpp_ctrl: int
    row_mask: int
    bank_mask: int
    bound_ctrl: int
    fi: int = _opt(0)
    exec: int | None = _opt()
    asm: str | None = _opt()


@dataclass(frozen=True)
class MovDpp8(Step):
    op: ClassVar[str] = "mov.dpp8"
    refs: ClassVar[tuple[str, ...]] = ("src",)
    src: Ref
    sel: int
    fi: int = _opt(0)
    exec: int | None = _opt()
    asm: str | None = _opt()


@dataclass(frozen=True)
class DsSwizzle(Step):
    op: ClassVar[str] = "ds.swizzle"
    refs: ClassVar[tuple[str, ...]] = ("src",)
    src: Ref
    offset: int
    exec: int | None = _opt()
    asm: str | None = _opt()


@dataclass(frozen=True)
class Permlane16(Step):
    op: ClassVar[str] = "permlane16"
    refs: ClassVar[tuple[str, ...]] = ("old", "src")
    src: Ref
    old: Ref
    sel_lo: int
    sel_hi: int
    fi: int
    bound_ctrl: int
    exec: int | None = _opt()
    asm: str | None = _opt()


@dataclass(frozen=True)
class Permlanex16(Permlane16):
    op: ClassVar[str] = "permlanex16"


@dataclass(frozen=True)
class Permlane64(Step):
    op: ClassVar[str] = "permlane64"
    refs: ClassVar[tuple[str, ...]] = ("src",)
    src: Ref
    exec: int | None = _opt()
    asm: str | None = _opt()


@dataclass(frozen=True)
class Permlane16Var(Step):
    op: ClassVar[str] = "permlane16.var"
    refs: ClassVar[tuple[str, ...]] = ("old", "src")
    lane_lists: ClassVar[tuple[str, ...]] = ("sel",)
    src: Ref
    old: Ref
    sel: tuple[int, ...]
    fi: int
    bound_ctrl: int
    exec: int | None = _opt()
    asm: str | None = _opt()


@dataclass(frozen=True)
class Permlanex16Var(Permlane16Var):
    op: ClassVar[str] = "permlanex16.var"


@dataclass(frozen=True)
class Permlane16Swap(Step):
    """v_permlane16_swap: both operands are rewritten; `take` picks which result this step names
    (0: the new first operand vdst, 1: the new src0), as the intrinsic's {i32, i32} result."""

    op: ClassVar[str] = "permlane16.swap"
    refs: ClassVar[tuple[str, ...]] = ("vdst_old", "src0_old")
    vdst_old: Ref
    src0_old: Ref
    fi: int
    bound_ctrl: int
    take: int
    exec: int | None = _opt()
    asm: str | None = _opt()

    @property
    def instruction(self) -> tuple:
        """What identifies the one swap instruction behind both `take` halves (emitted and costed once)."""
        return (self.op, self.vdst_old, self.src0_old, self.fi, self.bound_ctrl)


@dataclass(frozen=True)
class Permlane32Swap(Permlane16Swap):
    op: ClassVar[str] = "permlane32.swap"


@dataclass(frozen=True)
class PermlaneBcast(Step):
    """gfx1250 v_permlane_bcast_b32 (and _up, _down, _xor below): lanes in groups of `width` (an
    SGPR); `sel` (an SGPR) is the lane read in the group, the distance (up, down) or the xor mask."""

    op: ClassVar[str] = "permlane.bcast"
    refs: ClassVar[tuple[str, ...]] = ("src",)
    src: Ref
    sel: int
    width: int
    exec: int | None = _opt()
    asm: str | None = _opt()


@dataclass(frozen=True)
class PermlaneUp(PermlaneBcast):
    op: ClassVar[str] = "permlane.up"


@dataclass(frozen=True)
class PermlaneDown(PermlaneBcast):
    op: ClassVar[str] = "permlane.down"


@dataclass(frozen=True)
class PermlaneXor(PermlaneBcast):
    op: ClassVar[str] = "permlane.xor"


@dataclass(frozen=True)
class Readlane(Step):
    op: ClassVar[str] = "readlane"
    refs: ClassVar[tuple[str, ...]] = ("src",)
    src: Ref
    lane: int
    exec: int | None = _opt()
    asm: str | None = _opt()


@dataclass(frozen=True)
class Readfirstlane(Step):
    op: ClassVar[str] = "readfirstlane"
    refs: ClassVar[tuple[str, ...]] = ("src",)
    src: Ref
    exec: int | None = _opt()
    asm: str | None = _opt()


@dataclass(frozen=True)
class Writelane(Step):
    op: ClassVar[str] = "writelane"
    refs: ClassVar[tuple[str, ...]] = ("value", "old")
    value: Ref
    lane: int
    old: Ref
    exec: int | None = _opt()
    asm: str | None = _opt()


@dataclass(frozen=True)
class DsBpermute(Step):
    """Gather: lane i reads lane index[i] (the byte address emitted is index << 2)."""

    op: ClassVar[str] = "ds.bpermute"
    refs: ClassVar[tuple[str, ...]] = ("src", "old")
    lane_lists: ClassVar[tuple[str, ...]] = ("index",)
    src: Ref
    index: tuple[int, ...]
    old: Ref | None = _opt()
    exec: int | None = _opt()
    asm: str | None = _opt()


@dataclass(frozen=True)
class DsBpermuteFi(DsBpermute):
    op: ClassVar[str] = "ds.bpermute.fi"


@dataclass(frozen=True)
class DsPermute(DsBpermute):
    """Scatter: lane i sends its value to lane index[i]."""

    op: ClassVar[str] = "ds.permute"


@dataclass(frozen=True)
class Select(Step):
    op: ClassVar[str] = "select"
    refs: ClassVar[tuple[str, ...]] = ("a", "b", "old")
    a: Ref
    b: Ref
    lanes: int
    old: Ref | None = _opt()
    exec: int | None = _opt()
    asm: str | None = _opt()


@dataclass(frozen=True)
class Combine(Step):
    op: ClassVar[str] = "combine"
    refs: ClassVar[tuple[str, ...]] = ("a", "b", "old")
    fn: str
    a: Ref
    b: Ref
    old: Ref | None = _opt()
    exec: int | None = _opt()
    asm: str | None = _opt()


STEP_TYPES: dict[str, type[Step]] = {t.op: t for t in (
    UpdateDpp, MovDpp8, DsSwizzle, Permlane16, Permlanex16, Permlane64, Permlane16Var,
    Permlanex16Var, Permlane16Swap, Permlane32Swap, PermlaneBcast, PermlaneUp, PermlaneDown, PermlaneXor,
    Readlane, Readfirstlane, Writelane,
    DsBpermute, DsBpermuteFi, DsPermute, Select, Combine)}


class PlanLike(Protocol):
    """What an emitter reads of a `shflx.plan.Plan` (typing only)."""

    @property
    def arch(self) -> str: ...
    @property
    def wave(self) -> int: ...
    @property
    def target(self) -> str: ...
    @property
    def steps(self) -> tuple[Step, ...]: ...
    @property
    def result(self) -> Ref: ...
    @property
    def cost(self) -> float: ...
    @property
    def proof(self) -> dict | None: ...
