"""Reference replay of a shflx plan on AMD cross-lane semantics (amd_crosslane.md).

Independent of shflx: written from the spec text only, as plain per-lane loops.

A plan is a JSON-like dict::

    {"arch": "gfx942", "wave": 64, "target": "xor 1", "steps": [...], "result": "<step id>"}

Each step defines one per-lane value named by its ``id``.  References (``src``, ``old``, ``a``,
``b``, ``value``, ``vdst_old``, ``src0_old``) name an earlier step or one of ``x`` (per-lane
input), ``zero``, ``identity`` (identity of the plan's combine fn) or ``undef`` (garbage).

Two value domains share one data-movement engine (so they cannot disagree on lane maps):

* symbolic (``ref_replay``): a lane value is provenance -- ``("x", j)``, ``("zero",)``,
  ``("identity",)``, ``("undef",)``, ``("open", "Qn")`` -- or, after a combine step,
  ``("comb", fn, ((elem, count), ...))``, a normalised multiset of such values;
* concrete (``ref_replay_concrete``): a lane value is a u32 bit pattern.

Open questions (amd_crosslane.md §17) that the replay can hit:

* Q1 GFX10+ DPP16 / permlane16 / permlanex16 (and their _var forms), FI = 0, valid source lane
  inactive.  Candidates: "BC decides" (BC=1 -> 0, BC=0 -> old) or "always 0".
* Q2 GFX8/9/CDNA DPP16, valid source lane inactive.  Candidates: "BC decides" or "fetch".
* Q7 v_permlane64 reading an inactive source lane.  Always open.
* Q8 v_permlane16/32_swap where the written lane or its partner is inactive.  Always open.

With ``merge_open=True`` (default) an open case whose candidates are all the same value (e.g. Q1
with BC = 1: both candidates are 0) gets that value; otherwise it becomes ``("open", "Qn")``
(symbolic) or ``open_fill`` (concrete).  ``merge_open=False`` always gives the open marker.
"""

from __future__ import annotations

from collections import Counter
from typing import Callable

import numpy as np

M32 = 0xFFFFFFFF


class RefIllegal(Exception):
    """The plan uses an op, control, bit or field value that is not legal on its arch/wave."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class RefPlanError(ValueError):
    """The plan is malformed (unknown op, missing field, bad reference, ...)."""


# ================================================================================================
# Legality: amd_crosslane.md §15 support table (columns) and §3.2 availability column.
# ================================================================================================

COLUMNS = ("GFX8", "GFX9", "gfx908", "gfx90a", "gfx94x", "gfx950", "GFX10.1", "GFX10.3", "GFX11", "GFX12",
           "GFX12.5")

ARCH_COLUMN = {
    "gfx803": "GFX8",
    "gfx900": "GFX9", "gfx906": "GFX9",
    "gfx908": "gfx908",
    "gfx90a": "gfx90a",
    "gfx940": "gfx94x", "gfx942": "gfx94x",
    "gfx950": "gfx950",
    "gfx1010": "GFX10.1",
    "gfx1030": "GFX10.3",
    "gfx1100": "GFX11", "gfx1101": "GFX11", "gfx1150": "GFX11", "gfx1151": "GFX11",
    "gfx1200": "GFX12", "gfx1201": "GFX12",
    # not in §15 (out of the spec's scope): gfx1250 = GFX12 plus v_permlane_bcast/up/down/xor, wave32
    "gfx1250": "GFX12.5",
    # the other processors of these generations (llvm/docs/AMDGPUUsage.rst), by §15's column
    "gfx801": "GFX8", "gfx802": "GFX8", "gfx805": "GFX8", "gfx810": "GFX8",
    "gfx902": "GFX9", "gfx904": "GFX9", "gfx909": "GFX9", "gfx90c": "GFX9",
    "gfx1011": "GFX10.1", "gfx1012": "GFX10.1", "gfx1013": "GFX10.1",
    "gfx1031": "GFX10.3", "gfx1032": "GFX10.3", "gfx1033": "GFX10.3", "gfx1034": "GFX10.3",
    "gfx1035": "GFX10.3", "gfx1036": "GFX10.3",
    "gfx1102": "GFX11", "gfx1103": "GFX11", "gfx1152": "GFX11", "gfx1153": "GFX11",
}

# Rows of §15 (Y = supported; N or "-" (not applicable) = not supported), one char per column in
# COLUMNS order:                    GFX8 GFX9 908 90a 94x 950 10.1 10.3 11 12 12.5
SUPPORT_TABLE = {
    "dpp16_basic":          "Y Y Y Y Y Y Y Y Y Y Y",  # quad_perm, row_shl/shr/ror, row_mirror, row_half_mirror
    "dpp16_wave_shift":     "Y Y Y Y Y Y N N N N N",  # wave_shl/rol/shr/ror:1
    "dpp16_row_bcast":      "Y Y Y Y Y Y N N N N N",  # row_bcast:15 / :31
    "dpp16_row_newbcast":   "N N N Y Y Y - - - - -",  # 0x15n on gfx90a/94x/950
    "dpp16_row_share":      "N N N - - - Y Y Y Y Y",  # 0x15n on GFX10+
    "dpp16_row_xmask":      "N N N N N N Y Y Y Y Y",
    "dpp16_fi":             "N N N N N N Y Y Y Y Y",  # FI bit (DPP16, DPP8, permlane16/x16 op_sel[0])
    "dpp8":                 "N N N N N N Y Y Y Y Y",
    "swizzle_bitmask_quad": "Y Y Y Y Y Y Y Y Y Y Y",
    "swizzle_fft_rotate":   "N Y Y Y Y Y Y Y Y Y Y",
    "ds_permute_bpermute":  "Y Y Y Y Y Y Y Y Y Y Y",
    "bpermute_full_wave64": "Y Y Y Y Y Y N N N Y Y",  # N = half-wave in wave64
    "ds_bpermute_fi":       "N N N N N N N N N Y Y",
    "permlane16_x16":       "N N N N N N Y Y Y Y Y",
    "permlane64":           "N N N N N N N N Y Y Y",
    "permlane16_x16_var":   "N N N N N N N N N Y Y",
    "permlane_swap":        "N N N N N Y N N N N N",
    "readlane_writelane":   "Y Y Y Y Y Y Y Y Y Y Y",
    "permlane_group":       "N N N N N N N N N N Y",  # v_permlane_bcast/up/down/xor_b32 (gfx1250)
}

# Wave sizes: GFX8/9/CDNA wave64 only; GFX10+ wave32 or wave64 (amd_crosslane.md conventions).
WAVE_SIZES = {
    "GFX8": (64,), "GFX9": (64,), "gfx908": (64,), "gfx90a": (64,), "gfx94x": (64,), "gfx950": (64,),
    "GFX10.1": (32, 64), "GFX10.3": (32, 64), "GFX11": (32, 64), "GFX12": (32, 64), "GFX12.5": (32,),
}

GFX10_PLUS = ("GFX10.1", "GFX10.3", "GFX11", "GFX12", "GFX12.5")


def supports(arch: str, feature: str) -> bool:
    """True when §15 marks ``feature`` Y for ``arch``'s column."""
    col = ARCH_COLUMN[arch]
    flags = SUPPORT_TABLE[feature].split()
    assert len(flags) == len(COLUMNS)
    return flags[COLUMNS.index(col)] == "Y"


