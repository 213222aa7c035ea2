"""Lockstep evaluation of straight-line LLVM IR on every lane of an AMD wave, for checking the IR
shflx emits for inline PTX. Written from the LLVM Language Reference (instruction meanings) and
the AMDGPU intrinsics' definitions (mbcnt counts the lanes below, workitem.id.x is the lane in a
one-wave block); `@__shflx_shfl_sync` (shflx's shuffle marker) is PTX shfl.sync per 32-lane group,
from cuda_ref. Independent of shflx: nothing here imports it. Values are numpy int64 arrays
holding the unsigned bits of each lane."""
from __future__ import annotations

import re

import numpy as np

from .cuda_ref import ref_shfl

MODES = ("up", "down", "bfly", "idx")
POISON = 0x5EED_F00D_5EED_F00D
STEADY_START, STEADY_STEP = 0x3_0000_0123, 1000      # llvm.readsteadycounter: ticks above 2^32   # the value of a shift by the width or more (LLVM: poison)
FTYPES = {"float": (np.float32, np.uint32), "double": (np.float64, np.uint64)}
ICMP = {"eq": np.equal, "ne": np.not_equal, "ult": np.less, "ule": np.less_equal, "ugt": np.greater,
        "uge": np.greater_equal, "slt": np.less, "sle": np.less_equal, "sgt": np.greater, "sge": np.greater_equal}
FCMP = {"oeq": np.equal, "one": np.not_equal, "olt": np.less, "ole": np.less_equal, "ogt": np.greater,
        "oge": np.greater_equal, "ueq": np.equal, "une": np.not_equal, "ult": np.less, "ule": np.less_equal,
        "ugt": np.greater, "uge": np.greater_equal}


def _width(ty: str) -> int:
    return {"float": 32, "double": 64, "half": 16}.get(ty) or int(ty[1:])


def _mask(v, w: int) -> np.ndarray:
    masked = np.asarray(v, dtype=object) & ((1 << w) - 1)       # Python ints: no overflow on the way
    return masked if w == 64 else masked.astype(np.int64)


def _signed(v: np.ndarray, w: int) -> np.ndarray:
    v = _mask(v, w)
    return np.where(v >= (1 << (w - 1)), v - (1 << w), v)


def _to_float(v: np.ndarray, ty: str) -> np.ndarray:
    f, u = FTYPES[ty]
    return np.array([int(x) for x in v], dtype=u).view(f)


def _from_float(f: np.ndarray, ty: str) -> np.ndarray:
    ft, u = FTYPES[ty]
    return np.array([int(x) for x in f.astype(ft).view(u)], dtype=object if ty == "double" else np.int64)


