"""Shuffle sites and chains in PTX, and the redux.sync rewrite (shflx.nvidia.sites / redux / ptxpass).

Kernels are generated here, so the expected outcome follows from the math of each shape:
a butterfly over all five lane bits (any order) leaves the warp total in every lane; a down-tree
leaves it in lane 0 only; anything else is not a whole-warp reduction. With ptxas on PATH the
rewritten PTX is also assembled."""
from __future__ import annotations

import itertools
import subprocess

import pytest

from shflx.nvidia import ptxir
from shflx.nvidia.ptxpass import run
from shflx.nvidia.sites import find_chains, find_sites, parse_int

from conftest import ptxas_path

OPS = {  # PTX combine -> the redux.sync it must become
    "add.s32": "redux.sync.add.s32", "add.u32": "redux.sync.add.u32",
    "min.s32": "redux.sync.min.s32", "max.s32": "redux.sync.max.s32",
    "min.u32": "redux.sync.min.u32", "max.u32": "redux.sync.max.u32",
    "and.b32": "redux.sync.and.b32", "or.b32": "redux.sync.or.b32", "xor.b32": "redux.sync.xor.b32",
}


def kernel(steps, op="add.s32", use="all", mask="-1", mid_use=False, target="sm_90", version="8.0",
           consts_in_regs=False) -> str:
    """One .entry: load x, run `steps` [(mode, b, c)] each shuffling the previous combined value
    and combining it with `op`, then use the result (`all`: every lane stores it; `lane0`: only
    lane 0 stores, behind a branch; `bcast`: a shfl.idx from lane 0 first; `selp`: lane 0 keeps it)."""
    lines = [f".version {version}", f".target {target}", ".address_size 64", "",
             ".visible .entry k(", "\t.param .u64 k_in,", "\t.param .u64 k_out", ")", "{",
             "\t.reg .pred \t%p<40>;", "\t.reg .b32 \t%r<100>;", "\t.reg .b64 \t%rd<10>;", "",
             "\tld.param.u64 \t%rd1, [k_in];", "\tld.param.u64 \t%rd2, [k_out];",
             "\tmov.u32 \t%r1, %tid.x;", "\tmul.wide.u32 \t%rd3, %r1, 4;", "\tadd.s64 \t%rd4, %rd1, %rd3;",
             "\tadd.s64 \t%rd5, %rd2, %rd3;", "\tld.global.u32 \t%r2, [%rd4];"]
    prev = "%r2"
    if consts_in_regs:
        lines.append(f"\tmov.u32 \t%r3, {mask};")
        mask = "%r3"
    for k, (mode, b, c) in enumerate(steps):
        s, r = f"%r{10 + 2 * k}", f"%r{11 + 2 * k}"
        if consts_in_regs:
            lines.append(f"\tmov.u32 \t%r{60 + k}, {b};")
            b = f"%r{60 + k}"
        lines.append(f"\tshfl.sync.{mode}.b32 \t{s}|%p{k + 1}, {prev}, {b}, {c}, {mask};")
        lines.append(f"\t{op} \t{r}, {prev}, {s};")
        if mid_use and k == 1:
            lines.append(f"\tst.global.u32 \t[%rd5+4096], {r};")
        prev = r
    if use == "all":
        lines.append(f"\tst.global.u32 \t[%rd5], {prev};")
    elif use == "lane0":
        lines += ["\tmov.u32 \t%r90, %laneid;", "\tsetp.ne.u32 \t%p30, %r90, 0;", "\t@%p30 bra \t$L__end;",
                  f"\tst.global.u32 \t[%rd5], {prev};", "$L__end:"]
    elif use == "bcast":
        lines += [f"\tshfl.sync.idx.b32 \t%r91, {prev}, 0, 31, -1;", "\tst.global.u32 \t[%rd5], %r91;"]
    elif use == "selp":
        lines += ["\tand.b32 \t%r92, %r1, 31;", "\tsetp.eq.s32 \t%p31, %r92, 0;",
                  f"\tselp.b32 \t%r93, {prev}, 0, %p31;", "\tst.global.u32 \t[%rd5], %r93;"]
    lines += ["\tret;", "}", ""]
    return "\n".join(lines)


def bfly(order, width=32):
    return [("bfly", o, ((32 - width) << 8) | 31) for o in order]


def down(order):
    return [("down", o, 31) for o in order]


