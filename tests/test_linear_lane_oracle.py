"""A brute-force oracle for the lane-function reader over thread ids of every block shape.

Random i32 expressions over threadIdx.{x,y,z}, blockDim.{x,y,z} (the code object's hidden group
sizes) and the block's linear thread id in its spellings are evaluated concretely, with i32
wrapping, for every thread of many block shapes (a block's threads are its linear ids 0..n-1;
CUDA warps and AMD waves are runs of 32 and 32/64 consecutive linear ids, DESIGN.md decision 2).
What the reader claims is then checked thread by thread:
- linear_bits(t) = C: t is (linear id % wave) & C in every thread;
- classify(t) a lane map: each thread's value (bits 4:0 for b, all bits for c) is the map's
  entry at its CUDA lane (linear id % 32);
- lane_condition(c): a thread where c holds has its CUDA lane in the mask; with exact=True, every
  whole warp holds c on exactly the mask's lanes.
mbcnt.lo/hi under a full mask are the hardware lane's counts in the wave size the reader is told.
A claim read off threadIdx.x (from_tid) is checked only in waves where amd.guard's run-time
premise holds ((threadIdx.x ^ hardware lane) & 31 == 0 on every lane of the wave)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shflx.ir.body import FunctionIR

# The prologue every generated body starts with: the thread and block-size registers as the CUDA
# layer reads them (AMDGPU code object v5 hidden_group_size_x/y/z at implicitarg + 12/14/16).
PROLOGUE = [
    "%x = call i32 @llvm.amdgcn.workitem.id.x()",
    "%y = call i32 @llvm.amdgcn.workitem.id.y()",
    "%z = call i32 @llvm.amdgcn.workitem.id.z()",
    "%ia = call ptr addrspace(4) @llvm.amdgcn.implicitarg.ptr()",
    "%px = getelementptr inbounds i8, ptr addrspace(4) %ia, i64 12",
    "%lx = load i16, ptr addrspace(4) %px, align 4",
    "%nx = zext i16 %lx to i32",
    "%py = getelementptr inbounds i8, ptr addrspace(4) %ia, i64 14",
    "%ly = load i16, ptr addrspace(4) %py, align 2",
    "%ny = zext i16 %ly to i32",
    "%pz = getelementptr inbounds i8, ptr addrspace(4) %ia, i64 16",
    "%lz = load i16, ptr addrspace(4) %pz, align 4",
    "%nz = zext i16 %lz to i32",
    "%lo = call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)",
    "%ln = call i32 @llvm.amdgcn.mbcnt.hi(i32 -1, i32 %lo)",
]
# Spellings of the linear id (and near misses that are not it), each ending in %NAME
RANKS = {
    "nested": ["%NAME.a = mul i32 %z, %ny", "%NAME.b = add i32 %NAME.a, %y", "%NAME.c = mul i32 %NAME.b, %nx",
               "%NAME = add i32 %NAME.c, %x"],
    "cuda": ["%NAME.a = mul i32 %nx, %ny", "%NAME.b = mul i32 %z, %NAME.a", "%NAME.c = mul nuw i32 %y, %nx",
             "%NAME.d = add i32 %NAME.b, %NAME.c", "%NAME = add nuw nsw i32 %NAME.d, %x"],
    "swapped": ["%NAME.a = mul i32 %ny, %z", "%NAME.b = add i32 %y, %NAME.a", "%NAME.c = mul i32 %nx, %NAME.b",
                "%NAME = add i32 %x, %NAME.c"],
    "no_z": ["%NAME.c = mul i32 %y, %nx", "%NAME = add i32 %NAME.c, %x"],
    "wrong_size": ["%NAME.a = mul i32 %z, %nx", "%NAME.b = add i32 %NAME.a, %y", "%NAME.c = mul i32 %NAME.b, %nx",
                   "%NAME = add i32 %NAME.c, %x"],
    "doubled": ["%NAME.a = mul i32 %z, %ny", "%NAME.b = add i32 %NAME.a, %y", "%NAME.c = mul i32 %NAME.b, %nx",
                "%NAME.d = add i32 %NAME.c, %x", "%NAME = shl i32 %NAME.d, 1"],
    "plus_one": ["%NAME.a = mul i32 %z, %ny", "%NAME.b = add i32 %NAME.a, %y", "%NAME.c = mul i32 %NAME.b, %nx",
                 "%NAME.d = add i32 %NAME.c, %x", "%NAME = add i32 %NAME.d, 1"],
    "sub_form": ["%NAME.a = mul i32 %z, %ny", "%NAME.b = add i32 %NAME.a, %y", "%NAME.c = mul i32 %NAME.b, %nx",
                 "%NAME.d = add i32 %NAME.c, %x", "%NAME.e = mul i32 %NAME.d, 3", "%NAME.f = mul i32 %NAME.d, -2",
                 "%NAME = add i32 %NAME.e, %NAME.f"],
}
BIN = ("add", "sub", "mul", "and", "or", "xor", "shl", "lshr", "ashr", "udiv", "urem")
PREDS = ("eq", "ne", "ult", "ule", "ugt", "uge", "slt", "sge")
FIXED_BLOCKS = [(64, 1, 1), (16, 4, 1), (32, 2, 1), (8, 8, 1), (48, 3, 1), (5, 7, 3), (33, 2, 2), (1, 32, 2),
                (100, 3, 1), (96, 1, 1), (2, 2, 2), (1024, 1, 1), (32, 32, 1), (20, 3, 7), (128, 4, 2)]
MASK32 = 0xFFFFFFFF


def _threads(block: tuple[int, int, int], wave: int = 64) -> dict[str, np.ndarray]:
    """Every thread of `block`, in linear-id order: its registers (mbcnt.lo/hi under a full mask
    count the hardware lanes below: min(lane, 32) and the lane)."""
    bx, by, bz = block
    lin = np.arange(bx * by * bz, dtype=np.int64)
    return {"%x": lin % bx, "%y": lin // bx % by, "%z": lin // (bx * by), "%nx": np.full_like(lin, bx),
            "%ny": np.full_like(lin, by), "%nz": np.full_like(lin, bz), "%lo": np.minimum(lin % wave, 32),
            "%ln": lin % wave, "lin": lin}


def _s32(v: np.ndarray) -> np.ndarray:
    v = v & MASK32
    return np.where(v >= 1 << 31, v - (1 << 32), v)


def evaluate(lines: list[str], block: tuple[int, int, int], wave: int = 64) -> dict[str, np.ndarray]:
    """Every value the generated body defines, in every thread of `block` (i32 values as
    non-negative int64, i1 as 0/1); None for a value some thread cannot compute (a division by 0)."""
    env: dict[str, np.ndarray | None] = dict(_threads(block, wave))
    n = len(env["lin"])

    def get(tok: str) -> np.ndarray | None:
        if tok in ("true", "false"):
            return np.full(n, int(tok == "true"), dtype=np.int64)
        if tok.lstrip("-").isdigit():
            return np.full(n, int(tok) & MASK32, dtype=np.int64)
        return env[tok]

    for line in lines[len(PROLOGUE):]:
        name, rhs = line.split(" = ", 1)
        words = rhs.replace(",", "").split()
        op = words[0]
        if op == "icmp":
            pred, a, b = words[1], get(words[3]), get(words[4])
            if a is None or b is None:
                env[name] = None
                continue
            if pred.startswith("s"):
                a, b, pred = _s32(a), _s32(b), "u" + pred[1:]
            env[name] = {"eq": a == b, "ne": a != b, "ult": a < b, "ule": a <= b, "ugt": a > b,
                         "uge": a >= b}[pred].astype(np.int64)
            continue
        if op == "select":
            c, a, b = get(words[2]), get(words[4]), get(words[6])
            if words[3] == "i1" and not (c is None or a is None or b is None):
                env[name] = np.where(c == 1, a, b)
                continue
            env[name] = None if c is None or a is None or b is None else np.where(c == 1, a, b)
            continue
        if op == "zext":
            env[name] = get(words[2])
            continue
        if words[1] == "i1":
            a, b = get(words[2]), get(words[3])
            env[name] = None if a is None or b is None else {"and": a & b, "or": a | b, "xor": a ^ b}[op]
            continue
        flags = [w for w in words[1:] if w in ("nuw", "nsw", "exact")]
        a, b = get(words[2 + len(flags)]), get(words[3 + len(flags)])
        if a is None or b is None or (op in ("udiv", "urem") and not b.all()):
            env[name] = None
            continue
        sh = b & 31
        env[name] = {"add": lambda: a + b, "sub": lambda: a - b, "mul": lambda: (a * b),
                     "and": lambda: a & b, "or": lambda: a | b, "xor": lambda: a ^ b, "shl": lambda: a << sh,
                     "lshr": lambda: a >> sh, "ashr": lambda: _s32(a) >> sh,
                     "udiv": lambda: a // np.where(b == 0, 1, b), "urem": lambda: a % np.where(b == 0, 1, b)}[op]() & MASK32
    return env


@st.composite
def bodies(draw) -> tuple[list[str], list[str], list[str]]:
    """(lines, i32 values, i1 values) of a random straight-line body over the prologue: linear ids
    (right and wrong), their low bits, threadIdx.x, and operators on them."""
    lines = list(PROLOGUE)
    ints = ["%x", "%y", "%nx", "%lo", "%ln"]
    bools: list[str] = []
    for k in range(draw(st.integers(1, 2))):
        spelling = draw(st.sampled_from(sorted(RANKS)))
        lines += [s.replace("%NAME", f"%r{k}") for s in RANKS[spelling]]
        mask = draw(st.sampled_from([0, 1, 3, 7, 15, 16, 31, 32, 33, 48, 63, 64, 65, 127, 1023]) | st.integers(0, 70))
        lines.append(f"%m{k} = and i32 %r{k}, {mask}" if draw(st.booleans()) else f"%m{k} = and i32 {mask}, %r{k}")
        ints += [f"%r{k}", f"%m{k}", f"%m{k}"]
    for k in range(draw(st.integers(0, 2))):                       # threadIdx.x's bits
        op = draw(st.sampled_from(["and", "and", "lshr", "shl", "urem", "xor"]))
        lines.append(f"%t{k} = {op} i32 %x, {draw(st.sampled_from([1, 5, 16, 31, 32, 63, 63, 64]))}")
        ints.append(f"%t{k}")
    for k in range(draw(st.integers(1, 7))):
        kind = draw(st.sampled_from(["bin", "bin", "bin", "icmp", "select", "i1"] if bools else ["bin", "bin", "icmp"]))
        if kind == "i1":                                          # a conjunction or disjunction
            c, d = draw(st.sampled_from(bools)), draw(st.sampled_from(bools))
            form = draw(st.sampled_from(["and i1 {c}, {d}", "or i1 {c}, {d}", "select i1 {c}, i1 {d}, i1 false",
                                         "select i1 {c}, i1 true, i1 {d}", "xor i1 {c}, true"]))
            lines.append(f"%e{k} = " + form.format(c=c, d=d))
            bools.append(f"%e{k}")
            continue
        a = draw(st.sampled_from(ints))
        b = draw(st.sampled_from(ints) | st.sampled_from(["0", "1", "5", "16", "31", "32", "63", "-1", "-32", "4096"]))
        tids = [t for t in ints if t.startswith(("%x", "%t", "%l"))]
        if kind != "icmp" and draw(st.booleans()):   # the linear id's bits against threadIdx.x's
            a, b = draw(st.sampled_from([t for t in ints if t.startswith(("%m", "%e"))] or ints)), draw(st.sampled_from(tids))
        if kind == "bin":
            op = draw(st.sampled_from(BIN))
            if draw(st.booleans()):
                a, b = b, a
            if a.lstrip("-").isdigit() and b.lstrip("-").isdigit():
                b = "%x"
            lines.append(f"%e{k} = {op} i32 {a}, {b}")
            ints.append(f"%e{k}")
        elif kind == "icmp":
            lines.append(f"%e{k} = icmp {draw(st.sampled_from(PREDS))} i32 {a}, {b}")
            bools.append(f"%e{k}")
        else:
            c = draw(st.sampled_from(bools))
            if b.lstrip("-").isdigit() and a.lstrip("-").isdigit():
                a = "%x"
            lines.append(f"%e{k} = select i1 {c}, i32 {a}, i32 {b}")
            ints.append(f"%e{k}")
    return lines, ints, bools


BLOCKS = st.tuples(st.integers(1, 1024), st.integers(1, 64), st.integers(1, 64)).filter(
    lambda b: b[0] * b[1] * b[2] <= 1024)


def _function(lines: list[str], wave: int) -> FunctionIR:
    return FunctionIR("k", ["entry:", *(f"  {line}" for line in lines), "  ret void"], [], 0, wave=wave)


def _premise(th: dict[str, np.ndarray], wave: int) -> np.ndarray:
    """Per thread: amd.guard's check holds on its whole wave ((threadIdx.x ^ lane) & 31 == 0)."""
    bad = ((th["%x"] ^ (th["lin"] % wave)) & 31) != 0
    waves = th["lin"] // wave
    bad_wave = np.zeros(waves.max() + 1, dtype=bool)
    np.logical_or.at(bad_wave, waves, bad)
    return ~bad_wave[waves]


