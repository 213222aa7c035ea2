"""The PTX reader/writer (shflx.nvidia.ptxir): round trips through ptxas on real nvcc output,
structure of hand-written PTX, splicing and register allocation, and errors with file:line.

The nvcc-based tests compile every patterns/kernels/*/kernel.cu (and benchmarks/nvidia/**/*.cu)
for sm_90 and sm_80 at -O3, and for sm_90 with -G and -lineinfo; the PTX is cached in the temp
dir keyed by the sources, nvcc's version and the flags. They skip without nvcc/ptxas."""
from __future__ import annotations

import hashlib
import io
import shutil
import subprocess
import tempfile
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from shflx.errors import InputError
from shflx.nvidia import ptxir as P

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = (("sm_90", "-O3"), ("sm_80", "-O3"), ("sm_90", "-G"), ("sm_90", "-lineinfo"))


def _sources() -> dict[str, Path]:
    out = {p.parent.name: p for p in sorted((ROOT / "patterns" / "kernels").glob("*/kernel.cu"))}
    for p in sorted((ROOT / "benchmarks" / "nvidia").rglob("*.cu")):
        out["bench_" + "_".join(p.relative_to(ROOT / "benchmarks" / "nvidia").with_suffix("").parts)] = p
    return out


def _nvcc_batch(names: list[str], src: dict[str, Path], sm: str, flag: str, out: Path) -> subprocess.Popen:
    """One nvcc process for a batch of files (nvcc's start-up dominates: ~0.6 s a file batched)."""
    for n in names:
        link = out / f"{n}.cu"
        if not link.exists():
            link.symlink_to(src[n])
    return subprocess.Popen(["nvcc", "-ptx", f"-arch={sm}", flag, *[f"{n}.cu" for n in names]],
                            cwd=out, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


@pytest.fixture(scope="module")
def corpus() -> dict[tuple[str, str, str], str]:
    """(config sm, flag, name) -> PTX text produced by nvcc."""
    if shutil.which("nvcc") is None or shutil.which("ptxas") is None:
        pytest.skip("nvcc/ptxas not found on PATH")
    src = _sources()
    version = subprocess.run(["nvcc", "--version"], capture_output=True, text=True).stdout
    h = hashlib.sha256(version.encode())
    for n, p in sorted(src.items()):
        h.update(n.encode() + p.read_bytes())
    base = Path(tempfile.gettempdir()) / "shflx-ptx-cache" / h.hexdigest()[:16]
    todo = []
    for sm, flag in CONFIGS:
        d = base / f"{sm}{flag}"
        d.mkdir(parents=True, exist_ok=True)
        missing = [n for n in src if not (d / f"{n}.ptx").exists()]
        if missing:
            todo.append((missing, sm, flag, d))
    for k in range(0, len(todo), 2):                 # two nvcc processes at a time
        running = [(t, _nvcc_batch(t[0], src, *t[1:])) for t in todo[k:k + 2]]
        for (names, sm, flag, d), proc in running:
            proc.communicate()
            if proc.returncode == 0:
                continue
            for n in names:                          # name the file that fails
                one = _nvcc_batch([n], src, sm, flag, d)
                one_log = one.communicate()[0]
                if one.returncode and n.startswith("bench_"):
                    warnings.warn(f"nvcc {sm} {flag} failed on {src[n]}: {one_log[-400:]}")
                elif one.returncode:
                    pytest.fail(f"nvcc {sm} {flag} failed on {src[n]}:\n{one_log[-2000:]}")
    out = {}
    for sm, flag in CONFIGS:
        for n in src:
            f = base / f"{sm}{flag}" / f"{n}.ptx"
            if f.exists():
                out[(sm, flag, n)] = f.read_text()
    return out


def _canonical(mod: P.Module, keep_lines: bool) -> str:
    """Every instruction and label re-printed from its parsed fields (directives stay verbatim).
    With keep_lines, statements written over several lines (nvcc's calls) stay as they are, so that
    the PTX line numbers in -G/-lineinfo debug info do not move."""
    for fn in mod.functions:
        for s in fn.body or ():
            if isinstance(s, (P.Instruction, P.Label)) and not (keep_lines and "\n" in (s.text or "")):
                s.text = None
    return mod.unparse()


def _ptxas(text: str, sm: str, tmp: Path, name: str) -> bytes:
    ptx, cubin = tmp / f"{name}.ptx", tmp / f"{name}.cubin"
    ptx.write_text(text)
    r = subprocess.run(["ptxas", f"-arch={sm}", str(ptx), "-o", str(cubin)], capture_output=True, text=True)
    assert r.returncode == 0, f"ptxas rejected {name}: {r.stderr[-1000:]}"
    return cubin.read_bytes()


def _sections(cubin: bytes) -> dict[str, bytes]:
    """Every ELF section but .nv_debug_ptx_txt, where ptxas -lineinfo/-G keeps the PTX text itself."""
    from elftools.elf.elffile import ELFFile
    elf = ELFFile(io.BytesIO(cubin))
    return {s.name: s.data() for s in elf.iter_sections() if s.name != ".nv_debug_ptx_txt"}


def test_nvcc_ptx_round_trips_byte_identically(corpus):
    for key, text in corpus.items():
        assert P.unparse(P.parse(text, "/".join(key))) == text, key


def test_canonical_reprint_assembles_to_identical_sass(corpus, tmp_path):
    """The strong check: instructions rebuilt from pred/opcode/operands give the same machine code
    (.text.*, .nv.info.*, constants, relocations and DWARF: every section except the PTX text that
    -G/-lineinfo embed; without debug info the whole cubins are identical)."""
    whole, reprinted, kernels = {}, 0, 0
    for (sm, flag, name), text in corpus.items():
        mod = P.parse(text, name)
        canon = _canonical(mod, keep_lines=flag in ("-G", "-lineinfo"))
        reprinted += canon != text
        tag = f"{name}_{sm}{flag}"
        a = _ptxas(text, sm, tmp_path, tag + "_orig")
        b = _ptxas(canon, sm, tmp_path, tag + "_canon")
        sa, sb = _sections(a), _sections(b)
        assert any(k.startswith(".text.") for k in sa), tag
        assert sa == sb, f"{tag}: sections differ: {[k for k in sa if sa[k] != sb.get(k)]}"
        whole.setdefault(f"{sm} {flag}", []).append(a == b)
        if "-G" not in flag and "-lineinfo" not in flag:
            assert a == b, tag
        kernels += sum(k.startswith(".text.") for k in sa)
    print(f"\n{len(corpus)} PTX files, {kernels} kernels: all ELF sections but .nv_debug_ptx_txt identical; "
          f"whole cubin identical: {', '.join(f'{k} {sum(v)}/{len(v)}' for k, v in whole.items())}; reprinted text differs from nvcc's in {reprinted}")
    assert reprinted > len(corpus) // 2      # the canonical printer really ran


SAMPLE = """\
//
// hand-written: every construct the reader must keep
//
.version 8.0
.target sm_90
.address_size 64

.extern .func  (.param .b32 func_retval0) vprintf
(
	.param .b64 vprintf_param_0,
	.param .b64 vprintf_param_1
)
;
.global .align 4 .b8 table[8] = {1, 2, 3, 4, 5, 6, 7, 8};
.extern .shared .align 16 .b8 smem[];

.visible .func  (.param .b32 func_retval0) helper(
	.param .b32 helper_param_0,
	.param .align 8 .b8 helper_param_1[16]
)
{
	.reg .b32 	%r<3>;
	ld.param.u32 	%r1, [helper_param_0];
	st.param.b32 	[func_retval0+0], %r1;
	ret;
}

.visible .entry k(
	.param .u64 k_param_0
)
.maxntid 128, 1, 1
{
	.local .align 8 .b8 	__local_depot0[8];
	.reg .pred 	%p<3>;
	.reg .b32 	%r<20>;
	.reg .f32 	%f<3>;
	.reg .b64 	%rd<4>;
	.loc	1 7 3
	ld.param.u64 	%rd1, [k_param_0];
	mov.u32 	%r1, %laneid;   // lane
	setp.eq.s32 	%p1|%p2, %r1, 0;
	@%p1 bra 	$L__BB0_2;
	@!%p2 add.s32 %r2, %r1, 1;
	ld.global.v2.u32 	{%r3, %r4}, [%rd1+8];
	// begin inline asm
	{ .reg .pred p; shfl.sync.up.b32 %r5|p, %r4, 1, 0, -1; @p add.s32 %r5, %r5, %r4; }
	// end inline asm
	.pragma "nounroll";
$L__BB0_2:
	{ // callseq 0, 0
	.param .b32 param0;
	st.param.b32 	[param0], %r1;
	.param .b32 retval0;
	call.uni (retval0), helper, (param0, param0);
	ld.param.b32 	%r6, [retval0];
	} // callseq 0
	mov.f32 	%f1, 0f3F800000;
	st.global.v4.u32 	[%rd1], {%r3, %r4, %r5, %r6};
	ret;
}
"""


def test_structure_of_hand_written_ptx():
    mod = P.parse(SAMPLE, "s.ptx")
    assert mod.unparse() == SAMPLE
    assert (mod.version, mod.version_tuple, mod.target, mod.address_size) == ("8.0", (8, 0), "sm_90", 64)
    names = [(f.name, f.kind, f.linkage, f.body is None) for f in mod.functions]
    assert names == [("vprintf", "func", ".extern", True), ("helper", "func", ".visible", False),
                     ("k", "entry", ".visible", False)]
    helper = mod.function("helper")
    assert [p.name for p in helper.returns] == ["func_retval0"]
    assert [p.name for p in helper.params] == ["helper_param_0", "helper_param_1"]
    k = mod.function("k")
    assert k.line == SAMPLE.splitlines().index(".visible .entry k(") + 1
    ins = {i.line: i for i in k.instructions()}
    line = {s: n + 1 for n, s in enumerate(SAMPLE.splitlines())}
    setp = ins[line["\tsetp.eq.s32 \t%p1|%p2, %r1, 0;"]]
    assert (setp.opcode, setp.base, setp.modifiers) == ("setp.eq.s32", "setp", ("eq", "s32"))
    assert setp.dests() == ["%p1", "%p2"] and setp.srcs() == ["%r1"]
    bra = ins[line["\t@%p1 bra \t$L__BB0_2;"]]
    assert (bra.pred, bra.neg, bra.opcode, bra.operands, bra.dests(), bra.srcs()) == \
        ("%p1", False, "bra", ["$L__BB0_2"], [], [])
    add = ins[line["\t@!%p2 add.s32 %r2, %r1, 1;"]]
    assert (add.pred, add.neg, add.operands) == ("%p2", True, ["%r2", "%r1", "1"])
    ldv = ins[line["\tld.global.v2.u32 \t{%r3, %r4}, [%rd1+8];"]]
    assert ldv.operands == ["{%r3, %r4}", "[%rd1+8]"]
    assert ldv.dests() == ["%r3", "%r4"] and ldv.srcs() == ["%rd1"]
    stv = ins[line["\tst.global.v4.u32 \t[%rd1], {%r3, %r4, %r5, %r6};"]]
    assert stv.dests() == [] and stv.srcs() == ["%rd1", "%r3", "%r4", "%r5", "%r6"]
    shfl = [i for i in k.instructions() if i.base == "shfl"]
    assert len(shfl) == 1 and shfl[0].operands == ["%r5|p", "%r4", "1", "0", "-1"]
    assert shfl[0].dests() == ["%r5", "p"]
    guarded = [i for i in k.instructions() if i.pred == "p"]
    assert guarded and guarded[0].opcode == "add.s32"
    call = [i for i in k.instructions() if i.base == "call"][0]
    assert call.operands == ["(retval0)", "helper", "(param0, param0)"]
    assert call.dests() == ["retval0"] and call.srcs() == ["param0", "param0"]
    kinds = [type(s).__name__ for s in k.body]
    assert kinds.count("ScopeOpen") == 2 and kinds.count("ScopeClose") == 2
    assert [s.name for s in k.body if isinstance(s, P.Label)] == ["$L__BB0_2"]
    dirs = [s.name for s in k.body if isinstance(s, P.Directive)]
    assert dirs.count(".reg") == 5 and ".pragma" in dirs and ".loc" in dirs and ".local" in dirs
    assert k.is_reg("%r19") and k.is_reg("%tid.x") and k.is_reg("p") and not k.is_reg("k_param_0")


def test_register_types_through_ranges_and_branch_targets():
    k = P.parse(SAMPLE, "s.ptx").function("k")
    assert k.reg_type("%r19") == ".b32" and k.reg_type("%p2") == ".pred" and k.reg_type("%rd3") == ".b64"
    assert k.reg_type("p") == ".pred"                       # declared by name (inline asm scope)
    assert k.reg_type("%r20") is None and k.reg_type("%tid.x") is None and k.reg_type("k_param_0") is None
    assert k.branch_targets() == {"$L__BB0_2"}
    # a line-info label that nothing names is not a target; one named by .branchtargets is
    text = SAMPLE.replace("\tmov.f32 \t%f1,", "$L__tmp1:\n\tmov.f32 \t%f1,")
    k2 = P.parse(text, "s.ptx").function("k")
    assert "$L__tmp1" in [s.name for s in k2.body if isinstance(s, P.Label)]
    assert k2.branch_targets() == {"$L__BB0_2"}
    k3 = P.parse(text.replace("\t.pragma", "\tts: .branchtargets $L__tmp1;\n\t.pragma"), "s.ptx").function("k")
    assert k3.branch_targets() == {"$L__BB0_2", "$L__tmp1"}


def test_splice_and_fresh_registers_keep_everything_else():
    mod = P.parse(SAMPLE, "s.ptx")
    k = mod.function("k")
    shfl = next(i for i in k.instructions() if i.base == "shfl")
    r = k.new_reg(".b32")
    p = k.new_reg("pred")
    assert r == "%shx0" and p == "%shxp1" and k.new_reg(".b32") == "%shx2"
    red = P.Instruction.new("redux.sync.add.s32", [r, "%r4", "-1"])
    k.insert_after(shfl, [red])
    add = next(i for i in k.instructions() if i.neg)
    k.replace(add, [P.parse_instruction("@%p2 sub.s32 %r2, %r1, 1;")])
    out = mod.unparse()
    assert "\t.reg .b32 %shx0;\n\t.reg .pred %shxp1;" in out
    assert "redux.sync.add.s32\t%shx0, %r4, -1;" in out and "@%p2 sub.s32\t%r2, %r1, 1;" in out
    assert "@!%p2" not in out
    again = P.parse(out, "s2.ptx")
    assert again.unparse() == out
    # every original line except the replaced one is still there, in order
    kept = [ln for ln in SAMPLE.splitlines() if "@!%p2" not in ln and "shfl.sync" not in ln]
    lines, at = out.splitlines(), 0
    for ln in kept:
        at = lines.index(ln, at) + 1
    # editing fields re-prints only that statement
    mod2 = P.parse(SAMPLE, "s.ptx")
    ld = next(i for i in mod2.function("k").instructions() if i.opcode == "ld.param.u64")
    ld.operands[1] = "[k_param_0+0]"
    diff = [(a, b) for a, b in zip(SAMPLE.splitlines(), mod2.unparse().splitlines()) if a != b]
    assert diff == [("\tld.param.u64 \t%rd1, [k_param_0];", "\tld.param.u64\t%rd1, [k_param_0+0];")]


def test_new_reg_and_label_avoid_existing_names():
    text = SAMPLE.replace(".reg .b32 \t%r<20>;", ".reg .b32 \t%r<20>;\n\t.reg .b32 %shx<4>;\n\t.reg .b32 %shx7;")
    k = P.parse(text, "s.ptx").function("k")
    names = [k.new_reg(".b32") for _ in range(3)]
    assert names == ["%shx4", "%shx5", "%shx6"] or all(
        not (n.startswith("%shx") and n[4:].isdigit() and int(n[4:]) < 4) and n != "%shx7" for n in names)
    assert len(set(names)) == 3 and "%shx7" not in names
    assert all(int(n[4:]) >= 4 for n in names)
    lab = k.new_label("$L__BB0_")
    assert lab != "$L__BB0_2" and lab.startswith("$L__BB0_")


def _err(text: str, name: str = "bad.ptx") -> InputError:
    with pytest.raises(InputError) as e:
        P.parse(text, name)
    return e.value


HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"


@pytest.mark.parametrize("body, line, words", [
    (".visible .entry k()\n{\n\tadd.s32 %r1, %r2, 3\n\tret;\n}\n", 6, "missing ';'"),     # ';' missing
    (".visible .entry k()\n{\n\tadd.s32 %r1, , %r2;\n}\n", 6, "empty operand"),
    (".visible .entry k()\n{\n\tld.u32 %r1, [%rd1;\n}\n", 6, "unbalanced"),
    (".visible .entry k()\n{\n\tret;\n", 4, "missing closing"),
    (".visible .entry k()\n{\n\t@ bra L;\n}\n", 6, "guard"),
    ("add.s32 %r1, %r2, %r3;\n", 4, "top level"),
    (".visible .entry k()\n{\n\t/* open\n}\n", 6, "comment"),
    (".visible .entry k()\n{\n\t#x;\n}\n", 6, "unexpected"),
    (".reg .b32 %r1;\n", 4, ".reg outside"),
])
def test_malformed_ptx_names_file_and_line(body, line, words):
    e = _err(HEAD + body)
    assert e.where.file == "bad.ptx" and e.where.line == line, (e.where, e.reason)
    assert words in e.reason


@pytest.mark.parametrize("head, words", [
    (".version 9.9\n.target sm_90\n", ["unsupported PTX .version 9.9", "6.0 to 9.0"]),
    (".version 5.0\n.target sm_90\n", ["unsupported PTX .version 5.0"]),
    (".version 8.0\n.target sm_52\n", ["unsupported .target sm_52", "sm_90", "sm_100a"]),
    (".version 8.0\n.target sm_100\n", ["unsupported .target sm_100"]),
    (".target sm_90\n", ["no .version"]),
    (".version 8.0\n", ["no .target"]),
    (".version 8\n.target sm_90\n", ["malformed .version"]),
])
def test_unsupported_version_or_target_lists_what_is_supported(head, words):
    e = _err(head + ".visible .entry k()\n{\n\tret;\n}\n")
    assert e.where.file == "bad.ptx"
    for w in words:
        assert w in e.reason, e.reason
    assert "bad.ptx" in str(e)


def test_arch_specific_targets_map_onto_their_base_and_check_can_be_off():
    assert P.supported_target("sm_90a") == "sm_90" and P.supported_target("sm_100a") == "sm_100a"
    assert P.supported_target("sm_100f") is None
    m = P.parse(".version 9.9\n.target sm_52\n", "x.ptx", check=False)
    assert (m.version, m.target) == ("9.9", "sm_52")


def test_binary_input_is_rejected_with_a_line():
    e = _err(HEAD + "\x7fELF\x02\x01")
    assert e.where.line == 4 and "not PTX" in e.reason


# --------------------------------------------------------------------- property tests

_reg = st.sampled_from(["%r1", "%r12", "%rd3", "%p1", "%f2", "%tid.x", "%laneid", "p", "r0"])
_imm = st.sampled_from(["0", "-1", "31", "0x1f", "0xffffffff", "0f3F800000", "1.5", "4294967295U"])
_addr = st.builds(lambda r, o: f"[{r}{o}]", st.sampled_from(["%rd1", "%r2", "k_param_0", "smem"]),
                  st.sampled_from(["", "+8", "+-4", "+0"]))
_vec = st.lists(_reg, min_size=2, max_size=4).map(lambda rs: "{" + ", ".join(rs) + "}")
_pair = st.builds(lambda a, b: f"{a}|{b}", _reg, st.sampled_from(["%p1", "p"]))
_operand = st.one_of(_reg, _imm, _addr, _vec, _pair)
_opcode = st.lists(st.sampled_from(["sync", "bfly", "b32", "u32", "global", "v2", "shared::cta", "lo",
                                    "wide", "rn", "ftz", "f32", "down", "idx", "up"]),
                   max_size=4).flatmap(
    lambda mods: st.sampled_from(["shfl", "add", "ld", "st", "mov", "setp", "redux", "foo_bar", "mma"]).map(
        lambda b: ".".join([b, *mods])))
_space = st.sampled_from([" ", "\t", " \t", "  "])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pred=st.one_of(st.none(), st.sampled_from(["%p1", "p", "%p12"])), neg=st.booleans(),
       opcode=_opcode, operands=st.lists(_operand, max_size=5), sp=_space, comment=st.booleans())