def _ptxas_ok(text: str, target: str, tmp_path) -> None:
    ptxas = ptxas_path()
    if ptxas is None:
        return
    f = tmp_path / "x.ptx"
    f.write_text(text)
    r = subprocess.run([ptxas, f"-arch={target}", str(f), "-o", str(tmp_path / "x.cubin")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def _one_chain(text: str, sm=None):
    r = run(text, "t.ptx", sm=sm, load_shuffle=False)
    assert len(r.chains) == 1, r.chains
    return r, r.chains[0]


def _rewritten_to(r, opcode: str, guarded: bool = False) -> None:
    c = r.chains[0]
    assert c["status"] == "rewritten", c["reason"]
    assert c["proof"] == "proved" and c["family"] == "redux.sync"
    instrs = [i for f in r.module.functions for i in f.instructions()]
    assert [i.opcode for i in instrs if i.base == "redux"] == [opcode]
    red = next(i for i in instrs if i.base == "redux")
    assert red.operands[1] == "%r2" and parse_int(red.operands[2]) == 0xFFFFFFFF
    chain_shfl = [i for i in instrs if i.base == "shfl" and "idx" not in i.modifiers]
    if not guarded:
        assert chain_shfl == [] and red.pred is None          # the whole chain is gone
        return
    # lanes read off threadIdx.x: redux.sync under the block-shape guard, the chain under its negation
    assert "threadIdx.x" in c["reason"] and len(chain_shfl) == c["shuffles"]
    assert red.pred is not None and not red.neg
    assert all(i.pred == red.pred and i.neg for i in chain_shfl)
    guard = [i for i in instrs if any(i.dests() == [d] for d in [red.pred])]
    assert [i.opcode for i in guard] == ["setp.eq.and.u32", "or.pred"]
    assert {"%ntid.x", "%ntid.y", "%ntid.z"} <= {o for i in instrs for o in i.operands}


@pytest.mark.parametrize("order", list(itertools.permutations([16, 8, 4, 2, 1])))
def test_every_butterfly_order_of_an_add_becomes_redux(order):
    r, _ = _one_chain(kernel(bfly(order)))
    _rewritten_to(r, "redux.sync.add.s32")


@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("order", [(16, 8, 4, 2, 1), (1, 2, 4, 8, 16), (4, 16, 1, 8, 2)])
def test_butterflies_of_every_op_and_signedness(op, order, tmp_path):
    text = kernel(bfly(order), op=op, consts_in_regs=order[0] == 1)
    r, c = _one_chain(text)
    _rewritten_to(r, OPS[op])
    assert c["shape"] == "butterfly" and c["width"] == 32 and c["shuffles"] == 5
    assert c["location"] == f"t.ptx:{text.splitlines().index(next(l for l in text.splitlines() if 'shfl' in l)) + 1}"
    _ptxas_ok(r.text, "sm_90", tmp_path)


@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("order", [(16, 8, 4, 2, 1), (1, 2, 4, 8, 16)])
@pytest.mark.parametrize("use", ["lane0", "bcast", "selp"])
def test_down_trees_read_by_lane_0_become_redux(op, order, use, tmp_path):
    r, c = _one_chain(kernel(down(order), op=op, use=use))
    _rewritten_to(r, OPS[op], guarded=use == "selp")
    assert c["shape"] == "down-tree"
    assert ("lanes 0" in c["live"]) or ("on lanes 0" in c["live"])
    if use == "selp":
        assert any("threadIdx.x % 32" in n for n in c["notes"])
    _ptxas_ok(r.text, "sm_90", tmp_path)


@pytest.mark.parametrize("op", ["add.s32", "xor.b32", "min.u32"])
def test_down_tree_read_by_every_lane_is_kept(op):
    text = kernel(down((16, 8, 4, 2, 1)), op=op, use="all")
    r, c = _one_chain(text)
    assert c["status"] == "unchanged" and "live lanes do not hold" in c["reason"]
    assert r.text == text
    # for idempotent ops too: lane 31 of a down-tree only ever sees itself


@pytest.mark.parametrize("case, words", [
    (dict(steps=bfly((16, 8, 4, 2, 1)), mask="0xffff"), "member mask"),
    (dict(steps=bfly((16, 8, 4, 2, 1)), mid_use=True), "used between steps"),
    (dict(steps=bfly((16, 8, 4, 2))), "strided reduction over lane bits 0x1e"),
    (dict(steps=bfly((8, 4, 2, 1), width=16)), "width-16 reduction"),
    (dict(steps=bfly((16, 8, 4, 2, 1)), op="add.f32"), "float add"),
    (dict(steps=bfly((16, 8, 4, 2, 1)), op="max.f32"), "not available on sm_90"),
    (dict(steps=bfly((16, 8, 4, 2, 1)), op="mul.lo.s32"), "no mul"),
    (dict(steps=bfly((16, 8, 4, 2, 1)), target="sm_75"), "not available on sm_75"),
    (dict(steps=bfly((16, 8, 4, 2, 1)), version="6.5"), "needs PTX ISA 7.0"),
    (dict(steps=[("up", 1, 0), ("up", 2, 0), ("up", 4, 0), ("up", 8, 0), ("up", 16, 0)]),
     "do not hold a reduction"),
])
def test_not_a_whole_warp_integer_reduction_is_kept_with_its_reason(case, words):
    text = kernel(**case)
    r, c = _one_chain(text)
    assert c["status"] == "unchanged" and words in c["reason"], c["reason"]
    assert r.text == text                       # byte for byte


def test_runtime_operands_are_dynamic_and_keep_the_chain():
    text = kernel(bfly((16, 8, 4, 2, 1))).replace("16, 31, -1;", "%r1, 31, -1;")
    r, c = _one_chain(text)
    assert c["status"] == "unchanged" and "runtime b operand %r1" in c["reason"]
    first = r.sites[0]
    assert first["class"] == "dynamic" and first["b"] == "%r1" and first["chain"] == 0


def test_f32_min_max_become_redux_only_on_sm_100a(tmp_path):
    text = kernel(bfly((16, 8, 4, 2, 1)), op="min.f32", target="sm_100a", version="8.6")
    r, c = _one_chain(text)
    assert c["status"] == "rewritten"
    assert [i.opcode for i in r.module.functions[0].instructions() if i.base == "redux"] == ["redux.sync.min.f32"]
    _ptxas_ok(r.text, "sm_100a", tmp_path)
    # --sm names a second GPU: the rewrite must be legal there too
    _, c2 = _one_chain(text, sm="sm_90")
    assert c2["status"] == "unchanged" and "sm_90" in c2["reason"]
    # PTX 8.6 is what .f32 redux needs
    _, c3 = _one_chain(kernel(bfly((16, 8, 4, 2, 1)), op="max.f32", target="sm_100a", version="8.5"))
    assert c3["status"] == "unchanged" and "8.6" in c3["reason"]


def test_sites_report_operands_classes_and_lines():
    text = kernel(bfly((16, 8, 4, 2, 1)), use="bcast")
    mod = ptxir.parse(text, "t.ptx")
    sites = find_sites(mod)
    assert [s.mode for s in sites] == ["bfly"] * 5 + ["idx"]
    assert [s.b.const for s in sites] == [16, 8, 4, 2, 1, 0]
    assert all(s.mask.const == 0xFFFFFFFF and s.c.const == 31 for s in sites)
    assert [s.cls() for s in sites] == ["xor"] * 5 + ["broadcast"]
    assert sites[0].cuda() == "__shfl_xor_sync(0xffffffff, v, 16, 32)"
    assert sites[0].pred_out == "%p1" and sites[-1].pred_out is None
    lines = text.splitlines()
    assert [s.line for s in sites] == [k + 1 for k, ln in enumerate(lines) if "shfl" in ln]
    chains = find_chains(mod, sites)
    assert len(chains) == 1 and len(chains[0].sites) == 5     # the broadcast is not a step
    r = run(text, "t.ptx", load_shuffle=False)
    assert [s["location"] for s in r.sites] == [f"t.ptx:{s.line}" for s in sites]
    assert [s["chain"] for s in r.sites] == [0] * 5 + [None]


def test_legacy_shfl_is_a_site_but_never_rewritten():
    text = kernel(bfly((16, 8, 4, 2, 1)), target="sm_75", version="6.3")
    text = text.replace("shfl.sync.bfly.b32", "shfl.bfly.b32").replace(", 31, -1;", ", 31;")
    r = run(text, "t.ptx", load_shuffle=False)
    assert len(r.sites) == 5 and all(s["legacy"] for s in r.sites)
    assert r.sites[0]["cuda"] == "__shfl_xor(v, 16, 32)"
    assert r.chains == [] and r.text == text


def test_parse_int_reads_ptx_literals():
    assert [parse_int(t) for t in ("31", "-1", "0x1f", "0xffffffff", "4294967295U", "017", "0b101", "%r1")] == \
        [31, 0xFFFFFFFF, 31, 0xFFFFFFFF, 0xFFFFFFFF, 15, 5, None]


LOOP_CARRIED = """.version 8.0
.target sm_90
.address_size 64

.visible .entry k(
	.param .u64 k_in
)
{
	.reg .pred 	%p<10>;
	.reg .b32 	%r<60>;
	.reg .b64 	%rd<6>;

	ld.param.u64 	%rd1, [k_in];
	ld.global.u32 	%r1, [%rd1];
	shfl.sync.bfly.b32 	%r3|%p3, %r1, 16, 31, -1;
	add.s32 	%r2, %r1, %r3;
	mov.u32 	%r50, 0;
$L__loop:
	shfl.sync.bfly.b32 	%r10|%p1, %r2, 1, 31, -1;
	add.s32 	%r11, %r2, %r10;
	shfl.sync.bfly.b32 	%r12|%p2, %r11, 2, 31, -1;
	add.s32 	%r2, %r11, %r12;
	add.s32 	%r50, %r50, 1;
	setp.lt.s32 	%p9, %r50, 4;
	@%p9 bra 	$L__loop;
	st.global.u32 	[%rd1], %r2;
	ret;
}
"""


def test_a_loop_carried_chain_does_not_hang_the_chain_finder():
    """A chain whose result feeds its own first shuffle again through the loop (DeepSpeed's
    softmax has one) used to send find_chains round the loop forever."""
    import threading

    found: list = []
    worker = threading.Thread(target=lambda: found.append(find_chains(ptxir.parse(LOOP_CARRIED, "loop.ptx"))),
                              daemon=True)
    worker.start()
    worker.join(timeout=60)
    assert found, "find_chains did not return within 60 s"
    (chain,) = found[0]
    assert len(chain.sites) == 3            # the step before the loop, then one round of the loop
    assert chain.reason and "label" in chain.reason     # never a collective: the loop repeats its steps
