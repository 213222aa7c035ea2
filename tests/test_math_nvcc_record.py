"""The committed nvcc math record (benchmarks/nvidia/bench_math_nvcc.py) stays consistent: the .npz
holds nvcc's outputs over exactly the inputs hw_tests/amd/test_cuda_math_hw.py generates, the JSON's
nvcc figures are what those outputs give against the test's references (recomputed here, numpy
alone: no GPU, no emulator), and docs/cuda-layer.md's Math table states the JSON's figures."""
from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
NPZ, JSON = RESULTS / "h200_math_nvcc.npz", RESULTS / "h200_math_nvcc.json"


def _bench():
    spec = importlib.util.spec_from_file_location("bench_math_nvcc", ROOT / "benchmarks" / "nvidia" / "bench_math_nvcc.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


BENCH = _bench()
DEFS = BENCH.load_test_defs()
RECORD = json.loads(JSON.read_text())
DATA = np.load(NPZ)


def test_record_covers_the_test_functions():
    assert {r["fn"]: name for name, r in RECORD["functions"].items()} == {fn: f[0] for fn, f in DEFS.FUNCS.items()}
    assert RECORD["script"] == "benchmarks/nvidia/bench_math_nvcc.py"
    assert RECORD["npz"] == "benchmarks/results/h200_math_nvcc.npz"
    assert "--use_fast_math" not in RECORD["nvcc_flags"] and str(DATA["nvcc_flags"]) == RECORD["nvcc_flags"]
    assert str(DATA["gpu"]) == RECORD["gpu"] and str(DATA["nvcc_version"]) == RECORD["nvcc_version"]


@pytest.mark.parametrize("fn", sorted(DEFS.FUNCS))
def test_npz_inputs_are_the_tests(fn):
    x, y = BENCH.inputs(DEFS, fn)
    assert np.array_equal(DATA[f"x{fn}"], x) and np.array_equal(DATA[f"y{fn}"], y)
    assert DATA[f"nvcc{fn}"].dtype == np.float32 and DATA[f"nvcc{fn}"].shape == (DEFS.N,)


@pytest.mark.parametrize("fn", sorted(DEFS.FUNCS))
def test_json_nvcc_figures_recomputed(fn):
    name, _, bound, _ = DEFS.FUNCS[fn]
    row = RECORD["functions"][name]
    err, kept = BENCH.nvcc_errors(DEFS, DATA)[fn]
    assert row["cuda_bound_ulp"] == bound
    assert row["inputs_kept"] == kept
    assert row["nvcc_max_ulp"] == pytest.approx(err, abs=1e-4)
    assert set(row["shflx_max_ulp"]) == set(row["shflx_vs_nvcc_max_ulp"]) == set(RECORD["shflx_devices"])


def _math_table() -> list[list[str]]:
    text = (ROOT / "docs" / "cuda-layer.md").read_text()
    section = text[text.index("## Math"):]
    section = section[:section.index("\n## ", 1)]
    lines = [ln for ln in section.splitlines() if ln.startswith("| ")]
    # a `|` inside a cell (|x| <= 105615) is not a separator: split on " | "
    return [[c.strip() for c in ln.strip("| ").split(" | ")] for ln in lines]


def test_docs_math_table_states_the_record():
    table = _math_table()
    head = table[0]
    assert head[-2:] == ["nvcc on H200 (ulp)", "shflx vs nvcc (ulp)"], head
    seen = set()
    for row in table[1:]:
        names = [n for n in re.findall(r"`([^`]+)`", row[0]) if n in RECORD["functions"]]
        nvcc, vs = row[-2].split(", "), row[-1].split(", ")
        assert len(names) == len(nvcc) == len(vs), row
        for name, a, b in zip(names, nvcc, vs):
            r = RECORD["functions"][name]
            assert a == f"{r['nvcc_max_ulp']:.2f}", (name, a)
            assert b == f"{round(max(r['shflx_vs_nvcc_max_ulp'].values()), 2):g}", (name, b)
            seen.add(name)
        # "measured" (the hw test's figures) agrees with the script's emulator run of shflx
        measured = row[3].removesuffix(" each").split(", ")
        measured = measured * len(names) if len(measured) == 1 else measured
        assert len(measured) == len(names), row
        for name, m in zip(names, measured):
            assert m == f"{max(RECORD['functions'][name]['shflx_max_ulp'].values()):.2f}", (name, m)
    # every function of the record with a row of its own (the <cmath> overloads have none)
    assert seen == set(RECORD["functions"]) - {"exp(float)", "pow(float, float)"}
    assert "`benchmarks/nvidia/bench_math_nvcc.py` produces" in (ROOT / "docs" / "cuda-layer.md").read_text()