def check_arch_wave(arch, wave) -> None:
    if arch not in ARCH_COLUMN:
        raise RefIllegal(f"unknown or unsupported target {arch!r}")
    if wave not in WAVE_SIZES[ARCH_COLUMN[arch]]:
        raise RefIllegal(f"wave{wave} is not available on {arch}")


def _require(arch: str, feature: str, what: str) -> None:
    if not supports(arch, feature):
        raise RefIllegal(f"{what} is not supported on {arch} ({ARCH_COLUMN[arch]})")


# ================================================================================================
# DPP16 control table (amd_crosslane.md §3.2).  Each row: (lo, hi, name, feature, src(i, c),
# valid(i, c)).  i = destination lane, c = dpp_ctrl, n = c & 15, o = i & 15, rb = i & ~15.
# Every value in 0..0x1FF not covered by a row is reserved (illegal).
# ================================================================================================

DPP16_TABLE = [
    (0x000, 0x0FF, "quad_perm", "dpp16_basic",
     lambda i, c: (i & ~3) | ((c >> (2 * (i & 3))) & 3), lambda i, c: True),
    (0x101, 0x10F, "row_shl", "dpp16_basic",
     lambda i, c: i + (c & 15), lambda i, c: (i & 15) + (c & 15) <= 15),
    (0x111, 0x11F, "row_shr", "dpp16_basic",
     lambda i, c: i - (c & 15), lambda i, c: (i & 15) >= (c & 15)),
    (0x121, 0x12F, "row_ror", "dpp16_basic",
     lambda i, c: (i & ~15) | (((i & 15) - (c & 15)) & 15), lambda i, c: True),
    (0x130, 0x130, "wave_shl:1", "dpp16_wave_shift",
     lambda i, c: i + 1, lambda i, c: i < 63),
    (0x134, 0x134, "wave_rol:1", "dpp16_wave_shift",
     lambda i, c: (i + 1) & 63, lambda i, c: True),
    (0x138, 0x138, "wave_shr:1", "dpp16_wave_shift",
     lambda i, c: i - 1, lambda i, c: i > 0),
    (0x13C, 0x13C, "wave_ror:1", "dpp16_wave_shift",
     lambda i, c: (i - 1) & 63, lambda i, c: True),
    (0x140, 0x140, "row_mirror", "dpp16_basic",
     lambda i, c: (i & ~15) | (15 - (i & 15)), lambda i, c: True),
    (0x141, 0x141, "row_half_mirror", "dpp16_basic",
     lambda i, c: (i & ~7) | (7 - (i & 7)), lambda i, c: True),
    (0x142, 0x142, "row_bcast:15", "dpp16_row_bcast",
     lambda i, c: (i & 0x30) - 1, lambda i, c: i >= 16),
    (0x143, 0x143, "row_bcast:31", "dpp16_row_bcast",
     lambda i, c: 31, lambda i, c: i >= 32),
    (0x150, 0x15F, "row_share/row_newbcast", ("dpp16_row_share", "dpp16_row_newbcast"),
     lambda i, c: (i & ~15) | (c & 15), lambda i, c: True),
    (0x160, 0x16F, "row_xmask", "dpp16_row_xmask",
     lambda i, c: (i & ~15) | ((i & 15) ^ (c & 15)), lambda i, c: True),
]


