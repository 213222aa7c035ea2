"""The ISA catalog against the spec (not against itself), plus the loader's schema and merging.

Tables below are transcribed by hand from spec/amd_crosslane.md §15 / §13 and
spec/cuda_ptx_shfl.md §5 / §7, so a data edit that contradicts the spec fails here."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from shflx import isa
from shflx.errors import InputError, UsageError

REQUIRED_AMD = ("gfx801 gfx802 gfx803 gfx805 gfx810 gfx900 gfx902 gfx904 gfx906 gfx908 gfx909 gfx90a gfx90c "
                "gfx940 gfx942 gfx950 gfx1010 gfx1011 gfx1012 gfx1013 gfx1030 gfx1031 gfx1032 gfx1033 gfx1034 "
                "gfx1035 gfx1036 gfx1100 gfx1101 gfx1102 gfx1103 gfx1150 gfx1151 gfx1152 gfx1153 gfx1200 "
                "gfx1201 gfx1250").split()
REQUIRED_NVIDIA = "sm_70 sm_75 sm_80 sm_86 sm_89 sm_90 sm_100a sm_120".split()

# --- spec/amd_crosslane.md §15 (support table), one column per generation ------------------------
# GFX12.5 (gfx1250) is no §15 column (the spec leaves gfx1250 out of scope): GFX12's cells, plus
# permlane_group, and vcmpx_permlane_hazard = Y as §13.1's table says for gfx1250; the sources of
# the rest are in isa/amd/gfx1250.toml
COLUMNS = "GFX8 GFX9 gfx908 gfx90a gfx94x gfx950 GFX10.1 GFX10.3 GFX11 GFX12 GFX12.5".split()
COLUMN_OF = {
    "gfx803": "GFX8", "gfx900": "GFX9", "gfx906": "GFX9", "gfx908": "gfx908", "gfx90a": "gfx90a",
    "gfx940": "gfx94x", "gfx942": "gfx94x", "gfx950": "gfx950", "gfx1010": "GFX10.1",
    "gfx1030": "GFX10.3", "gfx1100": "GFX11", "gfx1101": "GFX11", "gfx1150": "GFX11",
    "gfx1151": "GFX11", "gfx1200": "GFX12", "gfx1201": "GFX12", "gfx1250": "GFX12.5",
    # every processor LLVM lists for these generations (llvm/docs/AMDGPUUsage.rst), by its column
    **{t: "GFX8" for t in ("gfx801", "gfx802", "gfx805", "gfx810")},
    **{t: "GFX9" for t in ("gfx902", "gfx904", "gfx909", "gfx90c")},
    **{t: "GFX10.1" for t in ("gfx1011", "gfx1012", "gfx1013")},
    **{f"gfx103{k}": "GFX10.3" for k in range(1, 7)},
    **{t: "GFX11" for t in ("gfx1102", "gfx1103", "gfx1152", "gfx1153")},
}
# Y = supported; N = not; "-" = not applicable (§15's own notation), i.e. absent. Y* counts as Y.
SPEC_15 = {
    #                         GFX8 GFX9 908 90a 94x 950 10.1 10.3 11 12  12.5
    "dpp16":                 "Y    Y    Y   Y   Y   Y*  Y    Y    Y  Y  Y",
    "dpp_wave_shift":        "Y    Y    Y   Y   Y   Y*  N    N    N  N  N",
    "dpp_row_bcast":         "Y    Y    Y   Y   Y   Y*  N    N    N  N  N",
    "dpp_row_newbcast":      "N    N    N   Y   Y   Y*  -    -    -  -  -",
    "dpp_row_share":         "N    N    N   -   -   -   Y    Y    Y  Y  Y",
    "dpp_row_xmask":         "N    N    N   N   N   N*  Y    Y    Y  Y  Y",
    "dpp_fi":                "N    N    N   N   N   N*  Y    Y    Y  Y  Y",
    "dpp_vopc":              "N    N    N   N   N   N*  N    N    Y  Y  Y",
    "dpp_vop3":              "N    N    N   N   N   N*  N    N    Y  Y  Y",
    "dpp_vop3_sgpr_src1":    "-    -    -   -   -   -   -    -    N  Y  Y",
    "dpp64_row_newbcast":    "N    N    N   Y   Y   Y*  N    N    N  N  N",
    "dpp8":                  "N    N    N   N   N   N*  Y    Y    Y  Y  Y",
    "ds_swizzle":            "Y    Y    Y   Y   Y   Y*  Y    Y    Y  Y  Y",
    "ds_swizzle_fft_rotate": "N    Y    Y   Y   Y   Y*  Y    Y    Y  Y  Y",
    "ds_permute":            "Y    Y    Y   Y   Y   Y*  Y    Y    Y  Y  Y",
    # the row "…full-wave in wave64" negated: N (half) -> half-wave
    "ds_bpermute_half_wave64": "N  N    N   N   N   N   Y    Y    Y  N  N",
    "ds_bpermute_fi":        "N    N    N   N   N   N   N    N    N  Y  Y",
    "permlane16":            "N    N    N   N   N   N   Y    Y    Y  Y  Y",
    "permlane64":            "N    N    N   N   N   N   N    N    Y  Y  Y",
    "permlane_var":          "N    N    N   N   N   N   N    N    N  Y  Y",
    "permlane_swap":         "N    N    N   N   N   Y*  N    N    N  N  N",
    "readlane":              "Y    Y    Y   Y   Y   Y   Y    Y    Y  Y  Y",
    "dpp_hazard_nops":       "Y    Y    Y   Y   Y   Y   N    N    N  N  N",
    # not §15 rows: §11 (two scalars in v_writelane on GFX10+ only) and §13.1 (VcmpxPermlane)
    "writelane_two_sgpr":    "N    N    N   N   N   N   Y    Y    Y  Y  Y",
    "vcmpx_permlane_hazard": "N    N    N   N   N   N   Y    Y    Y  N  Y",
    # not a §15 row: gfx1250's v_permlane_bcast/up/down/xor_b32 (isa/amd/gfx1250.toml)
    "permlane_group":        "N    N    N   N   N   N   N    N    N  N  Y",
}
# Where the data knowingly departs from the spec, with the reason (each also stated in the TOML).
DEVIATIONS = {
    ("vcmpx_permlane_hazard", "GFX12"): "LLVM AMDGPU.td FeatureISAVersion12 has "
                                        "FeatureVcmpxPermlaneHazard; conservative (one VALU)",
}


def _spec_has(feature: str, column: str) -> bool:
    cell = SPEC_15[feature].split()[COLUMNS.index(column)]
    assert cell in ("Y", "Y*", "N", "N*", "-"), cell
    return cell.startswith("Y")


def test_spec_table_covers_the_vocabulary():
    assert set(SPEC_15) == isa.FEATURES


def test_known_targets_are_exactly_the_required_ones_in_natural_order():
    assert isa.known_amd_targets() == tuple(REQUIRED_AMD)
    assert isa.known_nvidia_targets() == tuple(REQUIRED_NVIDIA)


def test_a_target_resolved_alone_is_the_one_the_whole_catalog_resolves():
    """amd_target/nvidia_target read only a target's inherits chain; load_targets reads and
    validates every file: both give the same facts for every installed target."""
    from dataclasses import fields

    whole = isa.load_targets(isa.data_dir())
    assert tuple(whole.amd) == isa.known_amd_targets() and tuple(whole.nvidia) == isa.known_nvidia_targets()
    for table, alone in ((whole.amd, isa.amd_target), (whole.nvidia, isa.nvidia_target)):
        for name, target in table.items():
            mine = alone(name)
            assert mine is alone(name.upper())                # resolved once per process
            assert all(getattr(mine, f.name) == getattr(target, f.name) for f in fields(target)), name
    with pytest.raises(UsageError, match="unknown target 'gfx_none'"):
        isa.amd_target("gfx_none")


@pytest.mark.parametrize("name", REQUIRED_AMD)
def test_features_agree_with_spec_15(name):
    target = isa.amd_target(name)
    column = COLUMN_OF[name]
    for feature in sorted(isa.FEATURES):
        expected = _spec_has(feature, column)
        if (feature, column) in DEVIATIONS:
            expected = not expected
        assert target.has(feature) == expected, (name, feature, column)


GENERATION = {  # spec/amd_crosslane.md conventions
    "gfx803": ("gfx8", "gcn3"), "gfx900": ("gfx9", "gcn5"), "gfx906": ("gfx9", "gcn5"),
    "gfx908": ("gfx9", "cdna1"), "gfx90a": ("gfx9", "cdna2"), "gfx940": ("gfx9", "cdna3"),
    "gfx942": ("gfx9", "cdna3"), "gfx950": ("gfx9", "cdna4"), "gfx1010": ("gfx10.1", "rdna1"),
    "gfx1030": ("gfx10.3", "rdna2"), "gfx1100": ("gfx11", "rdna3"), "gfx1101": ("gfx11", "rdna3"),
    "gfx1150": ("gfx11.5", "rdna3.5"), "gfx1151": ("gfx11.5", "rdna3.5"),
    "gfx1200": ("gfx12", "rdna4"), "gfx1201": ("gfx12", "rdna4"), "gfx1250": ("gfx12.5", "gfx12.5"),
    **{t: ("gfx8", "gcn3") for t in ("gfx801", "gfx802", "gfx805", "gfx810")},
    **{t: ("gfx9", "gcn5") for t in ("gfx902", "gfx904", "gfx909", "gfx90c")},
    **{t: ("gfx10.1", "rdna1") for t in ("gfx1011", "gfx1012", "gfx1013")},
    **{f"gfx103{k}": ("gfx10.3", "rdna2") for k in range(1, 7)},
    "gfx1102": ("gfx11", "rdna3"), "gfx1103": ("gfx11", "rdna3"),
    "gfx1152": ("gfx11.5", "rdna3.5"), "gfx1153": ("gfx11.5", "rdna3.5"),
}


@pytest.mark.parametrize("name", REQUIRED_AMD)
def test_identity_and_waves(name):
    t = isa.amd_target(name)
    assert (t.generation, t.family) == GENERATION[name]
    assert t.llvm_cpu == name and t.name == name
    if t.generation in ("gfx8", "gfx9"):           # §3.7: W = 64 always on GFX8/9/CDNA
        assert (t.waves, t.default_wave) == ((64,), 64)
    elif name == "gfx1250":                         # wave32 only (isa/amd/gfx1250.toml waves_source)
        assert (t.waves, t.default_wave) == ((32,), 32)
    else:                                           # GFX10+: 32 or 64, wave32 default (DESIGN 2)
        assert (t.waves, t.default_wave) == ((32, 64), 32)
    assert Path(t.path).name == f"{name}.toml"


# --- hazards (§13.1) and fusion (§3.4) ----------------------------------------------------------

@pytest.mark.parametrize("name", REQUIRED_AMD)
def test_hazards_match_spec_13_1(name):
    t = isa.amd_target(name)
    assert set(t.hazards) == isa.HAZARDS
    gcn = t.generation in ("gfx8", "gfx9")
    assert t.hazards["dpp_after_vgpr_write"] == (2 if gcn else 0)
    assert t.hazards["dpp_after_exec_write"] == (5 if gcn else 0)
    assert t.hazards["lane_select_after_valu_sgpr_write"] == (4 if gcn else 0)
    assert t.hazards["vmem_after_valu_sgpr_write"] == (5 if gcn else 0)
    gfx94x = t.family in ("cdna3", "cdna4")
    assert t.hazards["valu_after_valu_sgpr_write"] == (2 if gfx94x else 0)
    assert t.hazards["rwlane_after_exec_write"] == (4 if gfx94x else 0)
    assert t.hazards["readlane_after_vgpr_write"] == (1 if gfx94x else 0)
    assert t.hazards["permlane_swap_after_vgpr_write"] == (2 if name == "gfx950" else 0)
    assert t.hazards["permlane_after_vcmpx"] == (1 if t.has("vcmpx_permlane_hazard") else 0)
    assert t.has("dpp_hazard_nops") == (t.hazards["dpp_after_vgpr_write"] > 0)
    for key in t.hazards:
        assert t.sources[f"hazards.{key}"].strip()


@pytest.mark.parametrize("name", REQUIRED_AMD)
def test_fusion_agrees_with_features(name):
    t = isa.amd_target(name)
    assert set(t.fusion) == isa.FUSION_KEYS
    dpp16 = set(t.fusion["dpp16"])
    assert {"vop1", "vop2"} <= dpp16                       # §3.4: VOP1/VOP2 everywhere
    assert ("vopc" in dpp16) == t.has("dpp_vopc")
    assert ("vop3" in dpp16) == t.has("dpp_vop3") == ("vop3p" in dpp16)
    assert bool(t.fusion["dpp8"]) == t.has("dpp8")
    if t.has("dpp8"):                                       # §4: same classes as DPP16
        assert set(t.fusion["dpp8"]) == dpp16
    assert bool(t.fusion["dpp64"]) == t.has("dpp64_row_newbcast")
    for key in t.fusion:
        assert t.sources[f"fusion.{key}"].strip()


# --- costs ---------------------------------------------------------------------------------------

CITES = re.compile(r"§\d|llvm/llvm-project|mesa|\[estimate\]")


@pytest.mark.parametrize("name", REQUIRED_AMD)
def test_every_cost_a_feature_needs_is_there_with_a_source(name):
    t = isa.amd_target(name)
    for kind, feature in isa.AMD_COST_KINDS.items():
        needed = feature is None or t.has(feature)
        assert (kind in t.costs) == needed, (name, kind)
        if needed:
            cost = t.costs[kind]
            assert t.cost(kind) == cost.cycles >= 0
            assert CITES.search(cost.source), (name, kind, cost.source)


@pytest.mark.parametrize("name", REQUIRED_AMD)
def test_cost_ordering(name):
    t = isa.amd_target(name)
    c = t.cost
    assert c("ds_bpermute") > c("dpp_mov")                  # §13.3: DPP 4-12 vs ~50
    assert c("ds_bpermute") >= c("ds_swizzle")              # §13.3: swizzle >= bpermute in speed
    assert c("ds_bpermute") > c("valu")                     # it includes the index v_lshlrev
    assert c("dpp_fused") < c("dpp_mov") <= c("valu")
    assert c("select") > c("valu")                          # v_cndmask plus the mask's s_mov
    for kind in ("dpp8_mov", "permlane16", "permlane64", "permlane_var", "permlane_swap"):
        if kind in t.costs:                                 # VALU-class, far below LDS ops
            assert c("valu") <= c(kind) < c("ds_swizzle")
    if t.has("ds_bpermute_half_wave64"):
        assert c("ds_bpermute_wave64_emulation") > c("ds_bpermute")


def test_costs_reproduce_the_cited_figures():
    mi300 = isa.amd_target("gfx942")
    # §13.3 MI300 guide: DPP 4-12 cycles; ds ops ~50 incl. waitcnt
    low = mi300.cost("dpp_mov")
    high = low + mi300.hazards["dpp_after_vgpr_write"] * mi300.cost("dpp_hazard_nop")
    assert (low, high) == (4, 12)
    assert mi300.cost("ds_swizzle") == 50
    assert mi300.cost("ds_bpermute") == 50 + mi300.cost("valu")
    for name in isa.known_amd_targets():      # every target: the ~50-cycle gather + the index VALU (§6)
        t = isa.amd_target(name)
        assert t.cost("ds_bpermute") == 50 + t.cost("valu"), name
    assert "[estimate]" not in mi300.costs["ds_swizzle"].source
    # §13.3 LLVM SISchedule: GFX6-9 VALU latency 1 (x4 issue), GFX10/11 (and 12) VALU 5
    for name in REQUIRED_AMD:
        t = isa.amd_target(name)
        assert t.cost("valu") == (4 if t.generation in ("gfx8", "gfx9") else 5)
    # GFX11 emulation (permlane64 + 2 bpermutes + select) is cheaper than GFX10's shared VGPRs
    assert (isa.amd_target("gfx1100").cost("ds_bpermute_wave64_emulation")
            < isa.amd_target("gfx1030").cost("ds_bpermute_wave64_emulation"))


def test_costs_are_consistent_within_a_generation():
    by_gen: dict[str, dict] = {}
    for name in REQUIRED_AMD:
        t = isa.amd_target(name)
        shared = {k: c.cycles for k, c in t.costs.items() if k != "permlane_swap"}
        by_gen.setdefault(t.generation, {})
        for k, v in shared.items():
            assert by_gen[t.generation].setdefault(k, v) == v, (name, k)


# --- NVIDIA (spec/cuda_ptx_shfl.md §2.6, §5, §7) ------------------------------------------------

@pytest.mark.parametrize("name", REQUIRED_NVIDIA)
def test_nvidia_features(name):
    t = isa.nvidia_target(name)
    assert t.sm == int(re.sub(r"\D", "", name))
    assert t.has("shfl_sync") and t.has("vote_sync") and t.has("activemask")   # sm_30+
    assert t.has("match_sync")                                                   # sm_70+
    assert not t.has("shfl_legacy")          # §2.6: rejected on sm_70+ with PTX >= 6.4
    assert t.has("redux_sync_int") == (t.sm >= 80)                               # §5.1
    assert t.has("redux_sync_f32_minmax") == (name == "sm_100a")                 # §5.1
    for kind, feature in isa.NVIDIA_COST_KINDS.items():
        assert (kind in t.costs) == (feature is None or t.has(feature)), (name, kind)


@pytest.mark.parametrize("name", REQUIRED_NVIDIA)
def test_nvidia_costs_are_the_h100_measurements(name):
    t = isa.nvidia_target(name)
    measured = {"alu": 4.1, "shfl": 24.0, "shfl_reg": 26.1, "vote_sync": 17.2,
                "match_sync": 368.7, "ld_shared": 23.1, "smem_exchange": 28.0}
    if t.has("redux_sync_int"):
        measured["redux_sync_int"] = 44.1
    for kind, cycles in measured.items():
        assert t.cost(kind) == cycles
        source = t.costs[kind].source
        assert "§7" in source
        assert ("[estimate]" in source) == (name != "sm_90"), (name, kind)
    # §7: one redux replaces 5 x (SHFL + ADD)
    if t.has("redux_sync_int"):
        assert t.cost("redux_sync_int") < 5 * (t.cost("shfl") + t.cost("alu"))


# --- API behaviour -------------------------------------------------------------------------------

def test_unknown_target_lists_the_known_ones():
    with pytest.raises(UsageError) as e:
        isa.amd_target("gfx999")
    assert "unknown target 'gfx999'; known: gfx801, gfx802, gfx803, gfx805, gfx810, gfx900, gfx902" in str(e.value)
    assert str(e.value).endswith("gfx1200, gfx1201, gfx1250")
    assert e.value.exit_code == 2
    with pytest.raises(UsageError, match="known: sm_70, sm_75"):
        isa.nvidia_target("sm_91")
    with pytest.raises(UsageError):
        isa.amd_target("_gfx9")          # family files are not targets


def test_has_and_cost_guard_typos():
    t = isa.amd_target("gfx900")
    with pytest.raises(ValueError, match="unknown AMD feature 'dpp_row_xmsk'"):
        t.has("dpp_row_xmsk")
    with pytest.raises(KeyError, match="gfx900 has no cost 'permlane64'"):
        t.cost("permlane64")
    with pytest.raises(ValueError, match="unknown cost kind"):
        t.cost("permlane")
    with pytest.raises(ValueError, match="unknown NVIDIA feature"):
        isa.nvidia_target("sm_90").has("dpp8")


def test_memoized_and_immutable():
    assert isa.amd_target("gfx942") is isa.amd_target("GFX942")
    t = isa.amd_target("gfx942")
    with pytest.raises(TypeError):
        t.costs["valu"] = isa.Cost(0, "x")  # type: ignore[index]
    assert {t: 1}[isa.amd_target("gfx942")] == 1


def test_digest_tracks_file_bytes(tmp_path):
    assert re.fullmatch(r"[0-9a-f]{64}", isa.target_files_digest())
    assert isa.files_digest(isa.data_dir()) == isa.target_files_digest()
    copy = tmp_path / "isa"
    shutil.copytree(isa.data_dir(), copy)
    assert isa.files_digest(copy) == isa.target_files_digest()
    (copy / "amd" / "gfx942.toml").write_text((copy / "amd" / "gfx942.toml").read_text() + "\n")
    assert isa.files_digest(copy) != isa.target_files_digest()


def test_loading_a_copy_gives_the_same_targets(tmp_path):
    shutil.copytree(isa.data_dir(), tmp_path / "isa")
    cat = isa.load_targets(tmp_path / "isa")
    assert tuple(cat.amd) == tuple(REQUIRED_AMD)
    for name in REQUIRED_AMD:
        a, b = cat.amd[name], isa.amd_target(name)
        assert (a.features, dict(a.costs), dict(a.hazards)) == (b.features, dict(b.costs),
                                                                 dict(b.hazards))


# --- schema and inheritance, on synthetic files --------------------------------------------------

def _root(features: str = "[]", extra: str = "") -> str:
    hazards = "\n".join(f'{h} = 0\n{h}_source = "h"' for h in sorted(isa.HAZARDS))
    fusion = "\n".join(f'{k} = []\n{k}_source = "f"' for k in sorted(isa.FUSION_KEYS))
    return f"""generation = "gfx9"