def check(lines: list[str], ints: list[str], bools: list[str], blocks: list[tuple[int, int, int]], wave: int,
          fn: FunctionIR | None = None) -> None:
    """Every claim the reader (`fn`, else one built from `lines`) makes about `ints` and `bools`,
    against the oracle in every thread of `blocks`."""
    fn = fn or _function(lines, wave)
    for block in blocks:
        env = evaluate(lines, block, wave)
        th = _threads(block, wave)
        lane = th["lin"] % 32
        for tok in dict.fromkeys(ints):
            vals = env.get(tok)
            if vals is None:
                continue
            bits = fn.linear_bits(tok)
            if bits is not None:
                assert np.array_equal(vals, (th["lin"] % wave) & bits), (tok, block, wave)
            for how in ("b", "c"):
                op = fn.classify(tok, low_bits=how == "b", per_lane=how == "c")
                if op.kind == "const":
                    continue
                keep = 31 if how == "b" else MASK32
                where = _premise(th, wave) if op.from_tid else np.ones(len(lane), dtype=bool)
                if op.kind == "lane":
                    want = np.array(op.lanes, dtype=np.int64)[lane] & keep
                    bad = np.flatnonzero(where & ((vals & keep) != want))
                    assert not bad.size, (tok, how, block, wave, int(th["lin"][bad[0]]), op)
                elif op.kind == "uniform":
                    pass                          # no kernel parameters here: nothing is uniform
        for tok in bools:
            vals = env.get(tok)
            if vals is None:
                continue
            for negate in (False, True):
                holds = (vals == 1) != negate
                premise = _premise(th, wave) if fn.from_tid(tok) else np.ones(len(lane), dtype=bool)
                mask = fn.lane_condition(tok, negate)
                if mask is not None:
                    outside = np.flatnonzero(premise & holds & ((mask >> lane) & 1 == 0))
                    assert not outside.size, (tok, negate, block, wave, int(th["lin"][outside[0]]), hex(mask))
                exact = fn.lane_condition(tok, negate, exact=True)
                if exact is not None:
                    whole = th["lin"] < len(lane) // 32 * 32       # whole warps only
                    sel = premise & whole
                    wrong = np.flatnonzero(sel & (holds != ((exact >> lane) & 1 == 1)))
                    assert not wrong.size, (tok, negate, block, wave, int(th["lin"][wrong[0]]), hex(exact))


