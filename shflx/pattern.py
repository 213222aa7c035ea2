"""Pattern text (DESIGN.md contracts): what a lowering must compute, parsed and printed.

  KIND ARG [width W]        KIND in idx | up | down | xor: the CUDA intrinsic (width default 32)
  shfl.MODE b=B c=C         raw PTX operands, MODE in idx | up | down | bfly
  map s0,s1,...,s31         an explicit 32-lane source map
  reduce OP [width W]       every lane: OP over its width-W segment
  reduce OP bits B          every lane: OP over the lanes that differ from it only in lane bits B
  scan OP [width W] [exclusive]
Shuffles may end in `mask M` (the CUDA member mask; DESIGN decision 3); shuffles, reductions and
scans in `lanes M` (the lanes whose result is used: only those must be right). Parsing is pure: errors carry the column."""
from __future__ import annotations

import re
from dataclasses import dataclass, replace

import numpy as np

from .combine import PATTERN_OPS
from .cuda import FULL_MASK, MODES, ShflOperands, intrinsic_operands
from .errors import InputError
from .lanes import CUDA_WARP, LaneMap, lift_to_wave, mask_to_lanes

KINDS = {"idx": "__shfl_sync", "up": "__shfl_up_sync", "down": "__shfl_down_sync", "xor": "__shfl_xor_sync"}
COLLECTIVE_OPS = ("add", "min", "max", "and", "or", "xor", "fadd", "fmin", "fmax", "umin", "umax", "mul", "fmul")


@dataclass(frozen=True)
class Shuffle:
    """A data-movement target. `kind`/`arg`/`width` keep the CUDA spelling when there is one."""

    operands: ShflOperands | None        # None for an explicit map
    explicit: tuple[int, ...] | None = None
    kind: str | None = None              # idx/up/down/xor, or None for shfl.* and map
    arg: int | None = None
    width: int | None = None
    mask: int = FULL_MASK                # member mask of an explicit map (else in operands)
    live: int = FULL_MASK                # lanes whose result is used (ir.demand): the others are don't-care

    @property
    def member_mask(self) -> int:
        return self.operands.member_mask if self.operands else self.mask

    def warp_map(self) -> LaneMap:
        """32-lane map with the care-set of DESIGN decision 3."""
        live = mask_to_lanes(self.live, CUDA_WARP)
        if self.operands is not None:
            m = self.operands.lane_map()
            return LaneMap(m.src, m.care & live)
        src = np.asarray(self.explicit)
        members = mask_to_lanes(self.mask, CUDA_WARP)
        return LaneMap(src, members & members[src] & live)

    def lane_map(self, wave: int) -> LaneMap:
        return lift_to_wave(self.warp_map(), wave)


