"""A fast driver (issue 14, item 5): a warm `shflx compile` imports no Z3 and proves nothing again,
looks each distinct pattern up once per module, trusts a stored plan only if it is the one proven
under its key (anything else is solved and proven again), asks the toolchain once, and imports its
back end while clang runs."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from shflx.driver import cache
from shflx.plan import plan_to_dict
from shflx.target import Target, resolve_target

ROOT = Path(__file__).resolve().parents[1]
KERNELS = ROOT / "patterns" / "kernels"

# The driver run as the command line runs it, then what it imported.
PROBE = """import runpy, sys
sys.argv = ["shflx", *sys.argv[1:]]
try:
    runpy.run_module("shflx", run_name="__main__")
except SystemExit as e:
    if e.code:
        raise
print(json.dumps(sorted(m for m in ("z3", "numpy", "llvmlite", "elftools", "shflx.ir.ptxblock") if m in sys.modules)))
""".replace("import runpy, sys", "import json, runpy, sys")


def _compile_imports(args: list[str], env: dict) -> list[str]:
    r = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("family", ["runtime_broadcast", "chains"])
def test_a_warm_compile_imports_no_z3(family, tmp_path):
    """The first compile proves (Z3); the second finds every plan stored (a warp-uniform
    broadcast's 32 instances, a chain's plan, the chain-as-written's shuffles) and proves nothing."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SHFLX_CACHE_DIR": str(tmp_path / "cache")}
    args = ["compile", str(KERNELS / family / "kernel.cu"), "--offload-arch", "gfx942", "-o", str(tmp_path / "k.hsaco")]
    cold = _compile_imports(args, env)
    assert "z3" in cold                                  # the probe sees what a compile imports
    warm = _compile_imports(args, env)
    assert "z3" not in warm and "llvmlite" in warm
    # nor what only some inputs need: the inline PTX translator (nvidia.ptxir, nvidia.symbolic)
    # for a file without inline PTX
    assert "shflx.ir.ptxblock" not in warm
    assert (tmp_path / "k.hsaco").read_bytes()[:4] == b"\x7fELF"


PATTERNS = [("xor", k) for k in (1, 2, 4, 8, 16)] + [("down", k) for k in (1, 2, 4, 8, 16)] + \
           [("up", k) for k in (1, 2, 4, 8)] + [("idx", 0), ("idx", 5), ("idx", 31)]
CALL = {"xor": "__shfl_xor_sync", "down": "__shfl_down_sync", "up": "__shfl_up_sync", "idx": "__shfl_sync"}


def test_one_lookup_per_distinct_pattern_per_module(tmp_path, monkeypatch):
    """60 sites of 17 distinct shuffles: 17 store lookups, and none for the same module again."""
    from shflx.driver.amd import compile_file

    n = 60
    src = _many_sites(tmp_path, n)
    lookups: list[str] = []
    real_get = cache.get
    monkeypatch.setattr(cache, "get", lambda k, *check: lookups.append(k) or real_get(k, *check))
    cache._lower_once.cache_clear()
    res = compile_file(src, "gfx942", emit="llvm")
    assert len(res.sites) == n and all(s.proof == "proved" for s in res.sites)
    assert len(lookups) == len(set(lookups)) == len(PATTERNS)
    again = compile_file(src, "gfx942", emit="llvm")
    assert len(lookups) == len(PATTERNS) and again.output == res.output


def test_identical_sites_share_one_helper_read_back_once(tmp_path, monkeypatch):
    """60 sites of 17 distinct shuffles: 17 helpers, each emitted and read back against its plan
    once (lowering._distinct_plan), every site calling the helper of its own map; the code object
    equals the one where each site gets its own helper."""
    from shflx.driver import lowering
    from shflx.driver.amd import compile_file

    src = _many_sites(tmp_path, 60)
    checked: list[str] = []
    real = lowering.emitted_differences
    monkeypatch.setattr(lowering, "emitted_differences", lambda plan, text, *a: checked.append(text) or real(plan, text, *a))
    res = compile_file(src, "gfx942", emit="llvm")
    assert len(res.sites) == 60 and all(s.proof == "proved" for s in res.sites)
    assert len(checked) == len(set(checked)) == len(PATTERNS)
    helpers = re.findall(r"^define [^@]*@(shflx\.site\.\d+)\(", res.output, flags=re.M)
    assert len(helpers) == len(PATTERNS)
    calls = [re.search(r"@(shflx\.site\.\d+)\(", line).group(1) for line in res.output.splitlines()
             if "call" in line and "@shflx.site." in line]
    assert len(calls) == 60 and set(calls) == set(helpers)
    # site k (a chain of dependent shuffles: in source order) shuffles as site k % 17 does
    assert len(set(calls[:len(PATTERNS)])) == len(PATTERNS)
    assert all(name == calls[k % len(PATTERNS)] for k, name in enumerate(calls))


def _many_sites(tmp_path: Path, n: int) -> Path:
    body = "".join(f"  v += {CALL[m]}(0xffffffff, v * {k + 3}, {b});\n"
                   for k, (m, b) in ((k, PATTERNS[k % len(PATTERNS)]) for k in range(n)))
    src = tmp_path / "many.cu"
    src.write_text('extern "C" __global__ void many(int *p) {\n  int v = p[threadIdx.x];\n' + body
                   + "  p[threadIdx.x] = v;\n}\n")
    return src


def _stored(k: str) -> tuple[str, str]:
    [(text, digest)] = cache._db().execute(f"SELECT plan, digest FROM {cache.TABLE} WHERE key = ?", (k,)).fetchall()
    return text, digest


def test_a_stored_plan_that_is_not_the_one_proven_is_solved_and_proven_again(tmp_path, monkeypatch):
    """A row whose plan was replaced by another well-formed, proven-looking plan (xor 1's, under
    xor 3's key) is a miss: the search runs again and the row is repaired."""
    from shflx import match

    target = resolve_target("gfx942", 64)
    right = cache.cached_lower("xor 3", target, match.lower)
    other = cache.cached_lower("xor 1", target, match.lower)
    assert right.proof["status"] == other.proof["status"] == "proved" and right.steps != other.steps
    k = cache.key("xor 3", target)
    cache._db().execute(f"UPDATE {cache.TABLE} SET plan = ? WHERE key = ?", (json.dumps(plan_to_dict(other)), k))
    assert cache.get(k) is None
    solved: list[str] = []
    again = cache.cached_lower("xor 3", target, lambda p, t: solved.append(p) or match.lower(p, t))
    assert solved == ["xor 3"] and again.steps == right.steps
    text, digest = _stored(k)
    assert digest == cache.plan_digest(k, text) and cache.get(k).steps == right.steps     # repaired
    solved.clear()
    assert cache.cached_lower("xor 3", target, lambda p, t: solved.append(p) or match.lower(p, t)).steps == right.steps
    assert solved == []                                                         # a hit again


def test_only_proven_plans_are_stored_and_trusted(tmp_path):
    from shflx import match

    target = resolve_target("gfx942", 64)
    plan = match.lower("xor 5", target)
    unproven = replace(plan, proof={"status": "unknown", "method": "z3"})
    cache.put("k-unproven", unproven)
    assert cache._db().execute(f"SELECT COUNT(*) FROM {cache.TABLE} WHERE key = 'k-unproven'").fetchall() == [(0,)]
    cache.put("k-proven", plan)
    assert cache.get("k-proven").steps == plan.steps
    assert cache.get("k-other") is None


def test_the_key_names_the_provers_source(monkeypatch):
    target = resolve_target("gfx942", 64)
    k = cache.key("xor 1", target)
    assert len(cache.prover_digest()) == 64
    monkeypatch.setattr(cache, "prover_digest", lambda: "another prover")
    assert cache.key("xor 1", target) != k


def test_the_uniform_broadcast_family_is_stored_and_checked_against_its_build(tmp_path, monkeypatch):
    from shflx.match import broadcast

    target = resolve_target("gfx1100", 32)
    cache.uniform_broadcast.cache_clear()
    first = cache.uniform_broadcast(target)
    assert first == broadcast.uniform_broadcast(target)
    cache.uniform_broadcast.cache_clear()
    proved: list[Target] = []
    monkeypatch.setattr(broadcast, "uniform_broadcast", lambda t: proved.append(t) or first)
    assert cache.uniform_broadcast(target) == first and proved == []             # from the store
    k = cache.key_for("uniform broadcast|idx 7", target)
    cache._db().execute(f"DELETE FROM {cache.TABLE} WHERE key = ?", (k,))
    cache.uniform_broadcast.cache_clear()
    assert cache.uniform_broadcast(target) == first and proved == [target]       # one missing: all again
    cache.uniform_broadcast.cache_clear()


def test_toolchain_answers_are_remembered_per_executable(tmp_path, monkeypatch):
    from shflx.frontend.toolchain import remembered

    tool = tmp_path / "tool"
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    asked: list[int] = []
    ok = lambda v: isinstance(v, list)                         # noqa: E731 - the shape this question's answers have

    def ask():
        asked.append(1)
        return ["-internal-isystem", "/x"]
    assert remembered("q", [str(tool), "a"], ask, valid=ok) == ["-internal-isystem", "/x"]
    assert remembered("q", [str(tool), "a"], ask, valid=ok) == ["-internal-isystem", "/x"] and len(asked) == 1
    assert remembered("other question", [str(tool), "a"], ask, valid=ok) and len(asked) == 2
    os.utime(tool, ns=(1, 1))                                  # another executable: asked again
    assert remembered("q", [str(tool), "a"], ask, valid=ok) and len(asked) == 3
    assert remembered("none", [str(tool)], lambda: asked.append(1), valid=ok) is None
    assert remembered("none", [str(tool)], lambda: asked.append(1), valid=ok) is None and len(asked) == 5
    monkeypatch.setenv("SHFLX_CACHE", "off")
    assert remembered("q", [str(tool), "a"], ask, valid=ok) and len(asked) == 6


def test_host_headers_are_absolute_so_a_remembered_answer_holds_in_any_directory(tmp_path, monkeypatch):
    from shflx.frontend.toolchain import find_clang, host_cxx_args

    monkeypatch.chdir(ROOT)               # zig prints paths relative to the working directory
    args = host_cxx_args.__wrapped__(find_clang())
    dirs = [args[k + 1] for k, a in enumerate(args) if a.endswith("isystem")]
    assert dirs and all(Path(d).is_absolute() and Path(d).is_dir() for d in dirs), dirs


def test_the_front_end_path_leaves_the_back_end_to_the_background():
    """What compile_file imports before clang runs holds no numpy, llvmlite or lowering pass, so
    driver.prefetch can import them beside clang; the prefetch imports them and reports nothing."""
    code = ("import sys, shflx.cli, shflx.driver.amd, shflx.driver.flags, shflx.files\n"
            "print(sorted(m for m in ('numpy', 'llvmlite', 'elftools', 'shflx.driver.lowering') if m in sys.modules))\n"
            "from shflx.driver.amd import BACK_END\n"
            "from shflx.driver.prefetch import imports_in_background\n"
            "with imports_in_background(BACK_END + ('shflx.no_such_module',)):\n    pass\n"
            "print(all(m in sys.modules for m in BACK_END))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert r.stdout.split("\n")[:2] == ["[]", "True"]


BINARY = ("add", "sub", "mul", "and", "or", "xor", "shl", "lshr", "ashr", "udiv", "urem")


@st.composite
def lane_slices(draw):
    """IR lines computing %v<n> from threadIdx.x and constants with the integer ops, selects,
    compares, casts, phis and switches a lane condition's slice holds."""
    lines = ["entry:", "  %v0 = call i32 @llvm.amdgcn.workitem.id.x()"]
    names = ["%v0"]
    const = st.one_of(st.integers(-40, 1100), st.sampled_from((-1, -7, 1 << 31, 0xFFFFFFFF, 31, 32, 1023))).map(str)
    operand = st.one_of(st.sampled_from(names), const)
    for k in range(1, draw(st.integers(1, 7))):
        kind = draw(st.sampled_from(("bin", "bin", "select", "icmp", "cast", "phi")))
        a, b = draw(st.sampled_from(names[-2:])), draw(operand)         # mostly a chain of the last values
        if kind == "bin":
            op = draw(st.sampled_from(BINARY))
            lines.append(f"  %v{k} = {op} i32 {a}, {b}" if draw(st.booleans()) else f"  %v{k} = {op} i32 {b}, {a}")
        elif kind == "select":
            lines.append(f"  %c{k} = icmp ult i32 {a}, {draw(st.integers(0, 1100))}")
            lines.append(f"  %v{k} = select i1 %c{k}, i32 {b}, i32 {draw(operand)}")
        elif kind == "icmp":
            pred = draw(st.sampled_from(("eq", "ne", "ugt", "uge", "ult", "ule", "sgt", "sge", "slt", "sle")))
            lines.append(f"  %c{k} = icmp {pred} i32 {a}, {b}")
            lines.append(f"  %v{k} = zext i1 %c{k} to i32")
        elif kind == "cast":
            bits = draw(st.sampled_from((1, 3, 8, 16)))
            lines.append(f"  %t{k} = trunc i32 {a} to i{bits}")
            lines.append(f"  %v{k} = {draw(st.sampled_from(('zext', 'sext')))} i{bits} %t{k} to i32")
        else:                                   # a phi a branch on a lane condition decides
            lines.append(f"  %c{k} = icmp ult i32 {a}, {draw(st.integers(0, 64))}")
            lines.append(f"  br i1 %c{k}, label %l{k}, label %r{k}")
            lines.append(f"l{k}:")
            lines.append(f"  %x{k} = urem i32 {b}, {draw(st.integers(0, 5))}")
            lines.append(f"  br label %j{k}")
            lines.append(f"r{k}:")
            lines.append(f"  br label %j{k}")
            lines.append(f"j{k}:")
            lines.append(f"  %v{k} = phi i32 [ %x{k}, %l{k} ], [ {draw(operand)}, %r{k} ]")
        names.append(f"%v{k}")
    return lines, names[-1]


TID = "  %v0 = call i32 @llvm.amdgcn.workitem.id.x()"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lane_slices())
@example((["entry:", TID, "  %v1 = sub i32 %v0, 1100", "  %v2 = ashr i32 %v1, 3"], "%v2"))       # signed shift
@example((["entry:", TID, "  %v1 = mul i32 %v0, 4194304", "  %c2 = icmp slt i32 %v1, 0",
           "  %v2 = zext i1 %c2 to i32"], "%v2"))                                                # signed compare
@example((["entry:", TID, "  %c1 = icmp ult i32 %v0, 32", "  br i1 %c1, label %l1, label %r1", "l1:",
           "  %x1 = urem i32 %v0, 0", "  br label %j1", "r1:", "  br label %j1", "j1:",
           "  %v1 = phi i32 [ %x1, %l1 ], [ 7, %r1 ]"], "%v1"))                                  # a taken division by 0
@example((["entry:", TID, "  %c1 = icmp ult i32 %v0, 32", "  br i1 %c1, label %l1, label %r1", "l1:",
           "  %x1 = and i32 %v0, 3", "  br label %j1", "r1:", "  br label %j1", "j1:",
           "  %v1 = phi i32 [ %x1, %l1 ], [ 7, %r1 ]"], "%v1"))                                  # a value per branch
def test_all_threads_at_once_is_thread_by_thread(case):
    """ir.evaluate's all-threads evaluation gives each thread's value of the per-thread one, or
    raises what it raises (a division by zero on a branch some thread takes, a phi's other value)."""
    from shflx.ir.evaluate import FunctionBody

    lines, token = case
    body = FunctionBody("f", lines, [])
    try:
        want = [body._full(token, t, 0) for t in range(1024)]
    except (KeyError, ValueError, IndexError, ZeroDivisionError) as e:
        with pytest.raises(type(e)):
            FunctionBody("f", lines, []).full_values(token, 1024)
        return
    assert FunctionBody("f", lines, []).full_values(token, 1024) == want


@st.composite
def value_graphs(draw):
    """Lines of one function: shuffle markers (%s<k>) and per-lane values (%v<k>: adds, selects,
    phis that close loops, and calls that stop the flow), with the shuffles' names."""
    n = draw(st.integers(2, 14))
    names = [f"%s{k}" if draw(st.booleans()) else f"%v{k}" for k in range(n)]
    names[0] = "%s0"
    lines = []
    for k, name in enumerate(names):
        a, b = draw(st.sampled_from(names)), draw(st.sampled_from(names))       # loops through phis too
        if name.startswith("%s"):
            lines.append(f"  {name} = call i32 @shflx.shuffle(i32 {a})")
        else:
            kind = draw(st.sampled_from(("add", "select", "phi", "opaque")))
            lines.append({"add": f"  {name} = add i32 {a}, {b}",
                          "select": f"  {name} = select i1 true, i32 {a}, i32 {b}",
                          "phi": f"  {name} = phi i32 [ {a}, %entry ], [ {b}, %entry ]",
                          "opaque": f"  {name} = call i32 @opaque(i32 {a})"}[kind])
    return lines, [m for m in names if m.startswith("%s")]


@settings(max_examples=200, deadline=None)
@given(value_graphs())
def test_shuffles_fed_by_a_shuffle_are_what_a_search_from_it_finds(case):
    """chain_groups' one pass over the whole function finds, for each shuffle, the shuffles a
    forward search from it through per-lane values (never through a shuffle) reaches."""
    from shflx.ir.body import FunctionIR
    from shflx.ir.chain_groups import shuffles_fed

    lines, shuffles = case
    body = FunctionIR("f", lines, [], 0)
    markers = dict.fromkeys(shuffles, ())
    reach = shuffles_fed(body, markers)
    for start in shuffles:
        found, seen, todo = set(), {start}, [start]
        while todo:
            for u in body.users.get(todo.pop(), []):
                if u in seen or u not in body.defs:
                    continue
                if u in markers:
                    found.add(u)
                elif not body.defs[u].startswith("call"):
                    seen.add(u)
                    todo.append(u)
        bits = reach(start)
        assert {m for k, m in enumerate(markers) if bits >> k & 1} == found, (start, lines)
