"""Real CUDA in: every unit of ../shared/corpus (unmodified third-party files, MANIFEST.tsv) compiled
as written for each target, as a porting engineer would run shflx; per unit and target: ok or the
first error, shuffle sites, chains, ds_bpermute in the code object against --baseline, the other
LDS round trips (ds_swizzle) and the report's estimated shuffle cost against ds_bpermute's (AMD).

  python benchmarks/bench_corpus.py [--targets gfx942 gfx1100 sm_90] [--units REGEX] [--jobs 2]
                                    [--out benchmarks/results/corpus.json]
  python benchmarks/bench_corpus.py --update benchmarks/results/corpus.json [--targets ...] [--units REGEX]
  python benchmarks/bench_corpus.py --update benchmarks/results/corpus.json --fold OTHER.json ...

--update re-runs only the (unit, target) pairs the file records as failing (a full run of three
targets takes hours on a small machine) and writes the file back with those entries replaced; each
entry says when it was measured ("date"). --fold merges the entries of other result files of this
script into the --update file without compiling. The table printed is then the whole file's.

Needs the corpus ($SHFLX_CORPUS, else ../shared/corpus: tests/corpus_location.py; it says so and
exits 2 without it). Results are written only with --out or --update."""
from __future__ import annotations

import argparse
import csv
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from corpus_location import absent_reason, corpus_dir  # noqa: E402

CORPUS = corpus_dir()
TIMEOUT_S = 1800           # per compile (TensorRT's topkLastDim.cu takes 7.5 min of CPU for gfx942)


