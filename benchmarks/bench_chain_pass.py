"""What the chain pass and the demanded-lanes analysis cost on the largest real units, and (with
--against REV) whether another revision computes exactly the same facts, side by side in one run.

  python benchmarks/bench_chain_pass.py [--units L2Select] [--arch gfx942] [--against main]
                                        [--compile] [--out FILE]

Each corpus unit (../shared/corpus, MANIFEST.tsv; unit ids matching --units) goes through clang
once (shflx's front end: the device IR the chain pass reads; not timed). Then, in a fresh process
per revision (this tree, and REV's shflx/, isa/ and patterns/ from `git archive` when --against is given), over the
same IR text: find_sites, find_chains, find_group_chains and demanded_lanes, each timed alone,
then lower_chains (the driver's whole chain pass: chains, their synthesis from a plan cache this
script warmed first, the multi-value chains and their demanded lanes), its module caches cleared.
Each process also prints a digest of what it computed (every site's demanded lanes, the chains,
the rewritten IR and the chain reports): the table says whether the revisions agree. --compile
adds the wall time of `shflx compile UNIT --offload-arch ARCH --emit asm` per revision and
compares the assembly. Timings are wall seconds on whatever else the machine runs (the load
average is recorded). Results are written only with --out."""
from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import platform
import re
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from corpus_location import absent_reason, corpus_dir  # noqa: E402

CORPUS = corpus_dir()
PHASES = ("find_sites", "find_chains", "find_group_chains", "demanded_lanes", "lower_chains")


def _digest(value: object) -> str:
    return hashlib.sha256(repr(value).encode()).hexdigest()[:16]


def measure(ir_path: Path, arch: str) -> dict:
    """The child: every phase timed over the IR at `ir_path`, with digests of what it computed."""
    from shflx.driver.chains import lower_chains
    from shflx.ir import demand, sites as site_module
    from shflx.ir.chain_groups import find_group_chains
    from shflx.ir.chains import find_chains
    from shflx.target import resolve_target

    ir = ir_path.read_text()
    target = resolve_target(arch)
    seconds: dict[str, float] = {}
    digests: dict[str, str] = {}
    t = time.perf_counter()
    sites = site_module.find_sites(ir)
    seconds["find_sites"] = time.perf_counter() - t
    t = time.perf_counter()
    chains = find_chains(ir, sites)
    seconds["find_chains"] = time.perf_counter() - t
    digests["chains"] = _digest([(c.function, [s.line_index for s in c.sites], c.steps, c.live, c.live_note,
                                  c.live_from_tid, c.blockers, c.guards) for c in chains])
    t = time.perf_counter()
    groups = find_group_chains(ir, sites, set())
    seconds["find_group_chains"] = time.perf_counter() - t
    digests["group_chains"] = _digest([(g.function, g.shape, g.values, g.types,
                                        [[s.line_index for s in step] for step in g.steps]) for g in groups])
    t = time.perf_counter()
    lanes = demand.demanded_lanes(ir, sites)
    seconds["demanded_lanes"] = time.perf_counter() - t
    digests["demanded_lanes"] = _digest(sorted(lanes.items()))
    demand.module_demands.cache_clear()
    site_module._module_sites.cache_clear()    # noqa: SLF001 - a fresh pass, as the driver's first
    t = time.perf_counter()
    out, reports = lower_chains(ir, target)
    seconds["lower_chains"] = time.perf_counter() - t
    digests["lower_chains"] = _digest((out, [sorted(vars(r).items()) for r in reports]))
    return {"sites": len(sites), "chains": len(chains), "group_chains": len(groups),
            "seconds": {k: round(v, 2) for k, v in seconds.items()}, "digests": digests}


def corpus_rows(pattern: str) -> list[dict]:
    if absent_reason():
        sys.exit(f"bench_chain_pass: {absent_reason()}")
    rows = [r for r in csv.DictReader((CORPUS / "MANIFEST.tsv").open(), delimiter="\t")
            if re.search(pattern, r["unit_id"])]
    if not rows:
        sys.exit(f"bench_chain_pass: no corpus unit matches {pattern!r}")
    return rows


def device_ir_of(row: dict, arch: str) -> str:
    from shflx.driver.amd import device_ir
    from shflx.frontend.clang import FrontendOptions
    from shflx.target import resolve_target

    includes = tuple(str(CORPUS / d) for d in row["include_dirs"].split(",") if d)
    return device_ir(CORPUS / row["path"], resolve_target(arch), FrontendOptions(includes=includes))


