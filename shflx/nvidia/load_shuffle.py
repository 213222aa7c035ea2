"""Load -> shuffle synthesis (PTXASW, spec/synthesis_notes.md §1): a global load whose address in
lane i equals an earlier load's address in lane i+N becomes `shfl.sync.up/down` of that value.

Why: neighbouring-point stencils load the same words in adjacent lanes; a shuffle can replace the
second memory access. Unlike PTXASW, a cost model decides per load (on Hopper an L1 hit costs about
what the shuffle and its corner-case load cost together, so the default refuses most), and every
rewrite is proven for every launch with Z3 (shflx.nvidia.symbolic.prove_shift).

Public API (`shflx ptx` / `shflx ptxas` call `rewrite`):

    rewrite(module, sm: int, *, cost_model=True, filename=None) -> (module, list[Entry])
        Rewrites `module` (a shflx.nvidia.ptxir.Module) in place and returns it with one Entry per
        redundant load found (rewritten or kept, with the reason). Unproven loads are never touched.
    find(module, filename=None) -> list[Opportunity]      the proven opportunities, no rewrite
    Entry.as_json() -> dict                                one report row

The rewrite of load B (destination b) from load A (value a) with lane delta N, as PTXASW §1.4 but
with a guard that makes it exact for any block shape:
    activemask.b32 m;                      once per basic block, before the first rewritten load
    ok = (m == 0xffffffff) && (%ntid.x % 32 == 0)       full warp whose lanes are tid.x % 32
    shfl.sync.{down N | up -N}.b32 b|q, a, |N|, {0x1f | 0}, m;     (64-bit: one per half)
    and.pred use, ok, q;
    @!use ld... b, [address of B];         the corner case: edge lanes, incomplete warps, odd blocks
With a full warp and %ntid.x % 32 == 0, lane i+N is the thread (tid.x+N, tid.y, tid.z) and every
lane has executed A in this block (PTX ISA §9.7.8.6 shfl.sync: the source must be in membermask,
which `activemask` gives; q is false when lane i+N is outside the warp), which is what the proof
assumes. Other threads' stores between A and B would be a data race (loads are weak, §8).

Candidates: both loads unpredicated, in one basic block, with the same opcode (`ld.global[.nc]`,
32- or 64-bit scalar, no volatile/relaxed/acquire/.cv), in the same memory epoch (no store, atomic,
barrier, fence or call between them)."""
from __future__ import annotations

import random
import time
from dataclasses import dataclass

from ..errors import UsageError
from ..isa import known_nvidia_targets, nvidia_target
from . import ptxir
from .symbolic import Emulation, Load, ShiftProof, emulate, evaluate, prove_shift

MAX_DELTA = 31
_OK_MODS = frozenset({"global", "nc", "ca", "cg", "cs", "lu", "L1::evict_normal", "L1::evict_last",
                      "L1::evict_first", "L1::no_allocate", "L2::64B", "L2::128B", "L2::256B",
                      "b32", "u32", "s32", "f32", "b64", "u64", "s64", "f64"})


@dataclass
class Opportunity:
    """Load `load` (B) can take the value of `source` (A) from lane + delta (proof attached)."""

    function: str
    load: Load
    source: Load
    delta: int
    proof: ShiftProof


@dataclass
class Entry:
    """One report row: a redundant load, whether it was rewritten, and why."""

    function: str
    line: int
    source_line: int
    delta: int
    type: str
    status: str                  # "rewritten" | "kept"
    reason: str
    shuffles: int = 0
    cost_before: float = 0.0
    cost_after: float = 0.0
    assumptions: tuple[str, ...] = ()
    analysis_ms: float = 0.0

    def as_json(self) -> dict:
        return {"kind": "load_shuffle", "function": self.function, "line": self.line,
                "source_line": self.source_line, "delta": self.delta, "type": self.type,
                "status": self.status, "reason": self.reason, "shuffles": self.shuffles,
                "cost_before": round(self.cost_before, 2), "cost_after": round(self.cost_after, 2),
                "assumptions": list(self.assumptions), "analysis_ms": round(self.analysis_ms, 2)}


