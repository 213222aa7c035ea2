"""A persistent, content-addressed store of solved patterns, shared safely between processes.

Key: sha256 of (canonical pattern, arch, wave, the search's preference, the bytes of every isa/ TOML file, MODEL_VERSION,
SEARCH_VERSION), so editing ISA data or a model invalidates old entries without a flush (tinygrad's
versioned diskcache, not Souper's). Storage: one SQLite file in WAL mode with a busy timeout, so
many `shflx compile` processes can read and write at once. A hit is replayed on the emulator
before it is trusted (microseconds). SHFLX_CACHE=off disables; SHFLX_CACHE_DIR moves it."""
from __future__ import annotations

import hashlib
import json
import sqlite3
import sys
from functools import lru_cache
from pathlib import Path
from dataclasses import replace
from typing import Callable

from .. import MODEL_VERSION
from ..emulate import Provenance, Trace, result
from ..files import cache_dir, caching_enabled
from ..isa import target_files_digest
from ..pattern import Collective, format_pattern, parse_pattern
from ..plan import Plan, plan_from_json, plan_to_json
from ..target import Target, resolve_target


def enabled() -> bool:
    return caching_enabled()


def key(pattern: str, target: Target) -> str:
    return key_for(format_pattern(parse_pattern(pattern)), target)


def key_for(text: str, target: Target) -> str:
    """A key for any other solved item (a chain): its canonical text instead of a pattern."""
    from ..match import SEARCH_VERSION

    text = f"{text}|{target.name}|{target.wave}|{target.prefer}|{target_files_digest()}|{MODEL_VERSION}|{SEARCH_VERSION}"
    return hashlib.sha256(text.encode()).hexdigest()


@lru_cache(maxsize=4)
def _connect(path: str) -> sqlite3.Connection:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("CREATE TABLE IF NOT EXISTS plans (key TEXT PRIMARY KEY, plan TEXT NOT NULL)")
    return conn


_UNUSABLE: dict[str, str] = {}           # store path -> why it cannot be used (warned once)


def _store_path() -> str:
    return str(cache_dir() / "plans.sqlite3")


def _unusable(path: str, error: BaseException) -> None:
    """The store cannot be used in this process: one warning line, then the search runs uncached
    (a cache that cannot be used only costs speed)."""
    why = getattr(error, "strerror", None) or str(error)
    folder = Path(path).parent
    if folder.exists() and not folder.is_dir():
        why = f"{folder} is a file, not a directory (SHFLX_CACHE_DIR or XDG_CACHE_HOME)"
    if path not in _UNUSABLE:
        _UNUSABLE[path] = why
        print(f"shflx: warning: the plan cache {path} cannot be used ({why}); continuing without it "
              "(slower). `shflx doctor` shows it; delete the file or set SHFLX_CACHE_DIR to reset it",
              file=sys.stderr)


def _db() -> sqlite3.Connection | None:
    path = _store_path()
    if path in _UNUSABLE:
        return None
    try:
        return _connect(path)
    except (sqlite3.Error, OSError, RuntimeError) as e:    # RuntimeError: no home directory
        _unusable(path, e)
        return None


def _execute(sql: str, args: tuple) -> list | None:
    """Rows of `sql` on the store; None when it is busy, read-only or unusable (a miss)."""
    db = _db()
    if db is None:
        return None
    try:
        return db.execute(sql, args).fetchall()
    except sqlite3.DatabaseError as e:
        if not isinstance(e, sqlite3.OperationalError):    # not a database any more: corrupted
            _unusable(_store_path(), e)
        return None


def status() -> str:
    """What `shflx doctor` says about the store."""
    if not enabled():
        return "off (SHFLX_CACHE=off)"
    path = _store_path()
    rows = _execute("SELECT COUNT(*) FROM plans", ())
    if path in _UNUSABLE:
        return f"{path}: UNUSABLE ({_UNUSABLE[path]}); delete it to start a fresh cache"
    return f"{path}: {rows[0][0]} solved plans" if rows else f"{path}: busy or read-only"


def get(k: str) -> Plan | None:
    rows = _execute("SELECT plan FROM plans WHERE key = ?", (k,))
    row = rows[0] if rows else None
    if row is None:
        return None
    try:
        return plan_from_json(json.loads(row[0]))
    except Exception:      # a damaged entry is a miss, never an error
        return None


def put(k: str, plan: Plan) -> None:
    _execute("INSERT OR REPLACE INTO plans (key, plan) VALUES (?, ?)", (k, json.dumps(plan_to_json(plan))))


def _replays_correctly(plan: Plan) -> bool:
    want = parse_pattern(plan.target).lane_map(plan.wave)
    try:
        got = result(plan, Provenance(plan.wave), Trace())
    except Exception:
        return False
    care = want.care
    return bool((got[care] == want.src[care]).all())


def cached_lower(pattern: str, target: Target, solve: Callable[[str, Target], Plan]) -> Plan:
    if not enabled():
        return solve(pattern, target)
    k = key(pattern, target)
    hit = get(k)
    if hit is not None and hit.proof and hit.proof.get("status") == "proved" and _replays_correctly(hit):
        return hit
    plan = solve(pattern, target)
    put(k, plan)
    return plan


def lower(pattern: str, arch: str | Target, wave: int | None = None, *, cache: bool = True,
          runtime_mask: bool = False, prefer: str | None = None) -> Plan:
    """shflx.match.lower through the store (a hit is replayed before it is trusted); plans for a
    runtime member mask are not stored. `arch`: a name (resolved here) or a Target; `prefer`: the
    search's preference (target.PREFERENCES; part of the key)."""
    from .. import match

    target = resolve_target(arch, wave, prefer=prefer)
    if not cache or runtime_mask:
        return match.lower(pattern, target, runtime_mask=runtime_mask)
    if not enabled():
        return cached_lower(pattern, target, match.lower)
    return _lower_once(pattern, target)


@lru_cache(maxsize=8192)
def _lower_once(pattern: str, target: Target) -> Plan:
    """One store lookup (and replay) per distinct pattern per process: a module with 1,000 sites
    of 231 patterns costs 231 lookups."""
    from .. import match

    return cached_lower(pattern, target, match.lower)


def synthesize(coll: Collective, arch: str | Target, wave: int | None = None, chain: tuple | None = None,
               reassoc: bool = True):
    """shflx.chains.synthesize through the store; a hit is proven again before it is used."""
    from .. import chains
    from ..chains.literal import canonical_chain
    from ..verify.api import prove

    target = resolve_target(arch, wave)
    chain = chain if chain is not None else canonical_chain(coll)
    if not enabled():
        return chains.synthesize(coll, target, None, chain, reassoc)
    k = key_for(f"chain|{format_pattern(coll)}|{chain!r}|{reassoc}", target)
    hit = get(k)
    if hit is not None and prove(hit).proved:
        info = dict(hit.extra).get("chain", {})
        return chains.ChainPlan(coll, hit, info.get("family", "?"), info.get("step_by_step_cost", hit.cost),
                                info.get("baseline_cost", hit.cost), info.get("families", {}),
                                tuple(info.get("refuted_families", ())), 0.0, cached=True)
    out = chains.synthesize(coll, target, None, chain, reassoc)
    put(k, replace(out.plan, extra=(("chain", out.to_json()),)))
    return out
