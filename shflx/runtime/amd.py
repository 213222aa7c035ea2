"""Which AMD device runs hardware tests: a real GPU through hip-python when one is present, else
the AMD ISA emulator (runtime.emulator) for a list of targets. SHFLX_AMD_DEVICE=hip|emulator
forces one; `auto` (the default) prefers the GPU."""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from ..errors import UsageError
from .emulator import probe_emulator
from .hip import probe_hip

CHOICE_VARIABLE = "SHFLX_AMD_DEVICE"
TARGETS_VARIABLE = "SHFLX_EMULATED_TARGETS"        # comma-separated gfx targets for the emulator
CHOICES = ("auto", "hip", "emulator")
DEFAULT_EMULATED = ("gfx1100", "gfx942")          # one RDNA (wave32 and wave64), one CDNA (wave64)


@dataclass(frozen=True)
class AmdDevices:
    """The devices to test on (one real GPU, or one emulated device per target), their kind
    ("hip", "emulator", or "" when there are none) and, when there are none, why."""

    devices: tuple[Any, ...]
    kind: str
    why: str = ""


def device_choice() -> str:
    choice = os.environ.get(CHOICE_VARIABLE, "").strip().lower() or "auto"
    if choice not in CHOICES:
        raise UsageError(f"{CHOICE_VARIABLE}={os.environ[CHOICE_VARIABLE]!r}: expected one of {', '.join(CHOICES)}")
    return choice


def emulated_targets(default: Sequence[str] = DEFAULT_EMULATED) -> tuple[str, ...]:
    text = os.environ.get(TARGETS_VARIABLE, "")
    names = tuple(t.strip() for t in text.split(",") if t.strip())
    return names or tuple(default)


def amd_devices(search: Sequence[Path] = (), targets: Sequence[str] | None = None) -> AmdDevices:
    """Per SHFLX_AMD_DEVICE: the GPU, else (auto) or only (emulator) the emulated `targets`
    (default: SHFLX_EMULATED_TARGETS, else DEFAULT_EMULATED). `search`: folders that may hold amdemu."""
    choice = device_choice()
    gpu_why = ""
    if choice in ("auto", "hip"):
        gpu, gpu_why = probe_hip()
        if gpu is not None:
            return AmdDevices((gpu,), "hip")
        if choice == "hip":
            return AmdDevices((), "", f"no AMD GPU ({CHOICE_VARIABLE}=hip): {gpu_why}")
    devices = []
    for arch in targets or emulated_targets():
        dev, why = probe_emulator(arch, search)
        if dev is None:
            lead = f"no AMD GPU ({gpu_why}) and " if gpu_why else ""
            return AmdDevices((), "", f"{lead}no AMD emulator for {arch}: {why}")
        devices.append(dev)
    return AmdDevices(tuple(devices), "emulator")
