"""Target: one AMD target as a compile sees it, resolved once at the edge and passed down.

An arch name ("gfx942") is looked up in the ISA catalog (shflx.isa) by the edges alone: the CLI,
the driver entry points, the public API functions that take `arch=`, and the Plan when it is made
from a name (its JSON). The core takes a Target and never looks a name up again (issue 11). A
Target is immutable and hashable (the ISA record hashes by identity, the catalog holds one per
name), so the search's lru_caches key on it; it pickles as its name, wave and features, so a worker
process resolves it against its own catalog."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from .errors import InputError, UsageError
from .isa import AmdTarget, amd_target


@dataclass(frozen=True)
class Target:
    isa: AmdTarget                   # the ISA record: features, hazards, costs (isa/amd/*.toml)
    wave: int                        # the wave size this compile runs (one of isa.waves)
    id_features: tuple[str, ...] = ()   # target-ID features as LLVM spells them: ("+xnack", "-sramecc")
    prefer: str = "cycles"           # the search's preference: "cycles", or "lds-free" (PREFERENCES)

    @property
    def name(self) -> str:
        return self.isa.name

    @property
    def llvm_cpu(self) -> str:
        return self.isa.llvm_cpu

    @property
    def hazards(self) -> Mapping[str, int]:
        return self.isa.hazards

    def has(self, feature: str) -> bool:
        return self.isa.has(feature)

    def cost(self, kind: str) -> float:
        return self.isa.cost(kind)

    @property
    def lds_free_first(self) -> bool:
        """Plans that use no LDS-crossbar op rank before any that does, whatever they cost."""
        return self.prefer == "lds-free"

    def with_wave(self, wave: int | None) -> Target:
        """The same target at another wave size (None: unchanged); UsageError if it does not run it."""
        if wave is None or wave == self.wave:
            return self
        return Target(self.isa, self.isa.resolve_wave(wave), self.id_features, self.prefer)

    def with_prefer(self, prefer: str | None) -> Target:
        """The same target searched with another preference (None: unchanged); UsageError if unknown."""
        if prefer is None or prefer == self.prefer:
            return self
        if prefer not in PREFERENCES:
            raise UsageError(f"unknown preference '{prefer}' (known: {', '.join(PREFERENCES)})")
        return Target(self.isa, self.wave, self.id_features, prefer)

    def __reduce__(self) -> tuple:
        return (resolve_target, (self.isa.name, self.wave, self.id_features, self.prefer))

    def __repr__(self) -> str:
        prefer = "" if self.prefer == "cycles" else f", prefer {self.prefer}"
        return f"Target({self.name!r}, wave{self.wave}{''.join(', ' + f for f in self.id_features)}{prefer})"


# What the search ranks first (`--prefer`): the cheapest plan in the cost model's cycles, or the
# cheapest of the plans without an LDS-crossbar op (ds_swizzle, ds_(b)permute) where the search finds
# one: for kernels whose own LDS traffic would make the crossbar op wait (issue 14).
PREFERENCES = ("cycles", "lds-free")


def resolve_target(arch: str | Target, wave: int | None = None, id_features: tuple[str, ...] = (),
                   prefer: str | None = None) -> Target:
    """The edge: an arch name (or a Target, returned as it is unless `wave` or `prefer` changes it),
    an optional wave size (None: the target's default), the target ID's features ("+xnack") and the
    search's preference (None: "cycles"). UsageError names the known targets, the waves a target
    runs, the target-ID features it takes, or the known preferences."""
    if isinstance(arch, Target):
        return arch.with_wave(wave).with_prefer(prefer)
    isa = amd_target(arch)
    for feature in id_features:          # as clang checks a target ID: features its processor takes
        if feature[1:] not in isa.target_id_features:
            raise UsageError(f"{isa.name} has no '{feature[1:]}' target feature "
                             f"(it takes: {', '.join(isa.target_id_features) or 'none'})")
    return Target(isa, isa.resolve_wave(wave), tuple(id_features)).with_prefer(prefer)


def plan_target(arch: str, wave: int) -> Target:
    """The Target of a plan read by name (Plan JSON): UsageError for an unknown arch (it lists the
    known ones), InputError for a wave size the target does not run (the plan is wrong, not the command)."""
    isa = amd_target(arch)
    if wave not in isa.waves:
        raise InputError(f"{arch} runs wave{'/'.join(map(str, isa.waves))}, not wave{wave}")
    return Target(isa, wave)
