"""Do shflx's AMD builds of real corpus kernels compute what nvcc's do? Every case of
hw_tests/corpus_cases.py, compiled by shflx for each AMD target and launched on the AMD device
(the GPU, else the emulator of ../shared/amdemu), compared buffer by buffer with nvcc's buffers
recorded on an H100 (benchmarks/results/h100_corpus_outputs.*; hw_tests/nvidia/corpus_sm90_hw.py
--outputs). Per case and target: identical, within N ulp (cases that use math functions, with the
largest distance seen), mismatch, does not compile (for units listed as pending: expected), or
what kept it from running (an emulator gap or crash, an error). The sm_90 column is the same case's
H100 result of shflx's sm_90 build against nvcc's (benchmarks/results/h100_corpus_sm90.json).

  python benchmarks/bench_corpus_exec.py [--targets gfx942 gfx1100 gfx90a] [--units REGEX]
                                         [--out benchmarks/results/corpus_exec.json]

Needs the corpus (SHFLX_CORPUS, else ../shared/corpus: tests/corpus_location.py) and the AMD emulator (or an AMD GPU). Results are written only with --out.
Exit 1 on a mismatch, an unexpected compile failure or an error."""
from __future__ import annotations

import argparse
import json
import platform
import re
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "hw_tests"))
sys.path.insert(0, str(ROOT / "tests"))

import corpus_amd as A  # noqa: E402
from corpus_cases import CASES, UNITS, check_reference  # noqa: E402
from corpus_location import absent_reason  # noqa: E402

from shflx.errors import ShflxError  # noqa: E402
from shflx.runtime.amd import amd_devices  # noqa: E402
from shflx.runtime.emulator_gaps import EmulatorGap  # noqa: E402

SM90 = ROOT / "benchmarks" / "results" / "h100_corpus_sm90.json"
FAILING = ("mismatch", "does not compile", "error")      # "does not compile" only where not pending


def sm90_results() -> dict[str, str]:
    """Case key -> the H100 result of shflx's sm_90 build against nvcc's."""
    if not SM90.exists():
        return {}
    return {r["key"]: r["result"] for r in json.loads(SM90.read_text())["results"] if "key" in r}


def run_case(device, case, ref) -> dict:
    row = {"key": case.key, "unit": case.unit, "kernel": case.kernel, "launch": case.label, "target": device.arch,
           "tolerance_ulp": case.ulp}
    pending = UNITS[case.unit].amd_pending
    t0 = time.perf_counter()
    try:
        result = A.compiled(case.unit, device.arch)
    except ShflxError as e:
        first = str(e).strip().splitlines()[0][:200]
        return {**row, "status": "does not compile", "expected": bool(pending), "error": first,
                "compile_s": round(time.perf_counter() - t0, 2)}
    row["compile_s"] = round(time.perf_counter() - t0, 2)
    row["rewrites"] = A.rewrites(result, case.kernel)
    if pending:
        row["pending_reason"] = pending          # it compiles now: the test's strict xfail says so too
    t1 = time.perf_counter()
    try:
        host, got = A.launch(device, case, result.output)
    except (EmulatorGap, A.EmulatorCrash) as e:
        return {**row, "status": "emulator gap" if isinstance(e, EmulatorGap) else "emulator crash", "error": str(e)}
    except Exception as e:  # noqa: BLE001 - recorded per case, the sweep goes on
        return {**row, "status": "error", "error": f"{type(e).__name__}: {e}"}
    row["run_s"] = round(time.perf_counter() - t1, 2)
    try:
        cmp = A.check(case, host, got, ref)
    except (KeyError, A.InputsDiffer) as e:
        return {**row, "status": "error", "error": f"{type(e).__name__}: {e}"}
    row.update(status={"bit-identical": "identical"}.get(cmp["result"], cmp["result"]), max_ulp=cmp["max_ulp"],
               buffers=cmp["buffers"])
    if case.ref is not None:
        row["reference"] = check_reference(case, host, got)
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--targets", nargs="+", default=["gfx942", "gfx1100", "gfx90a"])
    ap.add_argument("--units", default="", help="only cases whose unit name matches this regex")
    ap.add_argument("--out", help="write the results (JSON) here")
    ns = ap.parse_args()
    if absent_reason():
        print(f"bench_corpus_exec: {absent_reason()}", file=sys.stderr)
        return 2
    sel = amd_devices(search=[ROOT.parent / "shared" / "amdemu"], targets=ns.targets)
    if not sel.devices:
        print(f"bench_corpus_exec: no AMD device: {sel.why}", file=sys.stderr)
        return 2
    ref = A.reference()
    sm90 = sm90_results()
    cases = [c for c in CASES if re.search(ns.units, c.unit)]
    results = []
    for device in sel.devices:
        for case in cases:
            row = run_case(device, case, ref)
            results.append(row)
            ulp = f" (max {row['max_ulp']} ulp)" if row.get("max_ulp") else ""
            print(f"{device.arch:8} {case.unit[:30]:30} {case.label[:38]:38} {row['status']}{ulp}", flush=True)
    targets = [d.arch for d in sel.devices]
    print(f"\n{'case':74} {'sm_90':>13} " + " ".join(f"{t:>22}" for t in targets))
    for case in cases:
        cells = []
        for t in targets:
            r = next(r for r in results if r["key"] == case.key and r["target"] == t)
            cells.append(r["status"] + (f" ({r['max_ulp']})" if r.get("max_ulp") else ""))
        name = f"{case.unit} {case.label}"
        print(f"{name[:74]:74} {sm90.get(case.key, '-')[:13]:>13} " + " ".join(f"{c[:22]:>22}" for c in cells))
    summary = {t: dict(Counter(r["status"] for r in results if r["target"] == t)) for t in targets}
    print("\n" + "\n".join(f"{t}: " + ", ".join(f"{n} {s}" for s, n in sorted(c.items())) for t, c in summary.items()))
    if ns.out:
        Path(ns.out).write_text(json.dumps({
            "command": "python benchmarks/bench_corpus_exec.py " + " ".join(sys.argv[1:]).replace(ns.out, "OUT"),
            "device": sel.kind, "devices": [d.name for d in sel.devices], "host": platform.node(),
            "reference": {k: ref.meta.get(k) for k in ("device", "nvcc_version", "numpy")},
            "sm90_results": str(SM90.relative_to(ROOT)), "summary": summary,
            "results": [{**r, "sm90": sm90.get(r["key"])} for r in results]}, indent=1, default=str) + "\n")
    bad = [r for r in results if r["status"] in FAILING and not (r["status"] == "does not compile" and r["expected"])]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
