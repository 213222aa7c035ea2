"""shflx's AMD builds of the corpus cases (hw_tests/corpus_cases.py) on an AMD device (a GPU
through hip-python, else the emulator: shflx.runtime), compared with nvcc's buffers recorded on
an H100 (benchmarks/results/h100_corpus_outputs.json and .npz, written by
hw_tests/nvidia/corpus_sm90_hw.py --outputs), so the check needs no NVIDIA GPU.

Every compared buffer is checked: bit-identical, within the case's ULP tolerance (float buffers of
cases that use math functions), or a mismatch; a buffer recorded only by its hash can only be
identical or not. The case's inputs are generated again here and must hash as on the H100 (else
numpy's generator changed and the comparison would be meaningless: an error, not a mismatch)."""
from __future__ import annotations

import functools
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from corpus_cases import CASES, UNITS, Case, buffers, compare, digest, host_inputs, include_dirs, manifest
from emulator_worker import EmulatorCrash, EmulatorWorker  # noqa: F401 (EmulatorCrash: for callers)

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from corpus_location import corpus_dir  # noqa: E402

CORPUS = corpus_dir()
REFERENCE = ROOT / "benchmarks" / "results" / "h100_corpus_outputs"       # .json and .npz


class InputsDiffer(Exception):
    """The regenerated inputs are not the recorded ones (a different numpy generator)."""


@dataclass(frozen=True)
class Reference:
    """nvcc's recorded run: per case key, per compared buffer its hashes (and array where stored)."""
    meta: dict
    arrays: dict

    def case(self, case: Case) -> list[dict]:
        rec = self.meta["cases"].get(case.key)
        if rec is None or not rec.get("nvcc_outputs"):
            raise KeyError(f"no nvcc outputs recorded for {case.unit} {case.kernel} ({case.label}); "
                           f"run hw_tests/nvidia/corpus_sm90_hw.py --outputs on an NVIDIA GPU")
        return rec["nvcc_outputs"]


@functools.lru_cache(maxsize=None)
def reference(prefix: Path = REFERENCE) -> Reference:
    meta = json.loads(prefix.with_suffix(".json").read_text())
    with np.load(prefix.with_suffix(".npz")) as npz:
        arrays = {k: npz[k] for k in npz.files}
    return Reference(meta, arrays)


@functools.lru_cache(maxsize=None)
def compiled(unit: str, arch: str):
    """The unit compiled by shflx for `arch` (its CompileResult), as `shflx compile UNIT
    --offload-arch ARCH -I...` with the manifest's include dirs, once per process."""
    from shflx.driver.amd import compile_file
    from shflx.frontend.clang import FrontendOptions
    row = manifest(CORPUS)[UNITS[unit].path]
    opts = FrontendOptions(includes=tuple(str(d) for d in include_dirs(CORPUS, row)))
    return compile_file(CORPUS / UNITS[unit].path, arch, opts=opts)


def code_object(unit: str, arch: str) -> bytes:
    return compiled(unit, arch).output


def rewrites(result, kernel: str) -> dict[str, int]:
    """What shflx did to the kernel's shuffles (from its report): sites, sites lowered to something
    other than ds_bpermute, reduction/scan chains, chains re-synthesized as a whole."""
    sites = [s for s in result.sites if s.function == kernel]
    chains = [c for c in result.chains if c.function == kernel]
    return {"sites": len(sites),
            "sites_without_bpermute": sum(not any("ds_bpermute" in ln for ln in s.lowering) for s in sites),
            "chains": len(chains), "chains_resynthesized": sum(c.status == "re-synthesized" for c in chains)}


def launch(device, case: Case, hsaco: bytes) -> tuple[list, list[np.ndarray]]:
    """(the host inputs, every buffer after the launch) of one case on `device`. CUDA's
    cooperative launch is an ordinary launch here: the grid is small enough to be resident at once
    (a GPU, and the emulator up to 64 workgroups). On the emulator the launch runs in a worker
    process (emulator_worker), so a crash ends one case, not the run."""
    if getattr(device, "kind", "") == "emulator":
        return _WORKER.call(f"{case.kernel} on {device.arch}", _launch_by_key, device, case.key, hsaco)
    return _launch(device, case, hsaco)


def _launch(device, case: Case, hsaco: bytes) -> tuple[list, list[np.ndarray]]:
    host = host_inputs(case)
    args = [h if isinstance(h, np.ndarray) else np.array(h, dtype=a.dtype)[()] for a, h in zip(case.args, host)]
    after = device.launch(hsaco, amd_kernel_name(case.kernel), args, case.grid, case.block, dynamic_lds=case.smem)
    return host, [b for b in after if b is not None]


def amd_kernel_name(name: str) -> str:
    """The kernel's symbol in the AMD build: CCCL's ABI namespace (cub::CUB_300001_SM_900) names
    __CUDA_ARCH_LIST__, 900 in nvcc's sm_90 build and 800 in the CUDA layer's (shflx_cuda.h);
    the two spellings have one length, so the mangling is otherwise the same."""
    return re.sub(r"(CUB_\d+_SM_)900", r"\g<1>800", name)


def _launch_by_key(device, key: str, hsaco: bytes):
    return _launch(device, next(c for c in CASES if c.key == key), hsaco)


_WORKER = EmulatorWorker()


def check(case: Case, host: list, got: list[np.ndarray], ref: Reference) -> dict:
    """corpus_cases.compare of `got` against nvcc's buffers: the stored arrays, the inputs where
    nvcc left a buffer unchanged, and the hashes where only hashes were kept."""
    recorded = {r["arg"]: r for r in ref.case(case)}
    want, hashed_differ = [], []
    inputs = [h for h in host if isinstance(h, np.ndarray)]
    for (arg, buf), h, g in zip(buffers(case), inputs, got):
        if not buf.compare:
            want.append(g)
            continue
        r = recorded[arg]
        if digest(h) != r["input_sha256"]:
            raise InputsDiffer(f"argument {arg}'s generated input differs from the H100 run's (numpy "
                               f"{np.__version__} here, {ref.meta.get('numpy')} there)")
        if r["stored"]:
            want.append(ref.arrays[f"{case.key}.{arg}"])
        elif r["unchanged"]:
            want.append(h)
        elif digest(g) == r["output_sha256"]:
            want.append(g)
        else:                                  # only the hash is known: identical or not
            hashed_differ.append(arg)
            want.append(g)
    res = compare(case, got, want, ("amd", "nvcc"))
    if hashed_differ:
        res["result"] = "mismatch"
        res["hash_only_differ"] = hashed_differ
    return res