def revision_tree(rev: str, into: Path) -> Path:
    """`rev`'s shflx package and the ISA data it reads, extracted under `into` (its PYTHONPATH)."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "shflx", "isa", "patterns"], capture_output=True, check=True)
    with tarfile.open(fileobj=BytesIO(archive.stdout)) as tar:
        tar.extractall(into, filter="data")
    return into


def _commit(rev: str) -> str:
    return subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", rev], capture_output=True, text=True,
                          check=True).stdout.strip()


def _dirty() -> bool:
    return bool(subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "shflx", "isa", "patterns"],
                               capture_output=True, text=True).stdout.strip())


def run_child(tree: Path, ir_path: Path, arch: str, env: dict) -> dict:
    r = subprocess.run([sys.executable, __file__, "--child", str(ir_path), "--arch", arch],
                       capture_output=True, text=True, env={**env, "PYTHONPATH": str(tree)})
    if r.returncode:
        sys.exit(f"bench_chain_pass: the measuring process for {tree} failed:\n{r.stderr[-2000:]}")
    return json.loads(r.stdout.splitlines()[-1])


def compile_wall(tree: Path, row: dict, arch: str, out: Path, env: dict) -> float:
    incs = [a for d in row["include_dirs"].split(",") if d for a in ("-I", str(CORPUS / d))]
    t = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "shflx", "compile", str(CORPUS / row["path"]), "--offload-arch", arch,
                        "--emit", "asm", "-o", str(out), *incs], capture_output=True, text=True,
                       env={**env, "PYTHONPATH": str(tree)})
    if r.returncode:
        sys.exit(f"bench_chain_pass: shflx compile ({tree}) failed:\n{r.stderr[-2000:]}")
    return round(time.perf_counter() - t, 2)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--units", default=r"faiss/gpu/impl/L2Select\.cu$", help="corpus unit ids matching this regex")
    ap.add_argument("--arch", default="gfx942")
    ap.add_argument("--against", help="a git revision to measure beside this tree (e.g. main)")
    ap.add_argument("--compile", action="store_true", help="also time `shflx compile --emit asm` per revision")
    ap.add_argument("--out", help="write the results (JSON) here")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ns = ap.parse_args()
    if ns.child:
        print(json.dumps(measure(Path(ns.child), ns.arch)))
        return 0
    rows = corpus_rows(ns.units)
    sys.path.insert(0, str(ROOT))
    results = []
    with tempfile.TemporaryDirectory(prefix="shflx-chainpass-") as tmp:
        env = {**os.environ, "SHFLX_CACHE_DIR": str(Path(tmp) / "cache")}   # one plan cache, warmed below
        trees = {"this tree": ROOT}
        commits = {"this tree": _commit("HEAD") + (" (uncommitted changes)" if _dirty() else "")}
        if ns.against:
            trees[ns.against] = revision_tree(ns.against, Path(tmp) / "against")
            commits[ns.against] = _commit(ns.against)
        for row in rows:
            ir_path = Path(tmp) / "unit.ll"
            ir_path.write_text(device_ir_of(row, ns.arch))
            run_child(ROOT, ir_path, ns.arch, env)              # warms the plan cache for every revision
            entry = {"unit": row["unit_id"], "arch": ns.arch, "commits": commits, "revisions": {}}
            for name, tree in trees.items():
                load = os.getloadavg()[0]
                got = run_child(tree, ir_path, ns.arch, env)
                got["load_before"] = round(load, 2)
                if ns.compile:
                    asm = Path(tmp) / f"{len(entry['revisions'])}.s"
                    got["compile_seconds"] = compile_wall(tree, row, ns.arch, asm, env)
                    got["asm_digest"] = hashlib.sha256(asm.read_bytes()).hexdigest()[:16]
                entry["revisions"][name] = got
            digests = [(r["digests"], r.get("asm_digest")) for r in entry["revisions"].values()]
            entry["identical"] = all(d == digests[0] for d in digests)
            results.append(entry)
    print_table(results)
    if ns.out:
        Path(ns.out).write_text(json.dumps({"command": " ".join(sys.argv[1:]), "environment": {
            "python": platform.python_version(), "machine": platform.machine(), "cpus": os.cpu_count()},
            "results": results}, indent=1) + "\n")
    return 0 if all(r["identical"] for r in results) else 1


def print_table(results: list[dict]) -> None:
    cols = [*PHASES] + (["compile"] if any("compile_seconds" in v for r in results for v in r["revisions"].values()) else [])
    print(f"{'unit':42} {'revision':10} {'sites':>6} " + " ".join(f"{c:>17}" for c in cols) + "  load  identical")
    for r in results:
        for name, v in r["revisions"].items():
            secs = [v["seconds"][p] for p in PHASES] + ([v["compile_seconds"]] if "compile" in cols else [])
            print(f"{r['unit'][-42:]:42} {name[:10]:10} {v['sites']:>6} " + " ".join(f"{s:>16.2f}s" for s in secs)
                  + f"  {v['load_before']:4.2f}  {'yes' if r['identical'] else 'NO'}")


if __name__ == "__main__":
    sys.exit(main())