def test_generated_instruction_lines_parse_into_their_parts_and_round_trip(pred, neg, opcode, operands, sp,
                                                                           comment):
    guard = f"@{'!' if neg else ''}{pred}{sp}" if pred else ""
    ops = sp + (", " if sp == " " else ",").join(operands) if operands else ""
    stmt = f"{guard}{opcode}{ops};" + (" // note, with ; and {" if comment else "")
    text = HEAD + f".visible .entry k()\n{{\n\t{stmt}\n\tret;\n}}\n"
    mod = P.parse(text, "gen.ptx")
    assert mod.unparse() == text
    ins = next(mod.function("k").instructions())
    assert (ins.pred, ins.neg if pred else False, ins.opcode, ins.operands) == \
        (pred, neg if pred else False, opcode, operands)
    assert ins.line == 6 and ins.base == opcode.split(".")[0]
    ins.text = None                            # canonical form parses back to the same fields
    again = next(P.parse(mod.unparse(), "gen2.ptx").function("k").instructions())
    assert (again.pred, again.neg, again.opcode, again.operands) == (ins.pred, ins.neg, ins.opcode, ins.operands)


@settings(max_examples=400, deadline=None)
@given(garbage=st.text(alphabet=st.sampled_from(list("{}[]();:,.@!%|\"/*\n\t abcp0123x_-+<>#")),
                       max_size=60), where=st.sampled_from(["body", "top"]))