family = "gcn5"
source = "root"
waves = [64]
default_wave = 64
waves_source = "w"
features = {features}
features_source = "root features"
{extra}
[hazards]
{hazards}

[fusion]
{fusion}

[costs.valu]
cycles = 4
source = "v"

[costs.select]
cycles = 8
source = "s"

[costs.exec_write]
cycles = 4
source = "e"

[costs.lane_table]
cycles = 24
source = "t"
"""


def _write(tmp_path: Path, files: dict[str, str]) -> Path:
    (tmp_path / "amd").mkdir(exist_ok=True)
    for stem, text in files.items():
        (tmp_path / "amd" / f"{stem}.toml").write_text(text)
    return tmp_path


CHILD = 'inherits = "_root"\nllvm_cpu = "gfx900"\n'


def test_inheritance_merges_key_by_key(tmp_path):
    _write(tmp_path, {
        "_root": _root('["ds_swizzle", "readlane"]', extra="""
[costs.ds_swizzle]
cycles = 50
source = "root swizzle"
[costs.readlane]
cycles = 8
source = "r"
[costs.readfirstlane]
cycles = 8
source = "r"
[costs.writelane]
cycles = 4
source = "w"
"""),
        "_mid": """inherits = "_root"
family = "cdna1"
features_add = ["ds_permute"]
features_source = "mid adds permute"
[hazards]
dpp_after_vgpr_write = 2
[costs.ds_bpermute]
cycles = 54
source = "b"
[costs.ds_permute]
cycles = 54
source = "p"
""",
        "gfx908": """inherits = "_mid"
