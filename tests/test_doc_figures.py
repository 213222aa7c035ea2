"""README figures against the results files they cite (issue 27): each check below reads the
number from benchmarks/results/*.json and asserts that the README states it as the JSON has it.
A re-measured results file whose numbers move fails here until the README says the new ones."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
README = (ROOT / "README.md").read_text()
FLAT = " ".join(README.split())                # the README with its line breaks undone


def load(name: str) -> dict:
    assert f"benchmarks/results/{name}" in README or f"`{name}`" in README, f"the README does not cite {name}"
    return json.loads((RESULTS / name).read_text())


def n(x: float) -> str:
    """A count as the README writes it: 4,236."""
    return f"{int(x):,}"


def says(*parts: str) -> None:
    for text in parts:
        assert text in FLAT, f"README does not say: {text!r}"


def test_compile_json_example_kernels():
    d = load("compile.json")
    fams = {r["family"] for r in d["rows"]}
    dirs = {p.name for p in (ROOT / "patterns" / "kernels").iterdir() if p.is_dir()}
    t = d["totals"]
    says(f"On the example kernels of {len(fams)} of the {len(dirs)} families of `patterns/kernels/`")
    for missing in sorted(dirs - fams):
        says(f"`{missing}`")                   # the families the run did not have are named
    base = {t[a]["ds_bpermute_baseline"] for a in t}
    left = {t[a]["ds_bpermute"] for a in t}
    assert len(base) == len(left) == 1
    says(f"{base.pop()} `ds_bpermute` with `--baseline` become {left.pop()} on each of gfx942, gfx950 and gfx1100")
    says(f"falls from {n(t['gfx942']['baseline_cost'])} to {n(t['gfx942']['shuffle_cost'])} (gfx942) and "
         f"{n(t['gfx950']['shuffle_cost'])} (gfx950), and from {n(t['gfx1100']['baseline_cost'])} to "
         f"{n(t['gfx1100']['shuffle_cost'])} cycles (gfx1100)")
    overheads = sorted(t[a]["median_overhead"] * 100 for a in t)
    says(f"median {overheads[0]:.1f}-{overheads[-1]:.1f}% per family")


def test_driver_json_process_costs():
    d = load("driver.json")
    says(f"a median {d['median_ratio_examples']:.2f}x the same clang front end plus ld.lld",
         f"a median {d['median_served_ratio_examples']:.2f}x",
         f"takes {d['batch']['ratio']:.2f}x their clang + lld time ({d['batch']['shflx_s']:.1f} s against "
         f"{d['batch']['clang_lld_s']:.1f} s)",
         f"{d['ms_per_extra_site']:.1f} ms per extra shuffle site against clang + lld's "
         f"{d['ms_per_extra_site_clang_lld']:.1f} ms",
         f"A server starts in about {d['server_start_s']:.1f} s")


def test_coverage_json_uniform_maps():
    d = load("coverage.json")
    u = {t: v["uniform"] for t, v in d["targets"].items()}
    assert len({v["maps"] for v in u.values()}) == 1
    says(f"Of the {n(u['gfx942']['maps'])} uniform maps",
         f"{n(u['gfx942']['without_bpermute'])} avoid `ds_bpermute` on gfx90a/942/950 and "
         f"{n(u['gfx1100']['without_bpermute'])} on gfx1030/1100",
         f"and {n(u['gfx942']['without_lds'])} (gfx90a/942), {n(u['gfx950']['without_lds'])} (gfx950;",
         f"{n(u['gfx1100']['without_lds'])} (gfx1030/1100) and all {n(u['gfx1200']['without_lds'])} (gfx1200) are LDS-free")
    assert u["gfx90a"]["without_bpermute"] == u["gfx950"]["without_bpermute"] == u["gfx942"]["without_bpermute"]
    assert u["gfx1030"]["without_bpermute"] == u["gfx1100"]["without_bpermute"]
    lf = {t: v["uniform"] for t, v in load("coverage_lds_free.json")["targets"].items()}
    says(f"{n(lf['gfx942']['without_lds'])} (gfx90a/942) and {n(lf['gfx950']['without_lds'])} (gfx950) are, "
         f"at a mean modeled cost of {lf['gfx90a']['avg_cost']:.1f} and {lf['gfx950']['avg_cost']:.1f} against "
         f"{u['gfx90a']['avg_cost']:.1f}-{u['gfx942']['avg_cost']:.1f} and {u['gfx950']['avg_cost']:.1f}")


def test_ds_bpermute_cycles_against_coverage_and_the_cost_model():
    u = {t: v["uniform"] for t, v in load("coverage.json")["targets"].items()}
    gfx9 = {u[t]["bpermute_cost"] for t in ("gfx90a", "gfx942", "gfx950")}
    rdna = {u[t]["bpermute_cost"] for t in ("gfx1030", "gfx1100")}
    assert len(gfx9) == len(rdna) == 1
    import shflx
    wave64 = {a: dict(shflx.lower("xor 1", a, wave=64).extra)["baseline_cost"] for a in ("gfx1100", "gfx1200")}
    says(f"{gfx9.pop():g} cycles on GFX9/CDNA; on RDNA {rdna.pop():g} in wave32 and {wave64['gfx1100']:g} in "
         f"wave64, on gfx12 {u['gfx1200']['bpermute_cost']:g} and {wave64['gfx1200']:g}")


def test_patterns_asm_json():
    d = load("patterns_asm.json")
    t, lf = d["targets"], d["prefer_lds_free"]

    def triple(row: dict) -> str:
        return f"{row['no_bpermute']}/{row['lds_free']}/{row['valu_le3']}"
    says(f"On the {d['patterns']} distinct power-of-two-width CUDA shuffles",
         f"{triple(t['gfx90a'])} on gfx90a and gfx942, {triple(t['gfx950'])} on gfx950, {triple(t['gfx1100'])} on "
         f"gfx1100 and gfx1200",
         f"({triple(lf['gfx942'])} and {triple(lf['gfx950'])})",
         f"(cost sums {n(lf['gfx942']['cost_sum'])} against {n(t['gfx942']['cost_sum'])} on gfx942, "
         f"{n(lf['gfx950']['cost_sum'])} against {n(t['gfx950']['cost_sum'])} on gfx950)")
    assert triple(t["gfx90a"]) == triple(t["gfx942"]) and triple(t["gfx1100"]) == triple(t["gfx1200"])


def test_corpus_json_table():
    d = load("corpus.json")
    units = d["units"]
    for target in ("gfx942", "gfx1100"):
        ok = [r for r in d["results"] if r["target"] == target and r["status"] == "ok"]
        says(f"| {target} | {len(ok)} of {units} ({100 * len(ok) / units:.1f}%) | {n(sum(r['sites'] for r in ok))} | "
             f"{n(sum(r['chains'] for r in ok))} | {n(sum(r['ds_bpermute'] for r in ok))} "
             f"({n(sum(r['ds_bpermute_baseline'] for r in ok))}) |")
    ok = [r for r in d["results"] if r["target"] == "sm_90" and r["status"] == "ok"]
    says(f"| sm_90 | {len(ok)} of {units} (with `nvidia-cublas-cu12` installed) | {n(sum(r['sites'] for r in ok))} | "
         f"{n(sum(r['chains'] for r in ok))} | - |")


def test_h100_results():
    shfl = load("h100_shfl_sync_check.json")
    says(f"checked on an H100 over {shfl['total_configs'] / 1e6:.2f} M warp configurations, "
         f"{shfl['total_mismatches']} mismatches",
         f"~{shfl['total_configs'] / 1e6:.2f} M shfl.sync")
    redux = load("h100_redux.json")["timing"]
    says(f"redux.sync {redux['time_bfly_add']['speedup']:.2f}x (add butterfly) and "
         f"{redux['time_down_max']['speedup']:.2f}x (max down-tree)",
         f"({redux['time_bfly_add']['speedup_compiled']:.2f}x and {redux['time_down_max']['speedup_compiled']:.2f}x "
         f"when `shflx compile` builds it")


@pytest.mark.parametrize("name", sorted({m for m in re.findall(r"benchmarks/results/([\w.]+\.json)", README)}))
def test_every_cited_results_file_exists_and_is_json(name):
    json.loads((RESULTS / name).read_text())
