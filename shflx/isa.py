"""The ISA catalog: one resolved record per AMD target (gfx803 ... gfx1201) and NVIDIA sm.

The facts live in TOML (isa/amd/*.toml, isa/nvidia/*.toml), never here: primitives ask
`target.has("dpp8")`, never `name.startswith("gfx1")` (STYLE "Data, not code"). This module only
knows the vocabularies (feature, hazard, cost-kind names) and the schema, reads the files once,
resolves `inherits` chains (a target file names a family file, `_gfx9.toml`, that may itself
inherit), and memoizes. Every fact carries its source string; a schema error names
`file:line: key: reason`."""
from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Callable, Iterable, Mapping

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

from .errors import InputError, Location, UsageError

# --- vocabularies (names only; which target has what is in the TOML) ---------------------------

FEATURES: frozenset[str] = frozenset({
    "dpp16",                    # quad_perm, row_shl/shr/ror, row_mirror, row_half_mirror
    "dpp_wave_shift",           # wave_shl/rol/shr/ror:1 (GFX8/9 family)
    "dpp_row_bcast",            # row_bcast:15 / :31 (GFX8/9 family)
    "dpp_row_newbcast",         # 0x150-0x15F on gfx90a/94x/950
    "dpp_row_share",            # 0x150-0x15F on GFX10+
    "dpp_row_xmask",            # 0x160-0x16F, GFX10+
    "dpp_fi",                   # the FI bit, GFX10+
    "dpp8",
    "dpp_vopc",
    "dpp_vop3",                 # VOP3 / non-packed VOP3P DPP, GFX11+
    "dpp_vop3_sgpr_src1",       # GFX12
    "dpp64_row_newbcast",       # 64-bit DPP, row_newbcast only
    "ds_swizzle",
    "ds_swizzle_fft_rotate",
    "ds_permute",               # ds_permute_b32 and ds_bpermute_b32
    "ds_bpermute_half_wave64",  # GFX10/10.3/11/11.5: per 32-lane half in wave64
    "ds_bpermute_fi",
    "permlane16",               # v_permlane16_b32 and v_permlanex16_b32
    "permlane64",
    "permlane_var",             # v_permlane16_var_b32 / v_permlanex16_var_b32
    "permlane_swap",            # v_permlane16_swap_b32 / v_permlane32_swap_b32 (gfx950)
    "permlane_group",           # v_permlane_bcast/up/down/xor_b32: lane groups of an SGPR width (gfx1250)
    "readlane",                 # readlane / writelane / readfirstlane
    "writelane_two_sgpr",       # GFX10+
    "dpp_hazard_nops",          # GFX8/9 family need s_nop before DPP
    "vcmpx_permlane_hazard",
})

GENERATIONS: tuple[str, ...] = ("gfx8", "gfx9", "gfx10.1", "gfx10.3", "gfx11", "gfx11.5", "gfx12", "gfx12.5")
# gfx12.5: gfx1250's own line (the sources cited in isa/amd/gfx1250.toml name no product family)
FAMILIES: tuple[str, ...] = ("gcn3", "gcn5", "cdna1", "cdna2", "cdna3", "cdna4",
                             "rdna1", "rdna2", "rdna3", "rdna3.5", "rdna4", "gfx12.5")

# Wait states (and, for permlane_after_vcmpx, intervening VALU instructions); every target lists
# every one, 0 where the hazard does not exist.
HAZARDS: frozenset[str] = frozenset({
    "dpp_after_vgpr_write",
    "dpp_after_exec_write",
    "lane_select_after_valu_sgpr_write",
    "vmem_after_valu_sgpr_write",
    "valu_after_valu_sgpr_write",
    "rwlane_after_exec_write",
    "readlane_after_vgpr_write",
    "permlane_swap_after_vgpr_write",
    "permlane_after_vcmpx",
})