def dpp16_decode(arch: str, ctrl: int):
    """(name, src_fn, valid_fn) of a DPP16 control, or RefIllegal."""
    for lo, hi, name, feature, src_fn, valid_fn in DPP16_TABLE:
        if lo <= ctrl <= hi:
            feats = feature if isinstance(feature, tuple) else (feature,)
            if not any(supports(arch, f) for f in feats):
                raise RefIllegal(f"dpp_ctrl {ctrl:#x} ({name}) is not supported on {arch}")
            return name, src_fn, valid_fn
    raise RefIllegal(f"dpp_ctrl {ctrl:#x} is reserved")


def _rev5(v: int) -> int:
    r = 0
    for k in range(5):
        if (v >> k) & 1:
            r |= 1 << (4 - k)
    return r


def swizzle_decode(arch: str, offset: int):
    """(mode name, j(i)) of a ds_swizzle_b32 offset (amd_crosslane.md §5.2, priority order)."""
    if offset >= 0xE000:
        if not supports(arch, "swizzle_fft_rotate"):
            raise RefIllegal(f"ds_swizzle FFT mode (offset {offset:#x}) not supported on {arch}")
        m = offset & 31
        pc = bin(m).count("1")
        return "fft", lambda i: (_rev5(i & 31) >> pc) | (i & m) | (i & 32)
    if offset >= 0xC000:
        if not supports(arch, "swizzle_fft_rotate"):
            # GFX8: "presumably quad mode" is only an inference (Q6); refuse it.
            raise RefIllegal(f"ds_swizzle offset {offset:#x} >= 0xC000 on {arch} (rotate mode is GFX9+; Q6)")
        r = (offset >> 5) & 31
        if (offset >> 10) & 1:
            r = -r
        m = offset & 31
        return "rotate", lambda i: (i & m) | (((i + r) & ~m) & 31) | (i & 32)
    if offset & 0x8000:
        return "quad", lambda i: (i & ~3) | ((offset >> (2 * (i & 3))) & 3)
    and_m = offset & 31
    or_m = (offset >> 5) & 31
    xor_m = (offset >> 10) & 31
    return "bitmask", lambda i: ((((i & 31) & and_m) | or_m) ^ xor_m) | (i & 32)


# ================================================================================================
# Combine functions
# ================================================================================================

COMBINE_FNS = ("add", "mul", "and", "or", "xor", "umin", "umax", "smin", "smax",
               "fadd", "fmul", "fmin", "fmax")
IDZ_FNS = frozenset({"add", "or", "xor", "umax", "fadd"})            # identity is the 0 pattern
IDEMPOTENT_FNS = frozenset({"and", "or", "umin", "umax", "smin", "smax", "fmin", "fmax"})
IDENTITY_U32 = {
    "add": 0, "mul": 1, "and": M32, "or": 0, "xor": 0, "umin": M32, "umax": 0,
    "smin": 0x7FFFFFFF, "smax": 0x80000000,
    "fadd": 0x00000000,   # +0.0, as in golden_sequences.yaml (fadd: 0.0)
    "fmul": 0x3F800000,   # 1.0
    "fmin": 0x7F800000,   # +inf
    "fmax": 0xFF800000,   # -inf
}


def _s32(u: int) -> int:
    return u - (1 << 32) if u & 0x80000000 else u


def _f32(u: int):
    return np.array([u], dtype=np.uint32).view(np.float32)[0]


def _u32(f) -> int:
    return int(np.array([f], dtype=np.float32).view(np.uint32)[0])


def _fminmax(a: int, b: int, want_min: bool) -> int:
    """IEEE-754-2008 minNum/maxNum on f32 bit patterns; -0 < +0; one NaN -> the other operand."""
    fa, fb = _f32(a), _f32(b)
    if np.isnan(fa):
        return b
    if np.isnan(fb):
        return a
    if fa == fb:
        if fa == 0:                      # +0 / -0: min keeps a set sign bit, max clears it
            return (a | b) if want_min else (a & b)
        return a
    if want_min:
        return a if fa < fb else b
    return a if fa > fb else b


def concrete_combine(fn: str, a: int, b: int) -> int:
    if fn == "add":
        return (a + b) & M32
    if fn == "mul":
        return (a * b) & M32
    if fn == "and":
        return a & b
    if fn == "or":
        return a | b
    if fn == "xor":
        return a ^ b
    if fn == "umin":
        return min(a, b)
    if fn == "umax":
        return max(a, b)
    if fn == "smin":
        return a if _s32(a) <= _s32(b) else b
    if fn == "smax":
        return a if _s32(a) >= _s32(b) else b
    if fn in ("fadd", "fmul"):
        with np.errstate(all="ignore"):
            r = _f32(a) + _f32(b) if fn == "fadd" else _f32(a) * _f32(b)
        return _u32(r)
    if fn == "fmin":
        return _fminmax(a, b, True)
    if fn == "fmax":
        return _fminmax(a, b, False)
    raise RefPlanError(f"unknown combine fn {fn!r}")