# ------------------------------------------------------------------------------ candidates

def _candidate_load(ld: Load) -> bool:
    mods = ld.inst.modifiers
    return ld.width in (32, 64) and "global" in mods and all(m in _OK_MODS for m in mods) \
        and not any(m.startswith("v") and m[1:].isdigit() for m in mods)


def _sample_envs() -> list[dict[str, int]]:
    """Two concrete launches (thread in the middle of a warp, moderate sizes) for the cheap
    pre-filter; only deltas that match on both reach the prover."""
    rng = random.Random(1234)
    envs = []
    for lane in (13, 20):
        env = {"tid.x": 64 + lane, "tid.y": rng.randrange(1, 4), "tid.z": rng.randrange(0, 2),
               "ntid.x": 256, "ntid.y": 4, "ntid.z": 2, "ctaid.x": rng.randrange(2, 9),
               "ctaid.y": rng.randrange(2, 9), "ctaid.z": rng.randrange(2, 9),
               "nctaid.x": 64, "nctaid.y": 64, "nctaid.z": 64}
        envs.append(env)
    return envs


class _Sampler:
    """Concrete addresses of each load for tid.x shifted by -31..31 (memoized per load)."""

    def __init__(self, emu: Emulation):
        self.envs = _sample_envs()
        syms = set()
        for ld in emu.loads:
            stack = [ld.addr]
            while stack:
                n = stack.pop()
                if n.op == "sym":
                    syms.add(n.args[0])
                stack.extend(a for a in n.args if hasattr(a, "op"))
        rng = random.Random(99)
        # every parameter, 32-bit size or 64-bit pointer alike, gets a value in 900..3000 (not
        # aligned): only equal addresses are looked for, and this is a pre-filter (the proof decides)
        for env in self.envs:
            for s in sorted(syms):
                if s.startswith("param:") and s not in env:
                    env[s] = rng.randrange(900, 3000)
        self.cache: dict[tuple[int, int], list[int]] = {}
        self.uniform: dict[int, dict[int, int]] = {}

    def addrs(self, ld: Load, k: int) -> list[int]:
        key = (id(ld), k)
        if key not in self.cache:
            base = self.envs[k]
            uniform = self.uniform.setdefault(k, {})
            out = []
            for d in range(-MAX_DELTA, MAX_DELTA + 1):
                env = dict(base)
                env["tid.x"] = base["tid.x"] + d
                out.append(evaluate(ld.addr, env, uniform=uniform))
            self.cache[key] = out
        return self.cache[key]

    def deltas(self, b: Load, a: Load) -> list[int]:
        hits = None
        for k in range(len(self.envs)):
            ab = self.addrs(b, k)[MAX_DELTA]
            aa = self.addrs(a, k)
            ds = {d - MAX_DELTA for d, v in enumerate(aa) if v == ab and d != MAX_DELTA}
            hits = ds if hits is None else hits & ds
        return sorted(hits or (), key=lambda d: (abs(d), d))


def _written_between(emu: Emulation, a: Load, b: Load, reg: str) -> bool:
    insts = emu.blocks[a.block].insts[a.pos + 1:b.pos]
    return any(reg in i.dests() for i in insts)


def find(module: ptxir.Module, filename: str | None = None, timeout_ms: int = 2000) -> list[Opportunity]:
    """Every proven (B, A, N): B may take A's value from lane + N. Each B gets its nearest source
    among loads that are themselves kept (no shuffle chains)."""
    return [op for fn in module.functions if fn.body is not None and fn.kind == "entry"
            for op in _find_fn(fn, filename or module.filename, timeout_ms)[0]]