FUSION_KEYS: frozenset[str] = frozenset({"dpp16", "dpp8", "dpp64"})
ENCODINGS: frozenset[str] = frozenset({"vop1", "vop2", "vopc", "vop3", "vop3p"})

# Cost kind -> the feature that makes it meaningful (None: every target). A target must define
# exactly the kinds its features allow: a missing one is a hole, an extra one is dead data.
AMD_COST_KINDS: Mapping[str, str | None] = MappingProxyType({
    "valu": None,
    "select": None,
    "exec_write": None,
    "lane_table": None,
    "dpp_mov": "dpp16",
    "dpp_fused": "dpp16",
    "dpp8_mov": "dpp8",
    "permlane16": "permlane16",
    "permlane64": "permlane64",
    "permlane_var": "permlane_var",
    "permlane_swap": "permlane_swap",
    "permlane_group": "permlane_group",
    "readlane": "readlane",
    "readfirstlane": "readlane",
    "writelane": "readlane",
    "ds_swizzle": "ds_swizzle",
    "ds_bpermute": "ds_permute",
    "ds_permute": "ds_permute",
    "ds_bpermute_fi": "ds_bpermute_fi",
    "ds_bpermute_wave64_emulation": "ds_bpermute_half_wave64",
    "dpp_hazard_nop": "dpp_hazard_nops",
})

NVIDIA_FEATURES: frozenset[str] = frozenset({
    "shfl_sync", "shfl_legacy", "vote_sync", "match_sync", "activemask",
    "redux_sync_int", "redux_sync_f32_minmax",
})

NVIDIA_COST_KINDS: Mapping[str, str | None] = MappingProxyType({
    "alu": None,
    "ld_shared": None,
    "smem_exchange": None,
    "shfl": "shfl_sync",
    "shfl_reg": "shfl_sync",
    "vote_sync": "vote_sync",
    "match_sync": "match_sync",
    "redux_sync_int": "redux_sync_int",
    "redux_sync_f32": "redux_sync_f32_minmax",
})


# --- records -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Cost:
    cycles: float
    source: str


def _check_feature(feature: str, vocabulary: frozenset[str], vendor: str) -> None:
    if feature not in vocabulary:
        raise ValueError(f"unknown {vendor} feature {feature!r}; "
                         f"known: {', '.join(sorted(vocabulary))}")


def _lookup_cost(name: str, costs: Mapping[str, Cost], kinds: Mapping[str, str | None],
                 kind: str) -> float:
    if kind not in kinds:
        raise ValueError(f"unknown cost kind {kind!r}; known: {', '.join(kinds)}")
    if kind not in costs:
        raise KeyError(f"target {name} has no cost {kind!r} (it lacks feature "
                       f"{kinds[kind]!r}); its costs: {', '.join(costs)}")
    return costs[kind].cycles


# eq=False: targets are memoized singletons, hashed by identity (usable as lru_cache keys).
@dataclass(frozen=True, eq=False)
class AmdTarget:
    name: str
    generation: str
    family: str
    llvm_cpu: str
    waves: tuple[int, ...]
    default_wave: int
    features: frozenset[str]
    hazards: Mapping[str, int]
    fusion: Mapping[str, object]
    costs: Mapping[str, Cost]
    path: str
    features_source: str = ""
    sources: Mapping[str, str] = field(default_factory=dict)  # "waves", "hazards.<k>", ...
    target_id_features: tuple[str, ...] = ()                   # xnack, sramecc (target IDs)

    def has(self, feature: str) -> bool:
        _check_feature(feature, FEATURES, "AMD")
        return feature in self.features

    def cost(self, kind: str) -> float:
        return _lookup_cost(self.name, self.costs, AMD_COST_KINDS, kind)

    def resolve_wave(self, wave: int | None) -> int:
        """The wave size to compile for: the target's default, or `wave` if the target runs it."""
        if wave is None:
            return self.default_wave
        if wave not in self.waves:
            raise UsageError(f"{self.name} runs wave{'/'.join(map(str, self.waves))}, not wave{wave}")
        return wave

    def __repr__(self) -> str:
        return f"AmdTarget({self.name!r})"