# ================================================================================================
# Value domains
# ================================================================================================

ZERO = ("zero",)
UNDEF = ("undef",)
IDENT = ("identity",)


def xval(j: int):
    return ("x", j)


def open_val(q: str):
    return ("open", q)


def is_comb(v) -> bool:
    return v[0] == "comb"


def mentions(v, kind: str) -> bool:
    """True if symbolic value v is, or contains, an atom whose tag is ``kind`` ("undef"/"open")."""
    if v[0] == "comb":
        for e, _ in v[2]:
            if mentions(e, kind):
                return True
        return False
    return v[0] == kind


def _garbage(v) -> bool:
    return mentions(v, "undef") or mentions(v, "open")


def _sort_key(e):
    # input lanes first, in lane order; anything else after, by its text
    return (0, e[1], "") if e[0] == "x" else (1, 0, repr(e))


class SymbolicDomain:
    """Provenance / multiset values."""

    def __init__(self, plan_fn, op_identity_is_zero, merge_open):
        self.override_idz = op_identity_is_zero
        if op_identity_is_zero is None:
            plan_idz = plan_fn in IDZ_FNS
        else:
            plan_idz = bool(op_identity_is_zero)
        # When the identity is 0 the two references denote the same value; use one spelling so
        # that merging of open-question candidates can see it.
        self._identity = ZERO if plan_idz else IDENT
        self.merge_open = merge_open

    def x(self, j):
        return xval(j)

    def zero(self):
        return ZERO

    def identity(self):
        return self._identity

    def undef(self, step_id, lane):
        return UNDEF

    def open(self, q, step_id, lane, candidates):
        if self.merge_open and candidates and all(c == candidates[0] for c in candidates):
            return candidates[0]
        return open_val(q)

    def idz(self, fn):
        if self.override_idz is None:
            return fn in IDZ_FNS
        return bool(self.override_idz)

    def combine(self, fn, a, b):
        items = Counter()
        for v in (a, b):
            if is_comb(v) and v[1] == fn:
                for e, c in v[2]:
                    items[e] += c
            else:
                items[v] += 1
        items.pop(IDENT, None)                       # op(identity, v) = v
        if self.idz(fn):
            items.pop(ZERO, None)                    # 0 is the identity of add/or/xor/umax/fadd
        norm = {}
        for e, c in items.items():
            if e[0] != "x" and _garbage(e):
                c = 1                                # garbage never cancels or multiplies
            elif fn in IDEMPOTENT_FNS:
                c = 1
            elif fn == "xor":
                c = c % 2
            if c:
                norm[e] = c
        if not norm:
            return ZERO if self.idz(fn) else IDENT
        if len(norm) == 1:
            (e, c), = norm.items()
            if c == 1:
                return e
        return ("comb", fn, tuple(sorted(norm.items(), key=lambda ec: _sort_key(ec[0]))))


class ConcreteDomain:
    """u32 bit patterns."""

    def __init__(self, plan_fn, x, undef_fill, open_fill, merge_open):
        self._x = x
        self._identity = IDENTITY_U32[plan_fn] if plan_fn is not None else 0
        self._undef_fill = undef_fill
        self._open_fill = undef_fill if open_fill is None else open_fill
        self.merge_open = merge_open

    @staticmethod
    def _fill(f, step_id, lane):
        v = f(step_id, lane) if callable(f) else f
        return int(v) & M32

    def x(self, j):
        return self._x[j]

    def zero(self):
        return 0

    def identity(self):
        return self._identity

    def undef(self, step_id, lane):
        return self._fill(self._undef_fill, step_id, lane)

    def open(self, q, step_id, lane, candidates):
        if self.merge_open and candidates and all(c == candidates[0] for c in candidates):
            return candidates[0]
        return self._fill(self._open_fill, step_id, lane)

    def combine(self, fn, a, b):
        return concrete_combine(fn, a, b)


# ================================================================================================
# Field helpers
# ================================================================================================

RESERVED_REFS = ("x", "zero", "identity", "undef")


def _field(step, name):
    if name not in step:
        raise RefPlanError(f"step {step.get('id')!r} ({step.get('op')}) lacks field {name!r}")
    return step[name]


def _int_field(step, name, lo, hi, default=None):
    v = step.get(name, default)
    if v is None:
        raise RefPlanError(f"step {step.get('id')!r} ({step.get('op')}) lacks field {name!r}")
    if isinstance(v, bool) or not isinstance(v, int):
        raise RefIllegal(f"step {step.get('id')!r}: {name} must be an integer, got {v!r}")
    if not lo <= v <= hi:
        raise RefIllegal(f"step {step.get('id')!r}: {name}={v:#x} outside {lo:#x}..{hi:#x}")
    return v


def _bit_field(step, name, default=None):
    v = step.get(name, default)
    if v is None:
        raise RefPlanError(f"step {step.get('id')!r} ({step.get('op')}) lacks field {name!r}")
    if v is True:
        return 1
    if v is False:
        return 0
    if isinstance(v, int) and v in (0, 1):
        return int(v)
    raise RefIllegal(f"step {step.get('id')!r}: {name} must be a raw bit 0/1, got {v!r}")