def _find_fn(fn: ptxir.Function, filename: str, timeout_ms: int) -> tuple[list[Opportunity], Emulation]:
    emu = emulate(fn, filename)
    if emu.unsupported:
        return [], emu
    sampler = _Sampler(emu)
    by_block: dict[int, list[Load]] = {}
    for ld in emu.loads:
        if _candidate_load(ld):
            by_block.setdefault(ld.block, []).append(ld)
    found: list[Opportunity] = []
    for blk, loads in by_block.items():
        kept: list[Load] = []
        for b in loads:
            best = None
            options = []
            for a in kept:
                if a.inst.opcode != b.inst.opcode or a.epoch != b.epoch:
                    continue
                for d in sampler.deltas(b, a):
                    options.append((abs(d), -a.pos, d, a))
            for _, _, d, a in sorted(options, key=lambda o: o[:3]):
                proof = prove_shift(b.addr, a.addr, emu.pc[blk], d, timeout_ms=timeout_ms)
                if proof.status == "proved":
                    best = Opportunity(fn.name, b, a, d, proof)
                    break
            if best is None:
                kept.append(b)
            else:
                found.append(best)
    return found, emu


# ------------------------------------------------------------------------------ cost model

@dataclass(frozen=True)
class CostModel:
    """Cycles of the shared memory-input/output path per warp (SHFL and LDG both issue there).

    A 32-lane load of w-bit words touches ceil(4w/128)+1 128-byte L1 lines when it is not line
    aligned (one L1 wavefront each); the corner-case load of |N| edge lanes touches one line. The
    load still issues for every warp (edge lanes always exist), so the saving is L1 wavefronts and
    the price is the shuffle(s) and two ALU ops. Numbers: `shfl_clk` and `alu_clk` from
    spec/cuda_ptx_shfl.md §7 (measured on H100: SHFL 1 warp-instruction/SM/clk, IMAD 2/clk);
    `line_clk`, one 128-B L1 line per clk, is [estimate] (from the NVIDIA Hopper tuning guide's
    L1/shared bandwidth per SM, not measured here); `issue_clk` and `margin` are [estimate] too: a
    rewrite must win by `margin` (conservative: noise and register pressure are not modelled)."""

    shfl_clk: float = 1.0
    line_clk: float = 1.0
    alu_clk: float = 0.5
    issue_clk: float = 0.5
    margin: float = 0.10

    def load(self, width: int, lanes: int, aligned: bool) -> float:
        lines = max(1, (lanes * width // 8 + 127) // 128) + (0 if aligned else 1)
        return self.issue_clk + lines * self.line_clk

    def before(self, width: int) -> float:
        return self.load(width, 32, aligned=False)

    def after(self, width: int, delta: int) -> float:
        shuffles = width // 32
        return shuffles * self.shfl_clk + 2 * self.alu_clk + self.load(width, abs(delta), aligned=False)


def cost_model_for(sm: int) -> CostModel:
    """The cost model for `sm` (the number: 100 for sm_100a, the arch-specific targets being named
    with a suffix); UsageError for an sm that isa/nvidia does not know. The constants are fixed,
    the same for every target (CostModel's defaults: SHFL and ALU throughput measured on H100,
    spec/cuda_ptx_shfl.md §7; the rest estimates), not read from the target's table."""
    if not any(nvidia_target(n).sm == sm for n in known_nvidia_targets()):
        raise UsageError(f"unknown NVIDIA target sm_{sm}; known: {', '.join(known_nvidia_targets())}")
    return CostModel()


# ------------------------------------------------------------------------------ rewrite

def rewrite(module: ptxir.Module, sm: int, *, cost_model: bool = True,
            filename: str | None = None, timeout_ms: int = 2000) -> tuple[ptxir.Module, list[Entry]]:
    """Find, decide, rewrite (in place). Entries list every proven opportunity, rewritten or not."""
    filename = filename or module.filename
    model = cost_model_for(sm)
    entries: list[Entry] = []
    for fn in module.functions:
        if fn.body is None or fn.kind != "entry":
            continue
        t0 = time.perf_counter()
        opps, emu = _find_fn(fn, filename, timeout_ms)
        chosen = []
        for op in opps:
            w = op.load.width
            before, after = model.before(w), model.after(w, op.delta)
            ok = after <= before * (1 - model.margin)
            status = "rewritten" if ok or not cost_model else "kept"
            if ok:
                reason = f"cost model: {after:.2f} <= {before:.2f} clk/warp"
            elif cost_model:
                reason = f"cost model: shuffle path {after:.2f} vs load {before:.2f} clk/warp (needs a {model.margin:.0%} win)"
            else:
                reason = "cost model off"
            e = Entry(fn.name, op.load.inst.line, op.source.inst.line, op.delta,
                      op.load.inst.modifiers[-1], status, reason, w // 32 if status == "rewritten" else 0,
                      before, after, op.proof.assumptions)
            entries.append(e)
            if status == "rewritten":
                chosen.append(op)
        _apply(fn, emu, chosen)
        ms = (time.perf_counter() - t0) * 1000
        for e in entries:
            if e.function == fn.name:
                e.analysis_ms = ms
    return module, entries


def _apply(fn: ptxir.Function, emu: Emulation, chosen: list[Opportunity]) -> None:
    I = ptxir.Instruction.new  # noqa: E741
    guards: dict[int, tuple[str, str]] = {}
    for op in sorted(chosen, key=lambda o: (o.load.block, o.load.pos)):
        b, a = op.load, op.source
        blk = b.block
        if blk not in guards:
            m, nt = fn.new_reg(".b32"), fn.new_reg(".b32")
            ok0, ok = fn.new_reg(".pred"), fn.new_reg(".pred")
            fn.insert_before(b.inst, [
                I("activemask.b32", [m]),
                I("mov.u32", [nt, "%ntid.x"]),
                I("and.b32", [nt, nt, "31"]),
                I("setp.eq.u32", [ok0, nt, "0"]),
                I("setp.eq.and.u32", [ok, m, "-1", ok0])])
            guards[blk] = (m, ok)
        m, ok = guards[blk]
        src = a.inst.operands[0]
        if _written_between(emu, a, b, src):   # keep A's value: its register is reused before B
            keep = fn.new_reg(f".b{a.width}")
            fn.insert_after(a.inst, [I(f"mov.b{a.width}", [keep, src])])
            src = keep
        dst = b.inst.operands[0]
        addr_regs = set(b.inst.srcs())
        out = fn.new_reg(f".b{b.width}") if dst in addr_regs else dst
        q, use = fn.new_reg(".pred"), fn.new_reg(".pred")
        mode, amount, c = ("down", op.delta, "0x1f") if op.delta > 0 else ("up", -op.delta, "0")
        seq: list[ptxir.Statement] = []
        if b.width == 32:
            seq.append(I(f"shfl.sync.{mode}.b32", [f"{out}|{q}", src, str(amount), c, m]))
        else:
            lo, hi, lo2, hi2 = (fn.new_reg(".b32") for _ in range(4))
            seq += [I("mov.b64", [f"{{{lo}, {hi}}}", src]),
                    I(f"shfl.sync.{mode}.b32", [f"{lo2}|{q}", lo, str(amount), c, m]),
                    I(f"shfl.sync.{mode}.b32", [hi2, hi, str(amount), c, m]),
                    I("mov.b64", [out, f"{{{lo2}, {hi2}}}"])]
        seq.append(I("and.pred", [use, ok, q]))
        seq.append(I(b.inst.opcode, [out, b.inst.operands[1]], pred=use, neg=True))
        if out != dst:
            seq.append(I(f"mov.b{b.width}", [dst, out]))
        fn.replace(b.inst, seq)