@dataclass(frozen=True, eq=False)
class NvidiaTarget:
    name: str
    sm: int
    features: frozenset[str]
    costs: Mapping[str, Cost]
    path: str
    features_source: str = ""

    def has(self, feature: str) -> bool:
        _check_feature(feature, NVIDIA_FEATURES, "NVIDIA")
        return feature in self.features

    def cost(self, kind: str) -> float:
        return _lookup_cost(self.name, self.costs, NVIDIA_COST_KINDS, kind)

    def __repr__(self) -> str:
        return f"NvidiaTarget({self.name!r})"


@dataclass(frozen=True)
class Catalog:
    amd: Mapping[str, AmdTarget]
    nvidia: Mapping[str, NvidiaTarget]


# --- reading one file ----------------------------------------------------------------------------

def _line_of(text: str, keys: tuple[str, ...]) -> int | None:
    """1-based line of a (possibly nested) key: its table header, then the key below it."""
    lines = text.splitlines()
    start, rest, hit = 0, keys, None
    for n in range(len(keys), 0, -1):
        header = re.compile(r"^\s*\[\s*" + r"\s*\.\s*".join(map(re.escape, keys[:n])) + r"\s*\]")
        hit = next((i for i, line in enumerate(lines) if header.match(line)), None)
        if hit is not None:
            if n == len(keys):
                return hit + 1
            start, rest = hit + 1, keys[n:]
            break
    key = re.compile(r'^\s*"?' + re.escape(rest[0]) + r'"?\s*[=.]')
    for i in range(start, len(lines)):
        if lines[i].lstrip().startswith("["):
            break  # the key lives in the table opened above, or at top level
        if key.match(lines[i]):
            return i + 1
    return hit + 1 if hit is not None else None


@dataclass(frozen=True)
class _File:
    path: Path
    text: str
    data: Mapping[str, Any]

    @property
    def stem(self) -> str:
        return self.path.stem

    def where(self, *keys: str) -> Location:
        return Location(str(self.path), _line_of(self.text, keys) if keys else None)

    def error(self, keys: tuple[str, ...], reason: str) -> InputError:
        return InputError(f"{'.'.join(keys)}: {reason}" if keys else reason, self.where(*keys))


def _read(path: Path) -> _File:
    text = path.read_bytes().decode("utf-8")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"line (\d+)", str(exc))
        line = int(m.group(1)) if m else max(1, len(text.splitlines()))  # "at end of document"
        raise InputError(f"invalid TOML: {exc}", Location(str(path), line)) from None
    return _File(path, text, data)


# --- schema --------------------------------------------------------------------------------------

def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _nonempty_str(v: object) -> bool:
    return isinstance(v, str) and v.strip() != ""


def _names_in(vocab: Iterable[str]) -> Callable[[object], bool]:
    vocab = frozenset(vocab)
    return lambda v: isinstance(v, list) and all(isinstance(x, str) and x in vocab for x in v)


def _check_scalar(f: _File, key: str, value: object, check: Callable[[object], bool],
                  expect: str) -> None:
    if not check(value):
        raise f.error((key,), f"expected {expect}, got {value!r}")


def _check_list(f: _File, key: str, value: object, vocab: Iterable[str], what: str) -> None:
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise f.error((key,), f"expected a list of {what} names, got {value!r}")
    vocab = frozenset(vocab)
    bad = [x for x in value if x not in vocab]
    if bad:
        raise f.error((key,), f"unknown {what} {bad[0]!r}; known: {', '.join(sorted(vocab))}")
    if len(set(value)) != len(value):
        raise f.error((key,), f"duplicate {what} in {value!r}")