def _shflx(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run([sys.executable, "-m", "shflx", *args], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=TIMEOUT_S)


def _first_error(stderr: str) -> str:
    errors = [line for line in stderr.splitlines() if "error:" in line and "rejected the source" not in line]
    text = errors[0] if errors else (stderr.strip().splitlines() or ["?"])[-1]
    return re.sub(r"^.*?error: ", "", text)[:200]


def _count(asm_path: Path, mnemonic: str) -> int:
    text = asm_path.read_text() if asm_path.exists() else ""
    return len(re.findall(rf"^\s*{mnemonic}\b", text, flags=re.M))


def compile_unit(row: dict, target: str) -> dict:
    incs = [a for d in row["include_dirs"].split(",") if d for a in ("-I", str(CORPUS / d))]
    src = str(CORPUS / row["path"])
    nvidia = target.startswith("sm_")
    with tempfile.TemporaryDirectory(prefix="shflx-corpus-") as tmp:
        out = Path(tmp) / "out"
        emit = ["--emit", "ptx"] if nvidia else ["--emit", "asm"]
        t0 = time.perf_counter()
        entry = {"unit": row["unit_id"], "target": target, "uses": row["uses"], "date": time.strftime("%Y-%m-%d")}
        try:
            r = _shflx(["compile", src, "--offload-arch", target, *emit, "-o", str(out), "--report", "json", *incs],
                       Path(tmp))
        except subprocess.TimeoutExpired:
            return {**entry, "seconds": TIMEOUT_S, "status": "error", "error": f"timeout after {TIMEOUT_S} s",
                    "shflx_error": False}
        entry["seconds"] = round(time.perf_counter() - t0, 2)
        if r.returncode != 0:
            return {**entry, "status": "error", "error": _first_error(r.stderr),
                    "shflx_error": "shflx does not support" in r.stderr}
        [report] = json.loads(r.stdout)          # a list of one entry (docs/report-schema.md)
        entry.update(status="ok", sites=report["summary"]["sites"], chains=report["summary"]["chains"])
        if not nvidia:
            entry["ds_bpermute"] = _count(out, "ds_bpermute_b32")
            entry["ds_swizzle"] = _count(out, "ds_swizzle_b32")
            entry["cost"], entry["baseline_cost"] = report["summary"]["cost"], report["summary"]["baseline_cost"]
            b = _shflx(["compile", src, "--offload-arch", target, "--emit", "asm", "--baseline", "-o",
                        str(out) + ".base", *incs], Path(tmp))
            entry["ds_bpermute_baseline"] = _count(Path(str(out) + ".base"), "ds_bpermute_b32") if b.returncode == 0 else None
        return entry


def environment() -> dict:
    """What the sm_NN results depend on: the CUDA headers found and every NVIDIA wheel installed
    (a unit including cublas_v2.h compiles only where nvidia-cublas-cu12 is installed)."""
    import importlib.metadata as md
    sys.path.insert(0, str(ROOT))
    from shflx.frontend.cuda_sdk import describe

    wheels = sorted(f"{d.metadata['Name']}=={d.version}" for d in md.distributions()
                    if (d.metadata["Name"] or "").lower().startswith("nvidia-"))
    return {"cuda_headers": describe(), "nvidia_wheels": wheels}


def print_table(results: list[dict], targets: list[str]) -> None:
    print(f"{'target':<8} {'ok':>9} {'sites':>6} {'chains':>6} {'ds_bpermute (baseline)':>24} {'ds_swizzle':>10} "
          f"{'cost (ds_bpermute)':>20}")
    for t in targets:
        mine = [e for e in results if e["target"] == t]
        good = [e for e in mine if e["status"] == "ok"]
        bp = sum(e.get("ds_bpermute") or 0 for e in good)
        base = sum(e.get("ds_bpermute_baseline") or 0 for e in good)
        amd = not t.startswith("sm_")
        bperm = f"{bp} ({base})" if amd else "-"
        swz = str(sum(e.get("ds_swizzle") or 0 for e in good)) if amd else "-"
        cost = f"{sum(e.get('cost') or 0 for e in good):g} ({sum(e.get('baseline_cost') or 0 for e in good):g})" if amd else "-"
        print(f"{t:<8} {len(good):>4}/{len(mine):<4} {sum(e['sites'] for e in good):>6} "
              f"{sum(e['chains'] for e in good):>6} {bperm:>24} {swz:>10} {cost:>20}")
    print("\nfirst errors, most frequent first (quoted names folded):")
    errs = Counter((e["target"], re.sub(r"'[^']*'", "'X'", e["error"])) for e in results if e["status"] == "error")
    for (t, err), n in errs.most_common(30):
        print(f"{n:4} {t:<8} {err}")


def merged(old: list[dict], new: list[dict]) -> list[dict]:
    """`old` with each (unit, target) entry that `new` has replaced by new's, in old's order."""
    by_key = {(e["unit"], e["target"]): e for e in new}
    kept = [by_key.pop((e["unit"], e["target"]), e) for e in old]
    return kept + list(by_key.values())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--targets", nargs="+", default=["gfx942", "gfx1100", "sm_90"])
    ap.add_argument("--units", default="", help="only units whose id matches this regex")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", help="write the results (JSON) here")
    ap.add_argument("--update", help="re-run the pairs this results file records as failing; write it back")
    ap.add_argument("--fold", nargs="+", default=[], help="with --update: merge these results files in, no compile")
    ns = ap.parse_args()
    if ns.fold and not ns.update:
        ap.error("--fold needs --update")
    if absent_reason():
        print(f"bench_corpus: {absent_reason()}", file=sys.stderr)
        return 2
    rows = [r for r in csv.DictReader((CORPUS / "MANIFEST.tsv").open(), delimiter="\t")
            if re.search(ns.units, r["unit_id"])]
    old = json.loads(Path(ns.update).read_text()) if ns.update else None
    if ns.fold:
        results = old["results"]
        for f in ns.fold:
            results = merged(results, json.loads(Path(f).read_text())["results"])
        old["results"] = results
        Path(ns.update).write_text(json.dumps(old, indent=1) + "\n")
        print_table(results, old["targets"])
        return 0
    if old:
        failing = {(e["unit"], e["target"]) for e in old["results"] if e["status"] != "ok"}
        jobs = [(r, t) for t in ns.targets for r in rows if (r["unit_id"], t) in failing]
    else:
        jobs = [(r, t) for t in ns.targets for r in rows]
    with ThreadPoolExecutor(ns.jobs) as pool:
        results = list(pool.map(lambda j: compile_unit(*j), jobs))
    if old:
        old["results"] = merged(old["results"], results)
        Path(ns.update).write_text(json.dumps(old, indent=1) + "\n")
        print(f"re-ran {len(results)} failing (unit, target) pairs; the whole file:")
        print_table(old["results"], old["targets"])
    else:
        print_table(results, ns.targets)
    if ns.out:
        Path(ns.out).write_text(json.dumps({"targets": ns.targets, "units": len(rows), "environment": environment(),
                                            "results": results}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