def _lane_list(step, name, W, lo, hi):
    v = _field(step, name)
    if not isinstance(v, (list, tuple)) or len(v) != W:
        raise RefIllegal(f"step {step.get('id')!r}: {name} must be a list of {W} ints")
    for e in v:
        if isinstance(e, bool) or not isinstance(e, int) or not lo <= e <= hi:
            raise RefIllegal(f"step {step.get('id')!r}: {name} entry {e!r} outside {lo}..{hi}")
    return list(v)


def plan_fn(plan) -> str | None:
    """The plan's combine fn: that of its first combine step (None without one)."""
    for st in plan.get("steps", []):
        if st.get("op") == "combine":
            return st.get("fn")
    return None


# ================================================================================================
# The engine
# ================================================================================================

class _Engine:
    def __init__(self, plan, dom):
        self.plan = plan
        self.dom = dom
        self.arch = plan.get("arch")
        self.W = plan.get("wave")
        check_arch_wave(self.arch, self.W)
        self.col = ARCH_COLUMN[self.arch]
        self.full = (1 << self.W) - 1
        self.env: dict[str, list] = {}

    # ---------------------------------------------------------------- references
    def ref(self, name, step_id):
        W = self.W
        d = self.dom
        if name == "x":
            return [d.x(j) for j in range(W)]
        if name == "zero":
            return [d.zero()] * W
        if name == "identity":
            return [d.identity()] * W
        if name == "undef":
            return [d.undef(step_id, i) for i in range(W)]
        if isinstance(name, str) and name in self.env:
            return self.env[name]
        raise RefPlanError(f"step {step_id!r}: unknown or later reference {name!r}")

    def old_or_undef(self, st):
        """The step's optional ``old`` (for lanes it does not write), else UNDEF."""
        if "old" in st:
            return self.ref(st["old"], st["id"])
        return [self.dom.undef(st["id"], i) for i in range(self.W)]

    # ---------------------------------------------------------------- run
    def run(self):
        steps = self.plan.get("steps")
        if not isinstance(steps, list) or not steps:
            raise RefPlanError("plan has no steps")
        for st in steps:
            sid = st.get("id")
            if not isinstance(sid, str) or sid in RESERVED_REFS or sid in self.env:
                raise RefPlanError(f"bad or duplicate step id {sid!r}")
            op = st.get("op")
            handler = self.OPS.get(op)
            if handler is None:
                raise RefPlanError(f"step {sid!r}: unknown op {op!r}")
            if "exec" in st:
                ex = st["exec"]
                if isinstance(ex, bool) or not isinstance(ex, int) or ex < 0:
                    raise RefPlanError(f"step {sid!r}: exec must be a non-negative int mask")
                ex &= self.full
            else:
                ex = self.full
            out = handler(self, st, ex)
            assert len(out) == self.W
            self.env[sid] = out
        return self.env

    def result_id(self):
        rid = self.plan.get("result")
        if rid is None:
            rid = self.plan["steps"][-1]["id"]
        if rid not in self.env:
            raise RefPlanError(f"result {rid!r} is not a step id")
        return rid

    # ---------------------------------------------------------------- ops
    def op_update_dpp(self, st, ex):
        W, d, sid = self.W, self.dom, st["id"]
        _require(self.arch, "dpp16_basic", "DPP16")
        ctrl = _int_field(st, "dpp_ctrl", 0, 0x1FF)
        name, src_fn, valid_fn = dpp16_decode(self.arch, ctrl)
        row_mask = _int_field(st, "row_mask", 0, 15)
        bank_mask = _int_field(st, "bank_mask", 0, 15)
        bc = _bit_field(st, "bound_ctrl")
        fi = _bit_field(st, "fi", 0)
        if fi:
            _require(self.arch, "dpp16_fi", "DPP FI=1")
        src = self.ref(_field(st, "src"), sid)
        old = self.ref(_field(st, "old"), sid)
        gfx10p = self.col in GFX10_PLUS
        out = []
        for i in range(W):
            if not (ex >> i) & 1:
                out.append(old[i])                                   # EXEC masking
                continue
            if not (row_mask >> (i >> 4)) & 1 or not (bank_mask >> ((i >> 2) & 3)) & 1:
                out.append(old[i])                                   # row/bank masked: not written
                continue
            s = src_fn(i, ctrl)
            valid = valid_fn(i, ctrl)
            if valid:
                assert 0 <= s < W, (name, i, s)
            if valid and ((ex >> s) & 1 or fi):
                out.append(src[s])
            elif valid:
                # valid source lane, inactive, FI = 0: open question
                bc_rule = d.zero() if bc else old[i]
                if gfx10p:
                    out.append(d.open("Q1", sid, i, [bc_rule, d.zero()]))
                else:
                    out.append(d.open("Q2", sid, i, [bc_rule, src[s]]))
            elif bc:
                out.append(d.zero())                                 # out of range, BC=1: write 0
            else:
                out.append(old[i])                                   # out of range, BC=0: keep old
        return out

    def op_mov_dpp8(self, st, ex):
        W, d, sid = self.W, self.dom, st["id"]
        _require(self.arch, "dpp8", "DPP8")
        sel = _int_field(st, "sel", 0, (1 << 24) - 1)
        fi = _bit_field(st, "fi", 0)
        if fi:
            _require(self.arch, "dpp16_fi", "DPP8 FI=1")
        src = self.ref(_field(st, "src"), sid)
        old = self.old_or_undef(st)
        out = []
        for i in range(W):
            if not (ex >> i) & 1:
                out.append(old[i])
                continue
            s = (i & ~7) | ((sel >> (3 * (i & 7))) & 7)
            if (ex >> s) & 1 or fi:
                out.append(src[s])
            else:
                out.append(d.zero())                                 # FI=0: inactive source reads 0
        return out

    def op_ds_swizzle(self, st, ex):
        W, d, sid = self.W, self.dom, st["id"]
        offset = _int_field(st, "offset", 0, 0xFFFF)
        _mode, j_fn = swizzle_decode(self.arch, offset)
        src = self.ref(_field(st, "src"), sid)
        old = self.old_or_undef(st)
        out = []
        for i in range(W):
            if not (ex >> i) & 1:
                out.append(old[i])
                continue
            j = j_fn(i)
            assert 0 <= j < W
            out.append(src[j] if (ex >> j) & 1 else d.zero())
        return out

    def _ds_lane(self, i, index):
        """Hardware lane field of byte address index*4 for lane i (amd_crosslane.md §6)."""
        a = (index * 4) & M32
        f = a >> 2
        if self.W == 64 and not supports(self.arch, "bpermute_full_wave64"):
            return (i & 32) | (f & 31)                               # GFX10/11 wave64: half-wave
        return f & (self.W - 1)

    def op_ds_bpermute(self, st, ex):
        W, d, sid = self.W, self.dom, st["id"]
        fi_variant = st["op"] == "ds.bpermute.fi"
        _require(self.arch, "ds_bpermute_fi" if fi_variant else "ds_permute_bpermute", st["op"])
        index = _lane_list(st, "index", W, 0, (1 << 30) - 1)
        src = self.ref(_field(st, "src"), sid)
        old = self.old_or_undef(st)
        out = []
        for i in range(W):
            if not (ex >> i) & 1:
                out.append(old[i])
                continue
            s = self._ds_lane(i, index[i])
            if fi_variant or (ex >> s) & 1:
                out.append(src[s])
            else:
                out.append(d.zero())                                 # inactive source reads 0
        return out

    def op_ds_permute(self, st, ex):
        W, d, sid = self.W, self.dom, st["id"]
        _require(self.arch, "ds_permute_bpermute", "ds_permute")
        index = _lane_list(st, "index", W, 0, (1 << 30) - 1)
        src = self.ref(_field(st, "src"), sid)
        old = self.old_or_undef(st)
        tmp = [d.zero()] * W
        for i in range(W):                                           # increasing: highest lane wins
            if (ex >> i) & 1:
                tmp[self._ds_lane(i, index[i])] = src[i]
        return [tmp[i] if (ex >> i) & 1 else old[i] for i in range(W)]

    def _permlane_common(self, st, ex, nibble_of):
        """permlane16/x16 (and _var): nibble_of(i) gives the 4-bit selector of lane i."""
        W, d, sid = self.W, self.dom, st["id"]
        cross = st["op"].startswith("permlanex16")
        fi = _bit_field(st, "fi")
        bc = _bit_field(st, "bound_ctrl")
        src = self.ref(_field(st, "src"), sid)
        old = self.ref(_field(st, "old"), sid)
        out = []
        for i in range(W):
            if not (ex >> i) & 1:
                out.append(old[i])
                continue
            nib = nibble_of(i)
            if cross:
                s = (((i >> 4) ^ 1) << 4) + nib
            else:
                s = (i & ~15) + nib
            if (ex >> s) & 1 or fi:
                out.append(src[s])
            else:
                bc_rule = d.zero() if bc else old[i]
                out.append(d.open("Q1", sid, i, [bc_rule, d.zero()]))
        return out

    def op_permlane16(self, st, ex):
        _require(self.arch, "permlane16_x16", st["op"])
        lo = _int_field(st, "sel_lo", 0, M32)
        hi = _int_field(st, "sel_hi", 0, M32)
        sel64 = (hi << 32) | lo
        return self._permlane_common(st, ex, lambda i: (sel64 >> (4 * (i & 15))) & 15)

    def op_permlane_var(self, st, ex):
        _require(self.arch, "permlane16_x16_var", st["op"])
        sel = _lane_list(st, "sel", self.W, 0, M32)
        return self._permlane_common(st, ex, lambda i: sel[i] & 15)

    def op_permlane64(self, st, ex):
        W, d, sid = self.W, self.dom, st["id"]
        _require(self.arch, "permlane64", "v_permlane64_b32")
        if W != 64:
            raise RefIllegal("v_permlane64_b32 is a NOP in wave32 (treated as illegal)")
        src = self.ref(_field(st, "src"), sid)
        old = self.old_or_undef(st)
        out = []
        for i in range(W):
            if not (ex >> i) & 1:
                out.append(old[i])
                continue
            s = i ^ 32
            out.append(src[s] if (ex >> s) & 1 else d.open("Q7", sid, i, None))
        return out

    def op_permlane_swap(self, st, ex):
        W, d, sid = self.W, self.dom, st["id"]
        _require(self.arch, "permlane_swap", st["op"])
        if W != 64:
            raise RefIllegal(f"{st['op']} needs wave64")
        _bit_field(st, "fi")
        _bit_field(st, "bound_ctrl")
        take = _int_field(st, "take", 0, 1)
        vdst = self.ref(_field(st, "vdst_old"), sid)
        src0 = self.ref(_field(st, "src0_old"), sid)
        sixteen = st["op"] == "permlane16.swap"
        out = []
        for i in range(W):
            # partner(i): the lane of the OTHER register whose old value lands in lane i, or None
            # when lane i of the taken register is not swapped (left unchanged).
            row = i >> 4
            if sixteen:
                if take == 0:      # new vdst.row1/row3 = old src0.row0/row2
                    partner = i - 16 if row in (1, 3) else None
                else:              # new src0.row0/row2 = old vdst.row1/row3
                    partner = i + 16 if row in (0, 2) else None
            else:
                if take == 0:      # new vdst lanes 32..63 = old src0 lanes 0..31
                    partner = i - 32 if i >= 32 else None
                else:              # new src0 lanes 0..31 = old vdst lanes 32..63
                    partner = i + 32 if i < 32 else None
            mine = vdst if take == 0 else src0
            other = src0 if take == 0 else vdst
            if partner is None:
                out.append(mine[i])
            elif (ex >> i) & 1 and (ex >> partner) & 1:
                out.append(other[partner])
            else:
                out.append(d.open("Q8", sid, i, None))
        return out

    def op_permlane_group(self, st, ex):
        """gfx1250 v_permlane_bcast/up/down/xor_b32 vdst, vsrc, s_sel, s_width, from the comments of
        HIP's __shfl/__shfl_up/__shfl_down/__shfl_xor (amd_warp_functions.h, the gfx1250 paths):
        groups of `width` lanes; bcast reads the group's lane sel[5:0] & (width-1); up/down read
        lane -/+ sel inside the group, else the lane keeps its value (sel clamped to the width); xor
        reads lane ^ sel, keeping the lane when that is above its group or sel >= 32, and OPEN when
        it is below its group (the comment says 'leaves the group', its fallback code keeps only
        above). Modeled: width 1..32 a power of two, sel < 64 (bcast: any u32). An inactive source
        lane is OPEN; an inactive destination keeps its (unknown) VGPR."""
        W, d, sid = self.W, self.dom, st["id"]
        kind = st["op"].split(".")[1]
        _require(self.arch, "permlane_group", f"v_permlane_{kind}_b32")
        if W != 32:
            raise RefIllegal(f"v_permlane_{kind}_b32 is wave32 only")
        width = _int_field(st, "width", 0, M32)
        if width not in (1, 2, 4, 8, 16, 32):
            raise RefIllegal(f"width {width} is not modeled")
        sel = _int_field(st, "sel", 0, M32)
        if kind != "bcast" and sel >= 64:
            raise RefIllegal(f"sel {sel} is not modeled")
        src = self.ref(_field(st, "src"), sid)
        out = []
        for i in range(W):
            if not (ex >> i) & 1:
                out.append(d.undef(sid, i))
                continue
            first = i - i % width                      # the group's first lane
            pos = i % width
            if kind == "bcast":
                s = first + ((sel % 64) % width)
            elif kind == "up":
                s = i - sel if pos - sel >= 0 else i
            elif kind == "down":
                s = i + sel if pos + sel <= width - 1 else i
            else:
                partner = i ^ sel
                if first <= partner < first + width:
                    s = partner
                elif partner >= first + width:
                    s = i
                else:
                    out.append(d.open("xor below the group", sid, i, None))
                    continue
            if s != i and not (ex >> s) & 1:
                out.append(d.open("inactive source", sid, i, None))
            else:
                out.append(src[s])
        return out

    def op_readlane(self, st, ex):
        sid = st["id"]
        lane = _int_field(st, "lane", 0, M32) & (self.W - 1)        # S1[5:0] / S1[4:0]
        src = self.ref(_field(st, "src"), sid)
        return [src[lane]] * self.W                                  # ignores EXEC; uniform

    def op_readfirstlane(self, st, ex):
        sid = st["id"]
        src = self.ref(_field(st, "src"), sid)
        lane = 0
        if ex:
            while not (ex >> lane) & 1:
                lane += 1
        return [src[lane]] * self.W

    def op_writelane(self, st, ex):
        sid = st["id"]
        lane = _int_field(st, "lane", 0, M32) & (self.W - 1)
        value = self.ref(_field(st, "value"), sid)
        old = self.ref(_field(st, "old"), sid)
        out = list(old)
        out[lane] = value[0]                                         # uniform: lowest lane's value
        return out                                                   # ignores EXEC

    def op_select(self, st, ex):
        sid = st["id"]
        lanes = _field(st, "lanes")
        if isinstance(lanes, bool) or not isinstance(lanes, int) or lanes < 0:
            raise RefPlanError(f"step {sid!r}: lanes must be a non-negative int mask")
        a = self.ref(_field(st, "a"), sid)
        b = self.ref(_field(st, "b"), sid)
        old = self.old_or_undef(st)
        return [old[i] if not (ex >> i) & 1 else (a[i] if (lanes >> i) & 1 else b[i])
                for i in range(self.W)]

    def op_combine(self, st, ex):
        sid = st["id"]
        fn = _field(st, "fn")
        if fn not in COMBINE_FNS:
            raise RefPlanError(f"step {sid!r}: unknown combine fn {fn!r}")
        a = self.ref(_field(st, "a"), sid)
        b = self.ref(_field(st, "b"), sid)
        old = self.old_or_undef(st)
        return [self.dom.combine(fn, a[i], b[i]) if (ex >> i) & 1 else old[i] for i in range(self.W)]

    OPS: dict[str, Callable] = {
        "update.dpp": op_update_dpp,
        "mov.dpp8": op_mov_dpp8,
        "ds.swizzle": op_ds_swizzle,
        "ds.bpermute": op_ds_bpermute,
        "ds.bpermute.fi": op_ds_bpermute,
        "ds.permute": op_ds_permute,
        "permlane16": op_permlane16,
        "permlanex16": op_permlane16,
        "permlane16.var": op_permlane_var,
        "permlanex16.var": op_permlane_var,
        "permlane64": op_permlane64,
        "permlane16.swap": op_permlane_swap,
        "permlane32.swap": op_permlane_swap,
        "permlane.bcast": op_permlane_group,
        "permlane.up": op_permlane_group,
        "permlane.down": op_permlane_group,
        "permlane.xor": op_permlane_group,
        "readlane": op_readlane,
        "readfirstlane": op_readfirstlane,
        "writelane": op_writelane,
        "select": op_select,
        "combine": op_combine,
    }