def _check_costs(f: _File, costs: object, kinds: Mapping[str, str | None]) -> None:
    if not isinstance(costs, dict):
        raise f.error(("costs",), "expected a table of [costs.<kind>] tables")
    for kind, entry in costs.items():
        if kind not in kinds:
            raise f.error(("costs", kind), f"unknown cost kind; known: {', '.join(kinds)}")
        if not isinstance(entry, dict):
            raise f.error(("costs", kind), "expected a table with cycles and source")
        for k, v in entry.items():
            if k == "cycles":
                if not _is_number(v) or v < 0:
                    raise f.error(("costs", kind, k), f"expected a number >= 0, got {v!r}")
            elif k == "source":
                if not _nonempty_str(v):
                    raise f.error(("costs", kind, k), "expected a non-empty string")
            else:
                raise f.error(("costs", kind, k), "unknown key; expected cycles, source")


def _check_paired_table(f: _File, table: str, value: object, names: frozenset[str],
                        check: Callable[[object], bool], expect: str) -> None:
    """[hazards] / [fusion]: `<name> = value` plus `<name>_source = "..."`."""
    if not isinstance(value, dict):
        raise f.error((table,), "expected a table")
    for k, v in value.items():
        if k.endswith("_source") and k[:-len("_source")] in names:
            if not _nonempty_str(v):
                raise f.error((table, k), "expected a non-empty string")
        elif k in names:
            if not check(v):
                raise f.error((table, k), f"expected {expect}, got {v!r}")
        else:
            raise f.error((table, k), f"unknown key; known: {', '.join(sorted(names))} "
                                      f"(each with a <key>_source)")


_COMMON_KEYS = {
    "inherits": (_nonempty_str, "a file stem"),
    "description": (_nonempty_str, "a non-empty string"),
    "source": (_nonempty_str, "a non-empty string"),
    "features_source": (_nonempty_str, "a non-empty string"),
}

_AMD_KEYS = {
    **_COMMON_KEYS,
    "generation": (lambda v: v in GENERATIONS, "one of " + ", ".join(GENERATIONS)),
    "family": (lambda v: v in FAMILIES, "one of " + ", ".join(FAMILIES)),
    "llvm_cpu": (_nonempty_str, "a non-empty string"),
    "waves": (lambda v: isinstance(v, list) and len(v) > 0 and all(_is_int(x) and x in (32, 64)
                                                                     for x in v)
              and len(set(v)) == len(v), "a non-empty list of 32 and/or 64"),
    "default_wave": (lambda v: _is_int(v) and v in (32, 64), "32 or 64"),
    "waves_source": (_nonempty_str, "a non-empty string"),
    # target ID features (`gfx90a:xnack+`): which of xnack / sramecc the processor takes
    "target_id_features": (lambda v: isinstance(v, list) and set(v) <= {"xnack", "sramecc"}
                           and len(set(v)) == len(v), "a list of xnack and/or sramecc"),
    "target_id_features_source": (_nonempty_str, "a non-empty string"),
}

_NVIDIA_KEYS = {
    **_COMMON_KEYS,
    "sm": (lambda v: _is_int(v) and v > 0, "a positive integer"),
}

_LIST_KEYS = ("features", "features_add", "features_remove")


def _validate_file(f: _File, vendor: str) -> None:
    scalars = _AMD_KEYS if vendor == "amd" else _NVIDIA_KEYS
    features = FEATURES if vendor == "amd" else NVIDIA_FEATURES
    kinds = AMD_COST_KINDS if vendor == "amd" else NVIDIA_COST_KINDS
    tables = ("costs", "hazards", "fusion") if vendor == "amd" else ("costs",)
    for key, value in f.data.items():
        if key in scalars:
            _check_scalar(f, key, value, *scalars[key])
        elif key in _LIST_KEYS:
            _check_list(f, key, value, features, "feature")
        elif key == "costs_remove":
            _check_list(f, key, value, kinds, "cost kind")
        elif key == "costs" and "costs" in tables:
            _check_costs(f, value, kinds)
        elif key == "hazards" and "hazards" in tables:
            _check_paired_table(f, key, value, HAZARDS, lambda v: _is_int(v) and v >= 0,
                                "an integer >= 0")
        elif key == "fusion" and "fusion" in tables:
            _check_paired_table(f, key, value, FUSION_KEYS, _names_in(ENCODINGS),
                                "a list of encodings from " + ", ".join(sorted(ENCODINGS)))
        else:
            known = sorted([*scalars, *_LIST_KEYS, "costs_remove", *tables])
            raise f.error((key,), f"unknown key; known: {', '.join(known)}")


