"""shflx.nvidia.symbolic: what the emulator knows about addresses, and that what it does not
understand becomes a thread-varying unknown (never a wrong fact)."""
from __future__ import annotations

from pathlib import Path

import pytest

from shflx.errors import InputError
from shflx.nvidia import ptxir
from shflx.nvidia import symbolic as S

DATA = Path(__file__).parent / "data" / "stencils"

HEAD = """.version 9.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 k_p0, .param .u64 k_p1, .param .u32 k_n)
{
\t.reg .pred %p<8>;
\t.reg .f32 %f<16>;
\t.reg .b32 %r<16>;
\t.reg .b64 %rd<16>;
\tld.param.u64 %rd1, [k_p0];
\tld.param.u64 %rd2, [k_p1];
\tmov.u32 %r1, %tid.x;
\tmov.u32 %r2, %ctaid.x;
\tmov.u32 %r3, %ntid.x;
\tmad.lo.s32 %r4, %r2, %r3, %r1;
"""
TAIL = """
\tadd.s64 %rd9, %rd2, %rd3;
\tst.global.f32 [%rd9], %f3;
\tret;
}
"""


def kernel(body: str) -> ptxir.Function:
    return ptxir.parse(HEAD + body + TAIL, "k.ptx").functions[0]


def loads(body: str) -> tuple[S.Emulation, list[S.Load]]:
    e = S.emulate(kernel(body), "k.ptx")
    return e, e.loads


SIGNED = "\tmul.wide.s32 %rd3, %r4, 4;\n\tadd.s64 %rd4, %rd1, %rd3;\n"
UNSIGNED = "\tmul.wide.u32 %rd3, %r4, 4;\n\tadd.s64 %rd4, %rd1, %rd3;\n"


def test_addresses_are_expressions_of_the_thread():
    e, (a, b) = loads(SIGNED + "\tld.global.f32 %f1, [%rd4];\n\tld.global.f32 %f2, [%rd4+4];\n\tadd.f32 %f3, %f1, %f2;")
    assert a.addr.tv and b.addr.tv                 # both depend on tid.x
    env = {"tid.x": 5, "tid.y": 0, "tid.z": 0, "ctaid.x": 3, "ntid.x": 128, "param:k_p0+0": 0x1000}
    base = S.evaluate(a.addr, env)
    assert S.evaluate(b.addr, env) == base + 4
    assert S.evaluate(a.addr, dict(env, **{"tid.x": 6})) == base + 4


def test_shift_proved_only_for_the_right_delta():
    e, (a, b) = loads(SIGNED + "\tld.global.f32 %f1, [%rd4];\n\tld.global.f32 %f2, [%rd4+4];\n\tadd.f32 %f3, %f1, %f2;")
    pc = e.pc[b.block]
    # lane i's [i+1] is lane i+1's [i] (under the stated no-overflow assumption for int indices)
    p = S.prove_shift(b.addr, a.addr, pc, 1)
    assert p.status == "proved" and p.assumptions == (S.NSW_ASSUMPTION,)
    assert S.prove_shift(b.addr, a.addr, pc, 2).status != "proved"
    assert S.prove_shift(b.addr, a.addr, pc, -1).status != "proved"
    # without the assumption the int index may wrap at INT_MIN: not provable
    assert S.prove_shift(b.addr, a.addr, pc, 1, nsw=False).status != "proved"


def test_unsigned_index_gets_no_assumption():
    # zero extension of an unsigned index: its wrap is defined behaviour, so no no-overflow
    # assumption applies. (It is in fact safe, since the wrapping lane is lane 31, but that needs
    # ctaid.x * ntid.x % 32 == 0, which the prover's abstraction of uniform products does not keep:
    # the answer is "not proven", never a wrong "proved".)
    e, (a, b) = loads(UNSIGNED + "\tld.global.f32 %f1, [%rd4];\n\tld.global.f32 %f2, [%rd4+4];\n\tadd.f32 %f3, %f1, %f2;")
    p = S.prove_shift(b.addr, a.addr, e.pc[b.block], 1)
    assert p.status == "unknown" and "abstraction" in p.reason


def test_refuted_only_with_a_real_counterexample():
    # tid.x alone (no uniform product to abstract): delta 2 has a genuine counterexample
    body = "\tmul.wide.u32 %rd3, %r1, 4;\n\tadd.s64 %rd4, %rd1, %rd3;\n"
    e, (a, b) = loads(body + "\tld.global.f32 %f1, [%rd4];\n\tld.global.f32 %f2, [%rd4+4];\n\tadd.f32 %f3, %f1, %f2;")
    assert S.prove_shift(b.addr, a.addr, e.pc[b.block], 2).status == "refuted"
    assert S.prove_shift(b.addr, a.addr, e.pc[b.block], 1) == S.ShiftProof("proved")


