"""PTX mbarrier on AMD (shflx/ir/ptxmbarrier.py): what each instruction becomes (helper, operands,
LLVM ordering and scope), and the helpers' encoding run on the host (llvmlite's JIT) against a
model written from the PTX ISA 8.7, 9.7.13.15: pending / expected arrival counts, tx-count, phase."""
from __future__ import annotations

import ctypes
import random
import re

import llvmlite.binding as llvm
import numpy as np
import pytest

from shflx.driver.amd import compile_file
from shflx.errors import InputError
from shflx.ir import ptxmbarrier
from shflx.ir.ptxblock import PtxBlockError, translate
from tests.reference.ir_eval import Lanes

INPUTS = [("i32", "%a"), ("i32", "%c"), ("i64", "%s")]       # $1 the barrier's LDS address, $2 a count, $3 a state


def _tr(block: str, outs: tuple = ("i64",)):
    return translate(block, list(outs), INPUTS, {}, "t", 32, "%r" if outs else None)


def _call(tr) -> str:
    return next(ln for ln in tr.lines if "@shflx.mbarrier." in ln)


@pytest.mark.parametrize("block, outs, helper, args", [
    ("mbarrier.init.shared.b64 [$0], $1;", (), "shflx.mbarrier.init", "i32 %c"),
    ("mbarrier.arrive.shared.b64 $0, [$1]; // 1.", ("i64",), "update.release.workgroup", "i32 1, i32 0, i32 0"),
    ("mbarrier.arrive.shared::cta.b64 $0, [$1], $2;", ("i64",), "update.release.workgroup", "i32 %c, i32 0, i32 0"),
    ("mbarrier.arrive.relaxed.cluster.shared::cta.b64 $0, [$1], 3;", ("i64",), "update.monotonic.agent",
     "i32 3, i32 0, i32 0"),
    ("mbarrier.arrive.noComplete.shared.b64 $0, [$1], $2;", ("i64",), "update.release.workgroup", "i32 %c, i32 0, i32 0"),
    ("mbarrier.arrive_drop.shared.b64 $0, [$1];", ("i64",), "update.release.workgroup", "i32 1, i32 1, i32 0"),
    ("mbarrier.arrive_drop.noComplete.shared.b64 $0, [$1], $2;", ("i64",), "update.release.workgroup",
     "i32 %c, i32 %c, i32 0"),
    ("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 $0, [$1], $2;", ("i64",), "update.release.workgroup",
     "i32 1, i32 0, i32 %c"),
    ("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [$0], $1;", (), "update.monotonic.workgroup", "i32 0, i32 0, i32 %c"),
    ("cp.async.mbarrier.arrive.shared.b64 [$0];", (), "update.release.workgroup", "i32 0, i32 0, i32 0"),
    ("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [$0];", (), "update.release.workgroup", "i32 1, i32 0, i32 0"),
    ("{ .reg .pred p; mbarrier.test_wait.shared.b64 p, [$1], $3; selp.b32 $0, 1, 0, p; }", ("i32",),
     "test.acquire.workgroup", "i64 %s"),
    ("{ .reg .pred p; mbarrier.try_wait.relaxed.cta.shared::cta.b64 p, [$1], $3, 1000; selp.b32 $0, 1, 0, p; }",
     ("i32",), "test.monotonic.workgroup", "i64 %s"),
    ("{.reg .pred %p;mbarrier.test_wait.parity.shared.b64 %p, [$1], $2;selp.u16 $0, 1, 0, %p;}", ("i16",),
     "parity.acquire.workgroup", "i32 %c"),
    ("{ .reg .pred p; mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [$1], $2; selp.b32 $0, 1, 0, p; }",
     ("i32",), "parity.acquire.agent", "i32 %c"),
])
def test_each_form_calls_its_helper_with_arrivals_drops_and_tx(block, outs, helper, args):
    """PTX ISA 8.7, 9.7.13.15 (mbarrier.arrive, arrive_drop, expect_tx, test_wait): arrive counts 1 unless a count is given, arrive_drop also drops as
    many, .expect_tx adds its operand to the tx-count; cp.async.mbarrier.arrive (the copies are
    done) changes nothing but is a release; suspend-time hints are not operands of the test."""
    call = _call(_tr(block, outs))
    assert re.search(rf"@shflx\.mbarrier\.{re.escape(helper.removeprefix('shflx.mbarrier.'))}\(i1 true, "
                     rf"ptr addrspace\(3\) %t\.\d+, {re.escape(args)}\)", call), call