# --- inheritance ---------------------------------------------------------------------------------

def _chain(files: Mapping[str, _File], stem: str) -> list[_File]:
    """The inherits chain of `stem`, root first."""
    seen = [stem]
    while (parent := files[seen[-1]].data.get("inherits")) is not None:
        f = files[seen[-1]]  # the file whose `inherits` is at fault, if any
        if parent in seen:
            raise f.error(("inherits",), "inherits cycle: " + " -> ".join([*seen, parent]))
        if parent not in files:
            raise f.error(("inherits",), f"no file {parent}.toml beside it; known: "
                                         f"{', '.join(sorted(files))}")
        seen.append(parent)
    return [files[s] for s in reversed(seen)]


@dataclass
class _Merged:
    """A resolved chain: every value remembers the file it came from (for error locations)."""
    leaf: _File
    scalars: dict[str, tuple[Any, _File]] = field(default_factory=dict)
    features: dict[str, _File] = field(default_factory=dict)
    features_source: list[str] = field(default_factory=list)
    tables: dict[str, dict[str, tuple[Any, _File]]] = field(default_factory=dict)
    costs: dict[str, dict[str, tuple[Any, _File]]] = field(default_factory=dict)


def _merge(chain: list[_File]) -> _Merged:
    m = _Merged(chain[-1])
    for f in chain:
        d = f.data
        for k, v in d.items():
            if k not in (*_LIST_KEYS, "features_source", "costs", "costs_remove", "hazards",
                         "fusion", "inherits"):
                m.scalars[k] = (v, f)
        if "features" in d:
            m.features = {x: f for x in d["features"]}
        for x in d.get("features_add", []):
            m.features[x] = f
        for x in d.get("features_remove", []):
            if x not in m.features:
                raise f.error(("features_remove",), f"{x!r} is not inherited, nothing to remove")
            del m.features[x]
        if "features_source" in d:
            m.features_source.append(d["features_source"])
        for table in ("hazards", "fusion"):
            for k, v in d.get(table, {}).items():
                m.tables.setdefault(table, {})[k] = (v, f)
        for kind, entry in d.get("costs", {}).items():
            for k, v in entry.items():
                m.costs.setdefault(kind, {})[k] = (v, f)
        for kind in d.get("costs_remove", []):
            if kind not in m.costs:
                raise f.error(("costs_remove",), f"{kind!r} is not inherited, nothing to remove")
            del m.costs[kind]
    return m


def _required(m: _Merged, key: str) -> Any:
    if key not in m.scalars:
        raise m.leaf.error((), f"{key}: missing (neither {m.leaf.path.name} nor a file it "
                               f"inherits sets it)")
    return m.scalars[key][0]


def _resolve_costs(m: _Merged, features: frozenset[str],
                   kinds: Mapping[str, str | None]) -> Mapping[str, Cost]:
    costs: dict[str, Cost] = {}
    for kind, need in kinds.items():
        entry = m.costs.get(kind)
        if entry is None:
            if need is None or need in features:
                why = "every target" if need is None else f"feature {need!r}"
                raise m.leaf.error((), f"costs.{kind}: missing ({why} needs it)")
            continue
        for k in ("cycles", "source"):
            if k not in entry:
                origin = next(iter(entry.values()))[1]
                raise origin.error(("costs", kind), f"missing {k}")
        if need is not None and need not in features:
            origin = entry["cycles"][1]
            raise origin.error(("costs", kind), f"{m.leaf.stem} lacks feature {need!r}; drop "
                                                f"the cost with costs_remove or add the feature")
        costs[kind] = Cost(float(entry["cycles"][0]), entry["source"][0])
    return MappingProxyType(costs)