llvm_cpu = "gfx908"
features_remove = ["readlane"]
costs_remove = ["readlane", "readfirstlane", "writelane"]
[hazards]
dpp_after_vgpr_write_source = "leaf source only"
[costs.ds_swizzle]
source = "leaf swizzle source"
""",
    })
    t = isa.load_targets(tmp_path).amd["gfx908"]
    assert (t.generation, t.family, t.llvm_cpu) == ("gfx9", "cdna1", "gfx908")
    assert t.features == {"ds_swizzle", "ds_permute"}
    assert t.features_source == "root features; mid adds permute"
    assert t.hazards["dpp_after_vgpr_write"] == 2
    assert t.sources["hazards.dpp_after_vgpr_write"] == "leaf source only"
    assert t.costs["ds_swizzle"] == isa.Cost(50.0, "leaf swizzle source")
    assert "readlane" not in t.costs
    assert list(isa.load_targets(tmp_path).amd) == ["gfx908"]   # _root, _mid are families


def _error(tmp_path: Path, files: dict[str, str]) -> str:
    _write(tmp_path, files)
    with pytest.raises(InputError) as e:
        isa.load_targets(tmp_path)
    return str(e.value)


def test_unknown_key_names_file_line_and_key(tmp_path):
    msg = _error(tmp_path, {"_root": _root(), "gfx900": CHILD + "colour = 1\n"})
    assert re.search(r"gfx900\.toml:3: error: colour: unknown key", msg), msg


def test_unknown_feature(tmp_path):
    msg = _error(tmp_path, {"_root": _root('["dpp16", "dpp9"]'), "gfx900": CHILD})
    assert re.search(r"_root\.toml:7: error: features: unknown feature 'dpp9'", msg), msg


def test_unknown_hazard_and_cost_kind_point_into_their_tables(tmp_path):
    msg = _error(tmp_path, {"_root": _root(), "gfx900": CHILD + "[hazards]\nnop_after_nop = 1\n"})
    assert re.search(r"gfx900\.toml:4: error: hazards\.nop_after_nop: unknown key", msg), msg
    msg = _error(tmp_path, {"_root": _root(),
                            "gfx900": CHILD + "[costs.teleport]\ncycles = 1\nsource = 'x'\n"})
    assert re.search(r"gfx900\.toml:3: error: costs\.teleport: unknown cost kind", msg), msg


def test_wrong_types(tmp_path):
    msg = _error(tmp_path, {"_root": _root(), "gfx900": CHILD + 'waves = "64"\n'})
    assert re.search(r"gfx900\.toml:3: error: waves: expected", msg), msg
    msg = _error(tmp_path, {"_root": _root(),
                            "gfx900": CHILD + "[costs.valu]\ncycles = true\n"})
    assert re.search(r"gfx900\.toml:4: error: costs\.valu\.cycles: expected a number", msg), msg
    msg = _error(tmp_path, {"_root": _root(),
                            "gfx900": CHILD + "[hazards]\npermlane_after_vcmpx = -1\n"})
    assert "hazards.permlane_after_vcmpx: expected an integer >= 0" in msg
    msg = _error(tmp_path, {"_root": _root(), "gfx900": CHILD + 'generation = "gfx13"\n'})
    assert "generation: expected one of gfx8, gfx9" in msg


def test_missing_required_key(tmp_path):
    msg = _error(tmp_path, {"_root": _root(), "gfx900": 'inherits = "_root"\n'})
    assert "gfx900.toml: error: llvm_cpu: missing" in msg
    msg = _error(tmp_path, {"_root": _root().replace('waves_source = "w"\n', ""),
                            "gfx900": CHILD})
    assert "waves_source: missing" in msg
    msg = _error(tmp_path, {"_root": _root().replace("[costs.select]", "[costs.select_]")
                 .replace("[costs.select_]\ncycles = 8\nsource = \"s\"\n", ""),
                            "gfx900": CHILD})
    assert "costs.select: missing (every target needs it)" in msg


def test_cost_and_feature_must_agree(tmp_path):
    msg = _error(tmp_path, {"_root": _root('["ds_swizzle"]'), "gfx900": CHILD})
    assert "costs.ds_swizzle: missing (feature 'ds_swizzle' needs it)" in msg
    msg = _error(tmp_path, {"_root": _root(),
                            "gfx900": CHILD + "[costs.permlane64]\ncycles = 5\nsource = 'x'\n"})
    assert re.search(r"gfx900\.toml:3: error: costs\.permlane64: gfx900 lacks feature "
                     r"'permlane64'", msg), msg


def test_inherits_cycle_and_missing_parent(tmp_path):
    msg = _error(tmp_path, {"_a": 'inherits = "_b"\n', "_b": 'inherits = "_a"\n',
                            "gfx900": 'inherits = "_a"\n'})
    assert "inherits: inherits cycle: gfx900 -> _a -> _b -> _a" in msg
    assert re.search(r"_b\.toml:1: error", msg), msg
    for p in (tmp_path / "amd").iterdir():
        p.unlink()
    msg = _error(tmp_path, {"gfx900": 'inherits = "_gfx99"\n'})
    assert re.search(r"gfx900\.toml:1: error: inherits: no file _gfx99\.toml", msg), msg


def test_remove_needs_something_to_remove(tmp_path):
    msg = _error(tmp_path, {"_root": _root(), "gfx900": CHILD + 'features_remove = ["dpp8"]\n'})
    assert re.search(r"gfx900\.toml:3: error: features_remove: 'dpp8' is not inherited", msg)


def test_default_wave_must_be_a_wave(tmp_path):
    msg = _error(tmp_path, {"_root": _root(), "gfx900": CHILD + "default_wave = 32\n"})
    assert re.search(r"gfx900\.toml:3: error: default_wave: 32 is not one of waves", msg), msg


def test_bad_toml_syntax_has_a_line(tmp_path):
    msg = _error(tmp_path, {"_root": _root(), "gfx900": CHILD + "waves = [64\n"})
    assert re.search(r"gfx900\.toml:\d+: error: invalid TOML", msg), msg
    msg = _error(tmp_path, {"_root": _root(), "gfx900": CHILD + "waves = = 1\nx = 2\n"})
    assert re.search(r"gfx900\.toml:3: error: invalid TOML", msg), msg


def test_nvidia_schema(tmp_path):
    (tmp_path / "nvidia").mkdir()
    (tmp_path / "nvidia" / "sm_90.toml").write_text(
        'sm = 91\nfeatures = []\nfeatures_source = "x"\n'
        "[costs.alu]\ncycles = 4\nsource = 'a'\n[costs.ld_shared]\ncycles = 23\nsource = 'l'\n"
        "[costs.smem_exchange]\ncycles = 28\nsource = 's'\n")
    with pytest.raises(InputError, match=r"sm_90\.toml:1: error: sm: 91 does not match"):
        isa.load_targets(tmp_path)
    (tmp_path / "nvidia" / "sm_90.toml").write_text(
        'sm = 90\nfeatures = ["redux"]\nfeatures_source = "x"\n')
    with pytest.raises(InputError, match=r"sm_90\.toml:2: error: features: unknown feature"):
        isa.load_targets(tmp_path)


# llvm/docs/AMDGPUUsage.rst, table "AMDGPU Processors", column "Target Features Supported"
# (transcribed by hand; gfx940 as documented, LLVM 22 no longer builds it)
TARGET_ID_FEATURES = {
    **{t: ("xnack",) for t in ("gfx801", "gfx810", "gfx900", "gfx902", "gfx904", "gfx909", "gfx90c",
                               "gfx1010", "gfx1011", "gfx1012", "gfx1013")},
    **{t: ("xnack", "sramecc") for t in ("gfx906", "gfx908", "gfx90a", "gfx940", "gfx942", "gfx950")},
}


@pytest.mark.parametrize("name", REQUIRED_AMD)
def test_target_id_features_follow_amdgpu_usage(name):
    t = isa.amd_target(name)
    assert set(t.target_id_features) == set(TARGET_ID_FEATURES.get(name, ()))
    if t.target_id_features:
        assert "AMDGPUUsage" in t.sources["target_id_features"]