@pytest.mark.parametrize("order, scope, want", [
    ("release", "workgroup", 'cmpxchg ptr addrspace(3) %bar, i64 %old, i64 %new syncscope("workgroup") release monotonic'),
    ("monotonic", "agent", 'cmpxchg ptr addrspace(3) %bar, i64 %old, i64 %new syncscope("agent") monotonic monotonic'),
])
def test_an_arrive_is_a_compare_and_swap_at_the_ptx_order_and_scope(order, scope, want):
    assert want in ptxmbarrier.helper_ir("update", order, scope)


def test_a_wait_is_one_acquire_load_and_no_loop():
    """try_wait never blocks: one test, false while the phase is incomplete (the caller loops)."""
    ir = ptxmbarrier.helper_ir("test", "acquire", "workgroup")
    assert 'load atomic i64, ptr addrspace(3) %bar syncscope("workgroup") acquire, align 8' in ir
    assert ir.count("load") == 1 and "label %loop" not in ir and "cmpxchg" not in ir


def test_a_guarded_arrive_and_a_generic_address():
    tr = _tr("{ .reg .pred p; setp.ne.b32 p, $2, 0; mov.b64 $0, 0; @p mbarrier.arrive.b64 $0, [$3]; }")
    call = _call(tr)
    assert "(i1 true" not in call and re.search(r"\(i1 %t\.\d+, ptr addrspace\(3\) %t\.\d+", call)
    assert any(re.search(r"addrspacecast ptr %t\.\d+ to ptr addrspace\(3\)", ln) for ln in tr.lines)


def test_a_sink_destination_and_inval():
    tr = _tr("mbarrier.arrive_drop.shared.b64 _, [$0]; mbarrier.inval.shared.b64 [$0];", ())
    assert sum("@shflx.mbarrier." in ln for ln in tr.lines) == 1


@pytest.mark.parametrize("block, fragment", [
    ("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [$1];", "no thread-block clusters"),
    ("mbarrier.arrive.acquire.shared.b64 $0, [$1];", "unexpected qualifier .acquire"),
    ("mbarrier.test_wait.shared.b32 $0, [$1], $3;", "ends in .b64"),
    ("mbarrier.arrive.expect_tx.shared.b64 $0, [$1];", "wrong number of operands"),
])
def test_forms_without_a_meaning_are_named(block, fragment):
    with pytest.raises(PtxBlockError) as e:
        _tr(block)
    assert fragment in str(e.value)


def test_pending_count_reads_the_state_an_arrive_returned():
    tr = translate("mbarrier.pending_count.b64 $0, $1;", ["i32"], [("i64", "%s")], {}, "t", 32, "%r")
    states = np.array([(5 << 61) | (7 << 40) | (300 << 20) | 299, 1 << 20, 0], dtype=object)
    lanes = Lanes(3, {"%s": states})
    lanes.run(tr.lines)
    assert list(lanes.env["%r"]) == [299, 0, 0]


# ------------------------------------------------------------------ the encoding, run on the host


class Model:
    """An mbarrier as the PTX ISA 8.7 describes it (9.7.13.15: contents, phase completion,
    init, arrive / arrive_drop / expect_tx, test_wait): fields, not bits."""

    def __init__(self, count: int):
        self.phase, self.pending, self.expected, self.tx = 0, count, count, 0

    def update(self, arrive: int, drop: int, tx: int) -> tuple[int, int]:
        before = (self.phase, self.pending)
        self.expected -= drop
        self.pending -= arrive
        self.tx += tx
        if self.pending == 0 and self.tx == 0:
            self.phase, self.pending, self.tx = self.phase + 1, self.expected, 0
        return before


@pytest.fixture(scope="module")
def helpers():
    """The helpers compiled for the host: LDS pointers and workgroup scope become plain ones (the
    x86 lowering of the same orderings), so each is a function of a 64-bit word in memory."""
    text = "".join(ptxmbarrier.helper_ir(op, order, "workgroup") for op, order in
                   (("init", None), ("update", "release"), ("test", "acquire"), ("parity", "acquire")))
    text = text.replace("ptr addrspace(3)", "ptr").replace(' syncscope("workgroup")', "")
    mod = llvm.parse_assembly(text.replace("define internal", "define").replace(" alwaysinline", ""))
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    engine = llvm.create_mcjit_compiler(mod, llvm.Target.from_default_triple().create_target_machine())
    engine.finalize_object()
    c = ctypes
    sig = {"init": c.CFUNCTYPE(None, c.c_bool, c.c_void_p, c.c_uint32),
           "update.release.workgroup": c.CFUNCTYPE(c.c_uint64, c.c_bool, c.c_void_p, c.c_uint32, c.c_uint32, c.c_int32),
           "test.acquire.workgroup": c.CFUNCTYPE(c.c_bool, c.c_bool, c.c_void_p, c.c_uint64),
           "parity.acquire.workgroup": c.CFUNCTYPE(c.c_bool, c.c_bool, c.c_void_p, c.c_uint32)}
    fns = {k: f(engine.get_function_address(f"shflx.mbarrier.{k}")) for k, f in sig.items()}
    return engine, fns