@dataclass(frozen=True)
class Collective:
    """A reduction or scan target over width-W segments of each CUDA warp; or a strided
    reduction over the lanes that differ only in the lane bits `bits` (a butterfly over a subset
    of the xor distances, e.g. bits 0x1c: xor 16, 8, 4)."""

    kind: str                # reduce | scan
    op: str                  # pattern op name (COLLECTIVE_OPS)
    width: int = CUDA_WARP
    exclusive: bool = False
    live: int = FULL_MASK    # lanes whose results are used
    bits: int = 0            # strided reduce: the lane bits it combines over (never a low run 2^k-1: that is a width)

    @property
    def group_bits(self) -> int:
        """The lane bits a reduction combines over: `bits`, or the low log2(width) bits."""
        return self.bits or (self.width - 1)

    @property
    def fn(self) -> str:
        return PATTERN_OPS[self.op]

    def warp_multisets(self) -> np.ndarray:
        """(32, 32) 0/1 matrix: row i = the input lanes lane i must combine."""
        i = np.arange(CUDA_WARP)[:, None]
        j = np.arange(CUDA_WARP)[None, :]
        if self.kind == "reduce":
            return (((i ^ j) & ~self.group_bits & (CUDA_WARP - 1)) == 0).astype(np.int64)
        same = (i // self.width) == (j // self.width)
        upto = (j < i) if self.exclusive else (j <= i)
        return (same & upto).astype(np.int64)

    def multisets(self, wave: int) -> tuple[np.ndarray, np.ndarray]:
        """Required multiset per lane on a wave (each 32-lane half its own warp) and the care-set."""
        m = self.warp_multisets()
        care = mask_to_lanes(self.live, CUDA_WARP)
        if wave == CUDA_WARP:
            return m, care
        z = np.zeros_like(m)
        return np.block([[m, z], [z, m]]), np.concatenate([care, care])


Pattern = Shuffle | Collective

_INT = r"[+-]?(?:0[xX][0-9a-fA-F]+|\d+)"


def _int(tok: str, text: str, what: str) -> int:
    if not re.fullmatch(_INT, tok):
        raise _err(text, tok, f"{what} must be an integer, got '{tok}'")
    if len(tok) > 40:                     # no lane, mask or width is this long (and int() has a limit)
        raise _err(text, tok, f"{what} is out of range ({len(tok)} characters)")
    return int(tok, 0)


def _err(text: str, tok: str, reason: str) -> InputError:
    col = text.find(tok) + 1 if tok and tok in text else None
    return InputError(f"pattern '{text}'" + (f", column {col}" if col else "") + f": {reason}")


def _width(tok: str, text: str) -> int:
    w = _int(tok, text, "width")
    if w < 1 or w > CUDA_WARP or w & (w - 1):
        raise _err(text, tok, f"width must be a power of two in 1..32, got {w}")
    return w


def _mask(tok: str, text: str) -> int:
    m = _int(tok, text, "mask")
    if not 0 < m <= FULL_MASK:
        raise _err(text, tok, f"mask must be a nonzero 32-bit lane mask, got {tok}")
    return m


OPTIONS = ("width", "mask", "lanes", "bits")


def _bits(tok: str, text: str) -> int:
    b = _int(tok, text, "bits")
    if not 0 < b < CUDA_WARP:
        raise _err(text, tok, f"bits must be a nonzero set of lane bits in 1..31, got {tok}")
    return b


def parse_pattern(text: str) -> Pattern:
    """Pattern text -> Shuffle or Collective; InputError naming the column on anything else."""
    toks = text.replace(",", " , ").split()
    if not toks:
        raise InputError("empty pattern; expected e.g. 'xor 1', 'shfl.down b=1 c=0x1f', 'map 1,0,...', "
                         "'reduce add'")
    head, rest = toks[0], toks[1:]
    body, opts, exclusive = _words(text, head, rest)
    if head in ("reduce", "scan"):
        return _collective(text, head, body, opts, exclusive)
    return _shuffle(text, head, body, opts)


def _words(text: str, head: str, rest: list[str]) -> tuple[list[str], dict[str, str], bool]:
    """(positional words, options, `exclusive`): positional words first, then options in any order."""
    body: list[str] = []
    opts: dict[str, str] = {}
    exclusive = False
    k = 0
    while k < len(rest):
        tok = rest[k]
        if tok in OPTIONS:
            if k + 1 >= len(rest):
                raise _err(text, tok, f"'{tok}' needs a value")
            if tok in opts:
                raise _err(text, tok, f"'{tok}' given twice")
            opts[tok] = rest[k + 1]
            k += 2
        elif tok == "exclusive" and head == "scan":
            exclusive, k = True, k + 1
        elif opts or exclusive:
            raise _err(text, tok, f"unexpected '{tok}' after the options")
        else:
            body.append(tok)
            k += 1
    return body, opts, exclusive


def _collective(text: str, head: str, body: list[str], opts: dict[str, str], exclusive: bool) -> Collective:
    """`reduce OP` / `scan OP [exclusive]` with width, live lanes, or (reduce) strided lane bits."""
    if "mask" in opts:
        raise _err(text, "mask", "reductions and scans take 'lanes M' (the live lanes), not 'mask'")
    if len(body) != 1 or body[0] not in COLLECTIVE_OPS:
        got = " ".join(body) or "nothing"
        raise _err(text, body[0] if body else head,
                   f"{head} needs one operator of {', '.join(COLLECTIVE_OPS)}; got '{got}'")
    width = _width(opts.get("width", "32"), text)
    live = _mask(opts["lanes"], text) if "lanes" in opts else FULL_MASK
    if "bits" not in opts:
        return Collective(head, body[0], width, exclusive, live)
    if head != "reduce" or "width" in opts:
        raise _err(text, "bits", "'bits' is for a strided reduce (the lane bits it combines over), "
                                 "without 'width'")
    bits = _bits(opts["bits"], text)
    if bits & (bits + 1) == 0:             # the low k bits: a width-2^k reduction
        return Collective(head, body[0], bits + 1, False, live)
    return Collective(head, body[0], CUDA_WARP, False, live, bits)


def _shuffle(text: str, head: str, body: list[str], opts: dict[str, str]) -> Shuffle:
    """idx/up/down/xor ARG [width W], shfl.MODE b=B c=C, or map s0,...,s31; each with [mask M] and
    [lanes M] (the lanes its result is used on)."""
    if "bits" in opts:
        raise _err(text, "bits", "'bits' is for reduce/scan (a strided reduce); a shuffle takes 'mask M' and 'lanes M'")
    mask = _mask(opts["mask"], text) if "mask" in opts else FULL_MASK
    live = _mask(opts["lanes"], text) if "lanes" in opts else FULL_MASK
    return replace(_shuffle_of(text, head, body, opts, mask), live=live)


def _shuffle_of(text: str, head: str, body: list[str], opts: dict[str, str], mask: int) -> Shuffle:
    """The shuffle pattern text names (its `lanes` option aside)."""
    if head in KINDS:
        if len(body) != 1:
            raise _err(text, head, f"'{head}' takes one integer argument, e.g. '{head} 1'")
        width = _width(opts.get("width", "32"), text)
        arg = _int(body[0], text, f"{head} argument")
        if not 0 <= arg < CUDA_WARP:           # the intrinsic would use arg's low 5 bits: say so
            raise _err(text, body[0], f"the {head} argument must be a lane number 0..31, got {arg}; CUDA "
                                      f"uses its bits 4:0 only, so the intrinsic would do '{head} {arg & 31}'")
        return Shuffle(intrinsic_operands(KINDS[head], arg, width, mask), None, head, arg, width)
    if "width" in opts:
        raise _err(text, "width", f"'width' goes with idx/up/down/xor, not '{head}'")
    if head.startswith("shfl."):
        return _ptx_shuffle(text, head, body, mask)
    if head == "map":
        return _map(text, head, body, mask)
    known = ", ".join([*KINDS, "shfl.MODE", "map", "reduce", "scan"])
    raise _err(text, head, f"unknown pattern kind '{head}'; known: {known}")


def _ptx_shuffle(text: str, head: str, body: list[str], mask: int) -> Shuffle:
    mode = head[5:]
    if mode not in MODES:
        raise _err(text, head, f"unknown shfl mode '{mode}'; known: {', '.join(MODES)}")
    fields = dict(t.split("=", 1) for t in body if "=" in t)
    if len(body) != 2 or set(fields) != {"b", "c"}:
        raise _err(text, head, "expected 'shfl.MODE b=B c=C'")
    b = _int(fields["b"], text, "b") & 0xFFFFFFFF
    c = _int(fields["c"], text, "c") & 0xFFFFFFFF
    return Shuffle(ShflOperands(mode, b, c, mask))


def _map(text: str, head: str, body: list[str], mask: int) -> Shuffle:
    vals = [t for t in body if t != ","]
    if len(vals) != CUDA_WARP or body.count(",") != CUDA_WARP - 1:
        raise _err(text, head, f"'map' needs {CUDA_WARP} comma-separated source lanes, got {len(vals)}")
    src = tuple(_int(v, text, "source lane") for v in vals)
    bad = [v for v in src if not 0 <= v < CUDA_WARP]
    if bad:
        raise _err(text, str(bad[0]), f"source lane {bad[0]} is outside 0..31")
    return Shuffle(None, src, mask=mask)


def format_pattern(p: Pattern) -> str:
    """Canonical text; parse_pattern(format_pattern(p)) == p."""
    if isinstance(p, Collective):
        out = f"{p.kind} {p.op}"
        if p.width != CUDA_WARP:
            out += f" width {p.width}"
        if p.bits:
            out += f" bits {p.bits:#x}"
        if p.exclusive:
            out += " exclusive"
        if p.live != FULL_MASK:
            out += f" lanes {p.live:#x}"
        return out
    if p.kind is not None:
        out = f"{p.kind} {p.arg}" + (f" width {p.width}" if p.width != CUDA_WARP else "")
    elif p.operands is not None:
        out = f"shfl.{p.operands.mode} b={p.operands.b:#x} c={p.operands.c:#x}"
    else:
        out = "map " + ",".join(map(str, p.explicit))
    if p.member_mask != FULL_MASK:
        out += f" mask {p.member_mask:#x}"
    if p.live != FULL_MASK:
        out += f" lanes {p.live:#x}"
    return out


def describe_intrinsic(p: Shuffle) -> str | None:
    """The CUDA call a Shuffle came from, e.g. `__shfl_xor_sync(0xffffffff, v, 5, 32)`."""
    if p.kind is None:
        return None
    return f"{KINDS[p.kind]}({p.member_mask:#x}, v, {p.arg}, {p.width})"


__all__ = ["Shuffle", "Collective", "Pattern", "parse_pattern", "format_pattern", "describe_intrinsic"]