def test_path_condition_bounds_the_index():
    # the stencil1d5 guard (2 <= i < n-2) rules out the wrap: proved exactly with nsw off
    fn = ptxir.parse((DATA / "stencil1d5.ptx").read_text(), "stencil1d5.ptx").functions[0]
    e = S.emulate(fn)
    l0, l1 = e.loads[0], e.loads[1]            # [i-2], [i-1]
    assert S.prove_shift(l1.addr, l0.addr, e.pc[l1.block], 1, nsw=False, timeout_ms=10000).status == "proved"


def test_special_registers_and_loops_are_unknown():
    clock = "\tmov.u32 %r5, %clock;\n\tadd.s32 %r6, %r4, %r5;\n\tmul.wide.s32 %rd3, %r6, 4;\n\tadd.s64 %rd4, %rd1, %rd3;\n"
    e, (a, b) = loads(clock + "\tld.global.f32 %f1, [%rd4];\n\tld.global.f32 %f2, [%rd4+4];\n\tadd.f32 %f3, %f1, %f2;")
    assert S.prove_shift(b.addr, a.addr, e.pc[b.block], 1).status != "proved"
    # a loop-carried index: lanes may be at different trips, so nothing is known across lanes
    loop = SIGNED + """\tmov.u32 %r7, 0;
$L_loop:
\tmul.wide.s32 %rd5, %r7, 4;
\tadd.s64 %rd6, %rd4, %rd5;
\tld.global.f32 %f1, [%rd6];
\tld.global.f32 %f2, [%rd6+4];
\tadd.f32 %f3, %f1, %f2;
\tadd.s32 %r7, %r7, %r4;
\tsetp.lt.s32 %p1, %r7, 100;
\t@%p1 bra $L_loop;"""
    e, (a, b) = loads(loop)
    assert a.block in e.loop_blocks
    assert S.prove_shift(b.addr, a.addr, e.pc[b.block], 1).status != "proved"


def test_branch_merges_with_ite_and_path_conditions():
    body = SIGNED + """\tsetp.lt.s32 %p1, %r1, 16;
\t@%p1 bra $L_a;
\tmov.u32 %r8, 4;
\tbra.uni $L_j;
$L_a:
\tmov.u32 %r8, 8;
$L_j:
\tcvt.u64.u32 %rd5, %r8;
\tadd.s64 %rd6, %rd4, %rd5;
\tld.global.f32 %f1, [%rd6];
\tmov.f32 %f3, %f1;"""
    e, (a,) = loads(body)
    env = {"tid.y": 0, "tid.z": 0, "ctaid.x": 0, "ntid.x": 128, "param:k_p0+0": 0}
    assert S.evaluate(a.addr, dict(env, **{"tid.x": 3})) == 3 * 4 + 8
    assert S.evaluate(a.addr, dict(env, **{"tid.x": 20})) == 20 * 4 + 4
    assert e.pc[a.block] is S.TRUE or S.evaluate(e.pc[a.block], dict(env, **{"tid.x": 3})) == 1


def test_declaration_is_an_input_error():
    m = ptxir.parse(".version 9.0\n.target sm_90\n.address_size 64\n.extern .func f(.param .b32 x);\n", "d.ptx")
    with pytest.raises(InputError, match="d.ptx"):
        S.emulate(m.functions[0], "d.ptx")


@pytest.mark.parametrize("ptx_type, extension", [("s8", "sext"), ("s16", "sext"), ("u8", "zext"), ("b16", "zext")])
def test_subword_loads_extend_as_the_hardware_does(ptx_type, extension):
    """ld.s8/.s16 into a 32-bit register sign-extends, .u/.b zero-extend (measured on the H100:
    byte 0x80 loads as 0xffffff80 with .s8, 0x80 with .u8): an index loaded that way must reach
    the next address through the same extension."""
    _, ls = loads(SIGNED + f"\tld.global.{ptx_type} %r5, [%rd4];\n\tmul.wide.s32 %rd5, %r5, 4;\n"
                  "\tadd.s64 %rd6, %rd1, %rd5;\n\tld.global.f32 %f3, [%rd6];")
    assert f"sext({extension}(uf('mem0.global." in str(ls[-1].addr)


def test_the_hash_consing_table_frees_nodes_nobody_holds():
    """Equal structure is one object while alive; a finished emulation's nodes are freed (the
    table used to grow for the whole process)."""
    import gc

    from shflx.nvidia import symbolic as s

    gc.collect()
    before = len(s._INTERN)
    nodes = [s.binop("add", s.sym(f"shflx_test_{k}", 32), s.const(k, 32)) for k in range(500)]
    assert s.binop("add", s.sym("shflx_test_7", 32), s.const(7, 32)) is nodes[7]
    assert len(s._INTERN) >= before + 1000
    ids = {n.id for n in nodes}
    del nodes
    gc.collect()
    assert len(s._INTERN) <= before + 5
    fresh = s.binop("add", s.sym("shflx_test_7", 32), s.const(7, 32))
    assert fresh.id not in ids                        # ids are never reused