@pytest.mark.parametrize("seed", range(40))
def test_the_encoding_follows_the_ptx_phases(helpers, seed):
    """Random valid sequences (arrivals with counts, drops, expect-tx / complete-tx, tx-count
    ahead of arrivals and behind): each arrive's state gives the pending count before it and
    tests complete exactly when its phase has; parity tests follow the phase; a false guard
    changes nothing."""
    _, f = helpers
    rng = random.Random(seed)
    word = ctypes.c_uint64(0)
    at = ctypes.addressof(word)
    count = rng.choice([1, 2, 3, 7, 64, 1000, (1 << 20) - 1])
    f["init"](True, at, count)
    m = Model(count)
    tokens = []
    for _ in range(300):
        if m.expected == 0:
            break
        kind = rng.random()
        if kind < 0.15 and m.tx > -(1 << 19):      # complete-tx, possibly before the matching expect-tx
            t = -rng.randint(1, 5000)
        elif kind < 0.3 and m.tx < (1 << 19):
            t = rng.randint(1, 5000)
        else:
            t = 0
        if t and m.pending == 0 and m.tx + t != 0 and rng.random() < 0.5:
            t = -m.tx                              # bring the tx-count back to zero: the phase completes
        arrive = 0 if t < 0 or m.pending == 0 else rng.randint(1, min(m.pending, 3))
        drop = arrive if arrive and m.expected > arrive and rng.random() < 0.3 else 0
        if not (arrive or t):
            continue
        if rng.random() < 0.05:                    # a false guard: no change
            f["update.release.workgroup"](False, at, arrive, drop, t)
        state = f["update.release.workgroup"](True, at, arrive, drop, t)
        phase, pending = m.update(arrive, drop, t)
        assert state & ptxmbarrier.COUNT_MASK == pending          # what mbarrier.pending_count reads
        tokens.append((state, phase))
        tokens = [(s, p) for s, p in tokens if m.phase - p <= 1]   # test_wait: current or preceding
        for s, p in tokens:
            assert f["test.acquire.workgroup"](True, at, s) == (m.phase > p)
        assert f["parity.acquire.workgroup"](True, at, m.phase % 2) is False
        assert f["parity.acquire.workgroup"](True, at, (m.phase + 1) % 2) is True


def test_cuda_barrier_in_shared_memory_compiles_for_amd(tmp_path):
    """libcu++'s cuda::barrier<thread_scope_block> (init, arrive, wait, arrive_and_drop) and the
    shuffle of a __shared__ address (a constant expression in the IR) reach the code object."""
    src = tmp_path / "b.cu"
    src.write_text("#include <cuda/barrier>\n__global__ void k(int *p) {\n"
                   "  __shared__ cuda::barrier<cuda::thread_scope_block> b; __shared__ int s[64];\n"
                   "  if (threadIdx.x == 0) init(&b, blockDim.x);\n  __syncthreads();\n"
                   "  s[threadIdx.x] = p[threadIdx.x]; b.arrive_and_wait();\n"
                   "  p[threadIdx.x] = s[63 - threadIdx.x] + (int)__shfl_sync(~0u, (unsigned)__cvta_generic_to_shared(&s[16]), 1);\n"
                   "  b.arrive_and_drop();\n}\n")
    ir = compile_file(src, "gfx1100", emit="llvm").output
    text = ir.decode() if isinstance(ir, bytes) else ir
    assert "cmpxchg" in text and 'syncscope("workgroup") acquire' in text
    with pytest.raises(InputError):       # still one line for what has no meaning: a cluster's barrier
        bad = tmp_path / "c.cu"
        bad.write_text("__global__ void k(unsigned a) {\n  asm volatile(\"mbarrier.arrive.release.cluster."
                       "shared::cluster.b64 _, [%0];\" :: \"r\"(a) : \"memory\");\n}\n")
        compile_file(bad, "gfx942", emit="llvm")