class Lanes:
    """An environment of SSA values over `wave` lanes; `functions` maps a name to its body lines and
    parameter names (for calls to internal functions such as shflx.inrange.*)."""

    def __init__(self, wave: int, values: dict[str, np.ndarray], functions: dict[str, tuple] | None = None):
        self.wave, self.env, self.functions = wave, dict(values), functions or {}
        self.lane = np.arange(wave)

    def operand(self, tok: str, w: int) -> np.ndarray:
        tok = tok.strip()
        if tok in self.env:
            return self.env[tok]
        if tok in ("true", "false"):
            return np.full(self.wave, tok == "true", np.int64)
        if tok in ("poison", "undef"):
            raise ValueError("an undefined value is used")
        return _mask(np.full(self.wave, int(tok), dtype=object), w)

    def run(self, lines: list[str]) -> None:
        for line in lines:
            line = re.sub(r",\s*!dbg !\d+$", "", line.strip())
            if not line or line.endswith(":") or line.startswith("ret "):
                continue
            name, text = (s.strip() for s in line.split("=", 1))
            self.env[name] = self.step(text)

    def step(self, text: str) -> np.ndarray:
        op, rest = text.split(None, 1)
        if op == "call":
            return self.call(rest)
        if op in ("add", "sub", "mul", "and", "or", "xor", "shl", "lshr", "ashr"):
            ty, a, b = re.match(r"(\S+) (\S+), (\S+)$", rest).groups()
            w = _width(ty)
            x, y = self.operand(a, w), self.operand(b, w)
            big = np.asarray(y) >= w
            if op in ("shl", "lshr", "ashr"):
                y = np.where(big, 0, y)
            f = {"add": lambda: x + y, "sub": lambda: x - y, "mul": lambda: x * y, "and": lambda: x & y,
                 "or": lambda: x | y, "xor": lambda: x ^ y, "shl": lambda: x << y, "lshr": lambda: x >> y,
                 "ashr": lambda: _signed(x, w) >> y}[op]
            if op in ("shl", "lshr", "ashr"):      # poison: garbage that must not reach a result
                return _mask(np.where(big, POISON, f()), w)
            return _mask(f(), w)
        if op == "icmp":
            pred, ty, a, b = re.match(r"(\w+) (\S+) (\S+), (\S+)$", rest).groups()
            w = _width(ty)
            x, y = self.operand(a, w), self.operand(b, w)
            if pred.startswith("s"):
                x, y = _signed(x, w), _signed(y, w)
            return ICMP[pred](x, y).astype(np.int64)
        if op == "select":
            c, ty, a, ty2, b = re.match(r"i1 (\S+), (\S+) (\S+), (\S+) (\S+)$", rest).groups()
            w = _width(ty)
            return np.where(self.operand(c, 1).astype(bool), self.operand(a, w), self.operand(b, w))
        if op in ("zext", "sext", "trunc", "bitcast"):
            fty, a, tty = re.match(r"(\S+) (\S+) to (\S+)$", rest).groups()
            x = self.operand(a, _width(fty))
            if op == "sext":
                x = _signed(x, _width(fty))
            return _mask(x, _width(tty))
        if op in ("fadd", "fsub", "fmul", "fdiv", "fneg", "fcmp"):
            return self.float_op(op, rest)
        if op in ("fpext", "fptrunc"):          # numpy's casts: exact widening, round-to-nearest-even narrowing
            fty, a, tty = re.match(r"(\S+) (\S+) to (\S+)$", rest).groups()
            return _from_float(_to_float(self.operand(a, _width(fty)), fty), tty)
        if op in ("sitofp", "uitofp"):
            fty, a, tty = re.match(r"(\S+) (\S+) to (\S+)$", rest).groups()
            x = self.operand(a, _width(fty))
            x = _signed(x, _width(fty)) if op == "sitofp" else x
            return _from_float(np.array([float(int(v)) for v in x]), tty)   # int -> double exact below 2^53
        raise ValueError(f"ir_eval: no meaning for '{text}'")

    def float_op(self, op: str, rest: str) -> np.ndarray:
        if op == "fneg":
            ty, a = rest.split()
            return _from_float(-_to_float(self.operand(a, _width(ty)), ty), ty)
        if op == "fcmp":
            pred, ty, a, b = re.match(r"(\w+) (\S+) (\S+), (\S+)$", rest).groups()
            x, y = (_to_float(self.operand(t, _width(ty)), ty) for t in (a, b))
            nan = np.isnan(x) | np.isnan(y)
            if pred == "ord":
                return (~nan).astype(np.int64)
            if pred == "uno":
                return nan.astype(np.int64)
            r = FCMP[pred](x, y)
            return (r & ~nan if pred.startswith("o") else r | nan).astype(np.int64)
        ty, a, b = re.match(r"(\S+) (\S+), (\S+)$", rest).groups()
        x, y = (_to_float(self.operand(t, _width(ty)), ty) for t in (a, b))
        with np.errstate(all="ignore"):
            return _from_float({"fadd": np.add, "fsub": np.subtract, "fmul": np.multiply, "fdiv": np.divide}[op](x, y), ty)

    def call(self, rest: str) -> np.ndarray:
        m = re.match(r"(\S+) @([\w.$]+)\((.*)\)$", rest)
        ty, fn, argtext = m.groups()
        args = [a.strip().split() for a in argtext.split(",") if a.strip()]
        vals = [self.operand(v, _width(t)) for t, v in args]
        if fn == "llvm.amdgcn.mbcnt.lo":       # popcount(mask & lanes below) + acc, low 32 lanes
            return _mask(np.minimum(self.lane, 32) * (np.asarray(vals[0]) == 0xFFFFFFFF) + vals[1], 32)
        if fn == "llvm.amdgcn.mbcnt.hi":
            return _mask(np.maximum(self.lane - 32, 0) * (np.asarray(vals[0]) == 0xFFFFFFFF) + vals[1], 32)
        if fn == "llvm.amdgcn.workitem.id.x":
            return self.lane.astype(np.int64)
        if fn == "llvm.readsteadycounter":    # a wave-uniform tick count; each read here STEADY_STEP later
            self.steady_reads = getattr(self, "steady_reads", 0) + 1
            return np.full(self.wave, STEADY_START + STEADY_STEP * self.steady_reads, dtype=object)
        if fn in ("llvm.amdgcn.ballot.i32", "llvm.amdgcn.ballot.i64"):   # bit i: lane i's i1 (every lane active)
            bits = sum(1 << i for i in range(self.wave) if vals[0][i])
            return _mask(np.full(self.wave, bits, dtype=object), _width(ty))
        m = re.fullmatch(r"llvm\.(rint|trunc|floor|ceil)\.(f32|f64)", fn)
        if m:
            fty = "float" if m.group(2) == "f32" else "double"
            rnd = {"rint": np.rint, "trunc": np.trunc, "floor": np.floor, "ceil": np.ceil}[m.group(1)]
            return _from_float(rnd(_to_float(vals[0], fty)), fty)
        m = re.fullmatch(r"llvm\.fpto([su])i\.sat\.i(\d+)\.(f32|f64)", fn)
        if m:           # LLVM LangRef: NaN -> 0, out of range -> the nearest representable value
            w, fty = int(m.group(2)), "float" if m.group(3) == "f32" else "double"
            lo, hi = (-(1 << (w - 1)), (1 << (w - 1)) - 1) if m.group(1) == "s" else (0, (1 << w) - 1)
            f = _to_float(vals[0], fty).astype(np.float64)
            return _mask([0 if np.isnan(x) else int(min(max(x, lo), hi)) for x in f], w)
        if fn.startswith("llvm.sqrt."):
            with np.errstate(all="ignore"):
                return _from_float(np.sqrt(_to_float(vals[0], ty)), ty)
        if fn.startswith(("llvm.minnum.", "llvm.maxnum.")):
            x, y = (_to_float(v, ty) for v in vals)
            return _from_float((np.fmin if "minnum" in fn else np.fmax)(x, y), ty)
        if fn == "__shflx_shfl_sync":
            mode, _, a, b, c = vals
            out = np.zeros(self.wave, dtype=np.int64)
            for warp in range(0, self.wave, 32):
                w = slice(warp, warp + 32)
                modes = {int(x) for x in mode[w]}
                assert len(modes) == 1, "the mode is warp-uniform"
                src, _ = ref_shfl(MODES[modes.pop()], [int(x) for x in b[w]], [int(x) for x in c[w]])
                out[w] = np.asarray(a[w])[src]
            return out
        if fn in self.functions:
            params, body, result = self.functions[fn]
            sub = Lanes(self.wave, dict(zip(params, vals)), self.functions)
            sub.run(body)
            return sub.env[result]
        raise ValueError(f"ir_eval: no meaning for call to @{fn}")


def parse_function(text: str) -> tuple[str, tuple]:
    """(name, (parameter names, body lines, returned value)) of one `define` in `text`."""
    head = re.search(r"define [^@]*@([\w.$]+)\(([^)]*)\)", text)
    params = [p.split()[-1] for p in head.group(2).split(",") if p.strip()]
    body = text.split("entry:", 1)[1].rsplit("}", 1)[0].strip().splitlines()
    ret = next(ln for ln in body if ln.strip().startswith("ret "))
    return head.group(1), (params, body, ret.split()[-1])