def _resolve_paired(m: _Merged, table: str, names: frozenset[str],
                    sources: dict[str, str]) -> dict[str, Any]:
    entries = m.tables.get(table, {})
    out: dict[str, Any] = {}
    for name in sorted(names):
        for k in (name, name + "_source"):
            if k not in entries:
                raise m.leaf.error((), f"{table}.{k}: missing")
        out[name] = entries[name][0]
        sources[f"{table}.{name}"] = entries[name + "_source"][0]
    return out


def _resolve_amd(m: _Merged) -> AmdTarget:
    features = frozenset(m.features)
    waves = tuple(_required(m, "waves"))
    default_wave = _required(m, "default_wave")
    if default_wave not in waves:
        origin = m.scalars["default_wave"][1]
        raise origin.error(("default_wave",), f"{default_wave} is not one of waves {list(waves)}")
    if not m.features_source:
        raise m.leaf.error((), "features_source: missing")
    sources = {"target": _required(m, "source"), "waves": _required(m, "waves_source")}
    id_features = tuple(m.scalars["target_id_features"][0]) if "target_id_features" in m.scalars else ()
    if "target_id_features" in m.scalars:
        sources["target_id_features"] = _required(m, "target_id_features_source")
    hazards = _resolve_paired(m, "hazards", HAZARDS, sources)
    fusion = {k: tuple(v) for k, v in _resolve_paired(m, "fusion", FUSION_KEYS, sources).items()}
    return AmdTarget(
        name=m.leaf.stem,
        generation=_required(m, "generation"),
        family=_required(m, "family"),
        llvm_cpu=_required(m, "llvm_cpu"),
        waves=waves,
        default_wave=default_wave,
        features=features,
        hazards=MappingProxyType(hazards),
        fusion=MappingProxyType(fusion),
        costs=_resolve_costs(m, features, AMD_COST_KINDS),
        path=str(m.leaf.path),
        features_source="; ".join(m.features_source),
        sources=MappingProxyType(sources),
        target_id_features=id_features,
    )


def _resolve_nvidia(m: _Merged) -> NvidiaTarget:
    features = frozenset(m.features)
    if not m.features_source:
        raise m.leaf.error((), "features_source: missing")
    if not re.fullmatch(r"sm_\d+[a-z]?", m.leaf.stem):
        raise m.leaf.error((), f"target file name {m.leaf.path.name!r} is not sm_NN[suffix].toml")
    sm = _required(m, "sm")
    if int(re.sub(r"\D", "", m.leaf.stem)) != sm:
        raise m.leaf.error(("sm",), f"{sm} does not match the file name {m.leaf.path.name}")
    return NvidiaTarget(
        name=m.leaf.stem,
        sm=sm,
        features=features,
        costs=_resolve_costs(m, features, NVIDIA_COST_KINDS),
        path=str(m.leaf.path),
        features_source="; ".join(m.features_source),
    )


def _load_vendor(directory: Path, vendor: str) -> dict[str, Any]:
    files = _VendorFiles(directory, vendor)
    for stem in files:
        files[stem]                          # every file read and validated, not only the targets' chains
    return {stem: _resolve_target(files, vendor, stem) for stem in files if not stem.startswith("_")}


def _resolve_target(files: Mapping[str, _File], vendor: str, stem: str) -> Any:
    """The target `stem` of `files`: its inherits chain merged and resolved."""
    resolve = _resolve_amd if vendor == "amd" else _resolve_nvidia
    return resolve(_merge(_chain(files, stem)))