# ================================================================================================
# Public API
# ================================================================================================

def ref_check_legal(plan) -> None:
    """Raise RefIllegal if any step is illegal on the plan's arch/wave (replays symbolically)."""
    ref_replay_steps(plan)


def ref_replay_steps(plan, op_identity_is_zero: bool | None = None, *, merge_open: bool = True) -> dict:
    """Symbolic values of every step: {step id: [W lane values]}."""
    dom = SymbolicDomain(plan_fn(plan), op_identity_is_zero, merge_open)
    return _Engine(plan, dom).run()


def ref_replay(plan, op_identity_is_zero: bool | None = None, *, merge_open: bool = True) -> list:
    """Symbolic value of the plan's result step, one entry per lane (W entries).

    ``op_identity_is_zero``: whether the "zero" value is the identity inside combine steps (it is
    then dropped from multisets, and the ``identity`` reference is spelled ("zero",)).  None (the
    default) derives it from the combine fn: True for add, or, xor, umax, fadd.
    """
    dom = SymbolicDomain(plan_fn(plan), op_identity_is_zero, merge_open)
    eng = _Engine(plan, dom)
    eng.run()
    return eng.env[eng.result_id()]


def _check_x(plan, x):
    W = plan.get("wave")
    if not isinstance(x, (list, tuple)) or len(x) != W:
        raise RefPlanError(f"x must be a list of {W} u32 values")
    xs = []
    for v in x:
        v = int(v)
        if not 0 <= v <= M32:
            raise RefPlanError(f"x value {v!r} is not a u32 bit pattern")
        xs.append(v)
    return xs