def test_garbage_gives_input_error_with_a_line_or_round_trips(garbage, where):
    text = HEAD + (f".visible .entry k()\n{{\n{garbage}\n\tret;\n}}\n" if where == "body" else garbage + "\n")
    try:
        mod = P.parse(text, "g.ptx")
    except InputError as e:
        assert e.where is not None and e.where.file == "g.ptx" and e.where.line is not None
        assert 1 <= e.where.line <= text.count("\n") + 1
        return
    assert mod.unparse() == text


def test_source_lines_follow_loc_and_inlined_at():
    text = "\n".join([
        ".version 8.0", ".target sm_90", ".address_size 64", "",
        ".visible .entry k()", "{", "\t.reg .b32 \t%r<4>;",
        "\t.loc\t1 3 7",
        "\tmov.u32 \t%r1, %tid.x;",
        "\t.loc\t2 449 9, function_name $L__info_string0, inlined_at 1 6 3",
        "\tshfl.sync.bfly.b32 \t%r2, %r1, 1, 31, -1;",
        "\t.loc\t1 0 0",
        "\tadd.s32 \t%r3, %r2, 1;",
        "\tret;", "}",
        '\t.file\t1 "/src/k.cu"', '\t.file\t2 "/cuda/include/sm_30_intrinsics.hpp", 1700000000, 1234', ""])
    mod = P.parse(text, "k.ptx")
    where = P.source_lines(mod)
    assert where[9] == "/src/k.cu:3:7"                       # a plain .loc
    assert where[11] == "/src/k.cu:6:3"                      # inlined from a header: the call site
    assert 13 not in where and 14 not in where               # line 0: no source
    assert P.source_lines(P.parse(text.replace("\t.loc", "\t// .loc"), "k.ptx")) == {}


@pytest.mark.parametrize("text, dests, srcs", [
    ("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %rd1, [%r1], %r2;", ["%rd1"], ["%r1", "%r2"]),
    ("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r1], %r2;", [], ["%r1", "%r2"]),
    ("mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%r1], %r2;", [], ["%r1", "%r2"]),
    ("mbarrier.arrive_drop.shared.b64 _, [%r1];", [], ["%r1"]),
    ("mbarrier.init.shared.b64 [%r1], %r2;", [], ["%r1", "%r2"]),
])
def test_mbarrier_destinations(text, dests, srcs):
    """PTX ISA 8.7, 9.7.13.15: expect_tx / complete_tx / init write no register, `_` is a sink."""
    inst = P.Instruction(opcode=text.split()[0], operands=[o.strip() for o in text.split(None, 1)[1].rstrip(";").split(",")])
    inst.operands = [", ".join(inst.operands[:1])] + inst.operands[1:]
    assert inst.dests() == dests and inst.srcs() == srcs