class _VendorFiles(Mapping[str, _File]):
    """One vendor's TOML files by stem, each read and validated when first asked for: a compile
    resolves its own target's inherits chain (three files), not the whole catalog."""

    def __init__(self, directory: Path, vendor: str) -> None:
        self._paths = {p.stem: p for p in sorted(directory.glob("*.toml"))} if directory.is_dir() else {}
        self._vendor = vendor
        self._read: dict[str, _File] = {}

    def __getitem__(self, stem: str) -> _File:
        if stem not in self._read:
            f = _read(self._paths[stem])
            _validate_file(f, self._vendor)
            self._read[stem] = f
        return self._read[stem]

    def __contains__(self, stem: object) -> bool:
        return stem in self._paths

    def __iter__(self):
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)


@functools.lru_cache(maxsize=2)
def _vendor_files(vendor: str) -> _VendorFiles:
    return _VendorFiles(data_dir() / vendor, vendor)


@functools.lru_cache(maxsize=None)
def _resolved(vendor: str, stem: str) -> Any:
    """One target of the installed catalog, as load_targets resolves it."""
    return _resolve_target(_vendor_files(vendor), vendor, stem)


# --- public API ----------------------------------------------------------------------------------

def data_dir() -> Path:
    """isa/ in a checkout; shflx/isa_data when installed (pyproject maps it there)."""
    here = Path(__file__).resolve().parent
    installed = here / "isa_data"
    return installed if installed.is_dir() else here.parent / "isa"


def load_targets(directory: Path | str) -> Catalog:
    """Read and resolve every target under `directory`/amd and `directory`/nvidia (not memoized)."""
    directory = Path(directory)
    amd = _load_vendor(directory / "amd", "amd")
    nvidia = _load_vendor(directory / "nvidia", "nvidia")
    return Catalog(MappingProxyType(dict(sorted(amd.items(), key=lambda kv: _gfx_key(kv[0])))),
                   MappingProxyType(dict(sorted(nvidia.items(), key=lambda kv: _sm_key(kv[0])))))


def _gfx_key(name: str) -> tuple:
    """LLVM's reading of gfxMMms: major = all but the last two digits, stepping is hex (gfx90a)."""
    m = re.fullmatch(r"gfx(\d+)([0-9a-f])([0-9a-f])", name)
    if not m:
        return (1 << 30, name)
    return (int(m.group(1)), int(m.group(2), 16), int(m.group(3), 16))


def _sm_key(name: str) -> tuple:
    m = re.fullmatch(r"sm_(\d+)([a-z]?)", name)
    return (int(m.group(1)), m.group(2)) if m else (1 << 30, name)


@functools.lru_cache(maxsize=None)
def known_amd_targets() -> tuple[str, ...]:
    return tuple(sorted((s for s in _vendor_files("amd") if not s.startswith("_")), key=_gfx_key))


@functools.lru_cache(maxsize=None)
def known_nvidia_targets() -> tuple[str, ...]:
    return tuple(sorted((s for s in _vendor_files("nvidia") if not s.startswith("_")), key=_sm_key))


def _pick(vendor: str, known: tuple[str, ...], name: str) -> Any:
    key = name.strip().lower()
    if key not in known:
        raise UsageError(f"unknown target {name!r}; known: {', '.join(known)}")
    return _resolved(vendor, key)


def amd_target(name: str) -> AmdTarget:
    return _pick("amd", known_amd_targets(), name)


def nvidia_target(name: str) -> NvidiaTarget:
    return _pick("nvidia", known_nvidia_targets(), name)


def files_digest(directory: Path | str) -> str:
    """sha256 over every TOML file under `directory` (relative path and bytes, sorted)."""
    directory = Path(directory)
    h = hashlib.sha256()
    for p in sorted(directory.rglob("*.toml")):
        rel = p.relative_to(directory).as_posix().encode()
        data = p.read_bytes()
        h.update(len(rel).to_bytes(4, "big") + rel + len(data).to_bytes(8, "big") + data)
    return h.hexdigest()


@functools.lru_cache(maxsize=1)
def target_files_digest() -> str:
    """Keys caches of solved plans: any edit to isa/ invalidates them."""
    return files_digest(data_dir())