def ref_replay_concrete_steps(plan, x, undef_fill=0, *, open_fill=None, merge_open: bool = True) -> dict:
    """Concrete u32 values of every step.  See ref_replay_concrete."""
    check_arch_wave(plan.get("arch"), plan.get("wave"))
    dom = ConcreteDomain(plan_fn(plan), _check_x(plan, x), undef_fill, open_fill, merge_open)
    return _Engine(plan, dom).run()


def ref_replay_concrete(plan, x, undef_fill=0, *, open_fill=None, merge_open: bool = True) -> list[int]:
    """Concrete u32 result of the plan on input ``x`` (W u32 bit patterns).

    ``undef_fill``: an int, or a callable (step_id, lane) -> int, giving the garbage used for the
    ``undef`` reference and for unwritten lanes of steps without ``old``.  ``open_fill`` (default:
    undef_fill) is used for open-question lanes whose candidates disagree.
    """
    check_arch_wave(plan.get("arch"), plan.get("wave"))
    dom = ConcreteDomain(plan_fn(plan), _check_x(plan, x), undef_fill, open_fill, merge_open)
    eng = _Engine(plan, dom)
    eng.run()
    return eng.env[eng.result_id()]


def to_multiset(v, fn: str, idz: bool | None = None) -> Counter:
    """Multiset of symbolic value v read as a combination under ``fn``.

    identity -> {}; zero -> {} when 0 is fn's identity; a comb of the same fn -> its items;
    anything else (an input lane, undef, open, a comb of another fn) -> {v: 1}.
    """
    if idz is None:
        idz = fn in IDZ_FNS
    if v == IDENT:
        return Counter()
    if v == ZERO:
        return Counter() if idz else Counter({v: 1})
    if is_comb(v) and v[1] == fn:
        return Counter(dict(v[2]))
    return Counter({v: 1})