@settings(deadline=None, max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(bodies(), st.lists(BLOCKS, min_size=1, max_size=3), st.sampled_from([32, 64]))
def test_the_readers_lane_claims_hold_in_every_thread_of_every_block_shape(body, blocks, wave):
    lines, ints, bools = body
    check(lines, ints, bools, FIXED_BLOCKS + blocks, wave)


@pytest.mark.parametrize("spelling", sorted(RANKS))
@pytest.mark.parametrize("wave", [32, 64])
def test_only_the_linear_ids_spellings_are_linear_bits(spelling, wave):
    """Each right spelling's low bits are read as the lane (every mask below the wave), the near
    misses never; both checked against the oracle in every fixed block shape."""
    right = spelling in ("nested", "cuda", "swapped", "sub_form")
    for mask in (0, 1, 31, 32, 63, 64):
        lines = PROLOGUE + [s.replace("%NAME", "%r") for s in RANKS[spelling]] + [f"%m = and i32 %r, {mask}"]
        fn = _function(lines, wave)
        assert fn.linear_bits("%m") == (mask if right and mask < wave else None), (spelling, mask)
        check(lines, ["%m"], [], FIXED_BLOCKS, wave)


def test_the_oracle_sees_a_wrong_claim():
    """The oracle fails a reader that took a 2-D rank for the linear id (a mutation of its claim)."""
    lines = PROLOGUE + [s.replace("%NAME", "%r") for s in RANKS["no_z"]] + ["%m = and i32 %r, 31"]
    fn = _function(lines, 64)
    fn.__dict__["_linear_memo"] = {"%m": 31}
    with pytest.raises(AssertionError):
        check(lines, ["%m"], [], [(8, 2, 4)], 64, fn)


def test_linear_bits_above_bit_4_are_not_read_off_threadidx_x():
    """Found by the property test above: `(linear id & 32) < threadIdx.x` and `(linear id & 63) ^
    (threadIdx.x & 63)` mix the linear id's bit 5 with threadIdx.x's. amd.guard's premise only makes
    threadIdx.x and the lane agree in bits 4:0; in a (32, 2) block on wave64 (where the premise
    holds) thread 33 has threadIdx.x 1 and linear id 33, so the reader must not evaluate both from
    one thread number (it claimed the compare false on lanes 1..31 and the xor 0 everywhere)."""
    lines = PROLOGUE + [s.replace("%NAME", "%r") for s in RANKS["cuda"]] + [
        "%m = and i32 32, %r", "%e = icmp ult i32 %m, %x",
        "%m6 = and i32 %r, 63", "%x6 = and i32 %x, 63", "%d = xor i32 %m6, %x6"]
    check(lines, ["%d"], ["%e"], [(32, 2, 1), (16, 4, 1), (32, 1, 2)], 64)


def test_mbcnt_lo_alone_is_the_lane_on_wave32_only():
    """Found by the property test: mbcnt.lo(~0, 0) is 32 in the upper half of a wave64, so it is no
    lane map there (it was read as lanes 0..31, evaluated for the low half only); mbcnt.hi over it
    is the lane in both halves."""
    lines = PROLOGUE + ["%s = xor i32 %lo, 1", "%t = xor i32 %ln, 1"]
    check(lines, ["%lo", "%ln", "%s", "%t"], [], [(64, 1, 1), (128, 1, 1)], 64)
    check(lines, ["%lo", "%ln", "%s", "%t"], [], [(64, 1, 1), (128, 1, 1)], 32)
    assert _function(lines, 64).classify("%t", low_bits=True).lanes == tuple(k ^ 1 for k in range(32))
