"""Real outputs validate against the shipped JSON Schema (shflx/schemas/report.schema.json):
`compile --report json` on two example kernels (AMD and NVIDIA targets, hsaco and asm), `ptx
--report json`, `lower --json` and `verify --json`. The checker is tests/reference/schema_check.py
and is shown to reject what the schema forbids; the Plan step definitions are compared with the
step dataclasses so the schema cannot drift from shflx.plan."""
from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import MISSING, fields
from pathlib import Path

import pytest

from shflx.plan import STEP_TYPES
from shflx.schemas import SCHEMA_VERSION, report_schema
from tests.reference.schema_check import errors
from tests.test_ptx_cli import GOOD

ROOT = Path(__file__).resolve().parents[1]
KERNELS = ROOT / "patterns" / "kernels"
SCHEMA = report_schema()


def _defn(name: str) -> dict:
    return {"$ref": f"#/$defs/{name}"}


def _check(doc, name: str) -> None:
    bad = errors(doc, _defn(name), SCHEMA)
    assert not bad, "\n".join(bad[:20])
    assert not errors(doc, SCHEMA, SCHEMA)            # the root accepts it too


def shflx(*args, cwd=None):
    r = subprocess.run([sys.executable, "-m", "shflx", *args], capture_output=True, text=True, cwd=cwd)
    return r


def test_compile_reports_are_lists_that_validate(tmp_path):
    r = shflx("compile", str(KERNELS / "butterfly" / "kernel.cu"), "--offload-arch", "gfx942",
              "-o", str(tmp_path / "b.hsaco"), "--report", "json")
    assert r.returncode == 0, r.stderr
    one = json.loads(r.stdout)
    assert isinstance(one, list) and len(one) == 1 and one[0]["schema_version"] == SCHEMA_VERSION
    assert one[0]["kernels"] and one[0]["sites"]                 # a hsaco: kernels from its metadata
    _check(one, "compile_report")
    r = shflx("compile", str(KERNELS / "chains" / "kernel.cu"), "--offload-arch", "gfx1100", "--emit", "asm",
              "-o", str(tmp_path / "c.s"), "--report", "json")
    assert r.returncode == 0, r.stderr
    asm = json.loads(r.stdout)
    assert asm[0]["chains"] and "instructions" in asm[0]["summary"]
    _check(asm, "compile_report")
    r = shflx("compile", str(KERNELS / "chains" / "kernel.cu"), "--offload-arch", "gfx942", "--offload-arch",
              "sm_90", "--emit", "llvm", "-o", str(tmp_path / "c.ll"), "--report", "json")
    assert r.returncode == 0, r.stderr
    two = json.loads(r.stdout)
    assert [e["arch"] for e in two] == ["gfx942", "sm_90"] and "loads" in two[1]
    _check(two, "compile_report")


def test_ptx_report_validates(tmp_path):
    src = tmp_path / "k.ptx"
    src.write_text(GOOD)
    r = shflx("ptx", str(src), "--report", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert len(doc) == 1 and doc[0]["sites"] and doc[0]["chains"]
    _check(doc, "ptx_report")


def test_lower_and_verify_outputs_validate(tmp_path):
    for pattern, arch in (("xor 5", "gfx942"), ("down 1 width 16", "gfx1200"), ("idx 3", "gfx90a")):
        r = shflx("lower", pattern, "--arch", arch, "--json")
        assert r.returncode == 0, r.stderr
        plan = json.loads(r.stdout)
        _check(plan, "plan")
        (tmp_path / f"{arch}.json").write_text(r.stdout)        # a printed plan is verify's input
    (tmp_path / "bad.json").write_text('{"arch": "gfx942"}')
    r = shflx("verify", "--json", str(tmp_path), str(ROOT / "patterns" / "plans" / "wrong"))
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    assert {d["status"] for d in lines} >= {"proved", "refuted", "invalid"}
    for d in lines:
        _check(d, "verify_result")


def test_every_shipped_plan_validates():
    plans = sorted((ROOT / "patterns" / "plans").rglob("*.json"))
    assert len(plans) > 10
    for path in plans:
        doc = json.loads(path.read_text())
        if "wrong" in path.parts and errors(doc, _defn("plan"), SCHEMA):
            continue                                   # some wrong plans are malformed on purpose
        _check(doc, "plan")


def test_the_schema_steps_are_the_step_dataclasses():
    for op, cls in STEP_TYPES.items():
        d = SCHEMA["$defs"][f"step.{op}"]
        names = {f.name for f in fields(cls)}
        required = {f.name for f in fields(cls) if f.default is MISSING and f.default_factory is MISSING}
        assert set(d["properties"]) == names | {"op"}, op
        assert set(d["required"]) == required | {"op"}, op
    assert {r["$ref"] for r in SCHEMA["$defs"]["plan"]["properties"]["steps"]["items"]["oneOf"]} == \
        {f"#/$defs/step.{op}" for op in STEP_TYPES}


@pytest.mark.parametrize("mutate, fragment", [
    (lambda d: d[0].pop("schema_version"), "missing 'schema_version'"),
    (lambda d: d[0].update(wave=48), "48 is not one of [32, 64]"),
    (lambda d: d[0]["sites"][0].update(cost="cheap"), "expected number"),
    (lambda d: d[0]["sites"][0].update(surprise=1), "unexpected key 'surprise'"),
    (lambda d: d[0]["summary"].pop("cost"), "missing 'cost'"),
])
def test_the_checker_rejects_what_the_schema_forbids(mutate, fragment):
    doc = [{"schema_version": 1, "file": "k.cu", "arch": "gfx942", "wave": 64, "output": "k.hsaco",
            "summary": {"sites": 1, "chains": 0, "cost": 8.0, "baseline_cost": 54.0}, "kernels": [],
            "sites": [{"location": "k.cu:3:5", "function": "k", "cuda": "__shfl_xor_sync(0xffffffff, v, 1, 32)",
                       "class": "xor", "lowering": ["v_mov_b32_dpp"], "cost": 8.0, "baseline_cost": 54.0,
                       "proof": "proved", "notes": []}], "chains": []}]
    assert not errors(doc, _defn("compile_report"), SCHEMA)
    mutate(doc)
    assert any(fragment in e for e in errors(doc, _defn("compile_report"), SCHEMA))


def test_a_plan_with_another_schema_version_is_refused(tmp_path):
    r = shflx("lower", "xor 1", "--arch", "gfx942", "--json")
    plan = json.loads(r.stdout)
    plan["schema_version"] = 2
    (tmp_path / "p.json").write_text(json.dumps(plan))
    r = shflx("verify", str(tmp_path / "p.json"))
    assert r.returncode == 2 and "schema_version 2 is not the one this shflx reads (1)" in r.stderr
