"""amdemu adapter: the AMD ISA emulator (shared/amdemu, tinygrad's emulator plus AMD's cross-lane
pseudocode) as a stand-in for a HIP device, so code objects run where no AMD GPU is.

amdemu is found as an importable module, else in the folder named by SHFLX_AMDEMU, else in the
folders the caller passes (hw_tests pass `<checkout>/../shared/amdemu`). Its own dependencies
(tinygrad, msgpack, ...) come from `shared/amdemu/requirements.txt`; Python >= 3.11.

The emulator reads its switches for the readings AMD's documents leave open at import time. shflx
runs it under shflx's own assumptions (ASSUMED_READINGS), which therefore stay assumptions: a
run on the emulator cannot confirm them, only the rest of the code object. A run that reaches an
instruction the emulator does not decode for the target is an EmulatorGap naming it
(runtime.emulator_gaps)."""
from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from .emulator_gaps import EmulatorGap, undecoded

PATH_VARIABLE = "SHFLX_AMDEMU"      # a folder holding the `amdemu` package (shared/amdemu)

# Emulator switch -> value, with the open question of spec/amd_crosslane.md it answers the way shflx
# assumes. Q5: RDNA wave64 ds_bpermute reaches lane (i & 32) | idx[4:0] (Mesa's emulation), not the
# literal pseudocode's idx % 32. A user's own setting of the variable wins (to explore the other one).
ASSUMED_READINGS = {"AMDEMU_BPERMUTE_W64": ("half", "Q5: RDNA wave64 ds_bpermute stays in its 32-lane half")}


@dataclass(frozen=True, eq=False)
class EmulatedDevice:
    """Same run_kernel as runtime.hip.HipDevice, executed by amdemu for `arch` (launches run one at
    a time: the emulator has global state)."""

    arch: str
    name: str
    readings: dict = field(default_factory=dict)    # emulator switch -> value in force
    index: int = 0
    kind: str = "emulator"

    @property
    def arch_full(self) -> str:
        return self.arch

    def run_kernel(self, hsaco: bytes, name: str, inputs: Sequence[np.ndarray],
                   out_shape: int | tuple[int, ...], out_dtype: Any = np.uint32,
                   block: tuple[int, int, int] = (64, 1, 1),
                   grid: tuple[int, int, int] = (1, 1, 1), scalars: Sequence[int] = ()) -> np.ndarray:
        """Launch `name(in_0, ..., in_k, out, scalar_0, ...)` (pointers, then i32 scalars); return `out`."""
        args = [*inputs, np.zeros(out_shape, dtype=out_dtype), *(np.int32(v) for v in scalars)]
        return self.launch(hsaco, name, args, grid, block)[len(inputs)]

    def launch(self, hsaco: bytes, name: str, args: Sequence[np.ndarray | np.generic],
               grid: tuple[int, int, int] = (1, 1, 1), block: tuple[int, int, int] = (64, 1, 1),
               dynamic_lds: int = 0) -> list[np.ndarray | None]:
        """Same as runtime.hip.HipDevice.launch: arrays are buffers (returned after the run), numpy
        scalars by-value arguments (None in the result). EmulatorGap when the run reaches an
        instruction of this target that amdemu does not decode (runtime.emulator_gaps)."""
        import amdemu
        args = [np.ascontiguousarray(a) if isinstance(a, np.ndarray) else a for a in args]
        try:
            run = amdemu.run_kernel(bytes(hsaco), name, args, grid, block, dynamic_lds=dynamic_lds,
                                    target=self.arch)
        except ValueError as e:
            instruction = undecoded(self.arch, e)
            if not instruction:
                raise
            raise EmulatorGap(f"amdemu cannot run {name} on {self.arch}: it does not decode {instruction} "
                              f"({e})") from e
        return [run.read(i) if isinstance(a, np.ndarray) else None for i, a in enumerate(args)]


def _import_amdemu(search: Sequence[Path]) -> tuple[Any, str]:
    """(the amdemu module, "") or (None, why not)."""
    if sys.version_info < (3, 11):
        return None, f"the AMD emulator needs Python >= 3.11 (this is {sys.version.split()[0]})"
    for name, (value, _why) in ASSUMED_READINGS.items():
        os.environ.setdefault(name, value)
    folders = [Path(p) for p in ([os.environ[PATH_VARIABLE]] if os.environ.get(PATH_VARIABLE) else [])]
    folders += [Path(p) for p in search]
    if importlib.util.find_spec("amdemu") is None:
        found = [f for f in folders if (f / "amdemu" / "__init__.py").is_file()]
        if not found:
            where = ", ".join(str(f) for f in folders) or "nowhere"
            return None, (f"amdemu is not importable and not found in {where} (set {PATH_VARIABLE} to "
                          f"shared/amdemu, or run `bash shared/amdemu/setup.sh VENV`)")
        sys.path.insert(0, str(found[0]))
    try:
        return importlib.import_module("amdemu"), ""
    except ImportError as e:
        return None, (f"amdemu cannot be imported ({e}); install its requirements: "
                      f"pip install -r shared/amdemu/requirements.txt")
    except Exception as e:  # a broken installation (no clang wrapper, ...) is also "no emulator"
        return None, f"amdemu failed to start: {type(e).__name__}: {e}"


def probe_emulator(arch: str, search: Sequence[Path] = ()) -> tuple[EmulatedDevice | None, str]:
    """(an emulated `arch`, "") or (None, why not), never raising."""
    amdemu, why = _import_amdemu(search)
    if amdemu is None:
        return None, why
    try:
        model = amdemu.emu_arch(arch)
    except ValueError as e:
        return None, str(e)
    readings = {name: os.environ.get(name, "") for name in ASSUMED_READINGS}
    return EmulatedDevice(arch, f"amdemu {amdemu.__version__} ({model}) for {arch}", readings), ""
