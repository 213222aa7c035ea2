"""A persistent, content-addressed store of solved patterns, shared safely between processes.

Key: sha256 of (canonical pattern, arch, wave, the search's preference, the bytes of every isa/ TOML file,
the source of the prover (prover_digest), MODEL_VERSION, SEARCH_VERSION), so editing ISA data, the
prover or a model invalidates old entries without a flush (tinygrad's versioned diskcache, not
Souper's). Storage: one SQLite file in WAL mode with a busy timeout, so many `shflx compile`
processes can read and write at once. Only proven plans are trusted: each row holds the sha256 of
its key and plan text, written after the proof, and a row whose plan is not the one proven under
its key (damaged, edited, written by another table layout) is a miss, solved and proven again.
The digest is a plain sha256 anyone can compute, so it only catches damage: a cache is untrusted
input. Its directory must be the user's own and writable by no one else (files.trusted_cache_dir),
and every plan read from it is checked again before it is used (`recheck`: a shuffle's plan run on
the lane-id input over every lane with the exact lane model, a chain's by its multiset proof, a
chain kept as written compared with its literal lowering); a plan that fails is a miss, solved and
proven again, with one warning line. A hit is looked up once per process (`_lower_once`,
`_CHAINS`). SHFLX_CACHE=off disables; SHFLX_CACHE_DIR moves it."""
from __future__ import annotations

import hashlib
import json
import sqlite3
import sys
import time
from functools import lru_cache, partial
from pathlib import Path
from dataclasses import replace
from typing import Any, Callable

from .. import MODEL_VERSION
from ..files import cache_dir, caching_enabled, distrusted, trusted_cache_dir
from ..isa import target_files_digest
from ..pattern import Collective, format_pattern, parse_pattern
from ..plan import Plan, plan_from_json, plan_to_dict
from ..target import Target, resolve_target


def enabled() -> bool:
    return caching_enabled()


def key(pattern: str, target: Target) -> str:
    return key_for(format_pattern(parse_pattern(pattern)), target)


def key_for(text: str, target: Target) -> str:
    """A key for any other solved item (a chain): its canonical text instead of a pattern."""
    from ..match import SEARCH_VERSION

    text = (f"{text}|{target.name}|{target.wave}|{target.prefer}|{target_files_digest()}|{prover_digest()}|"
            f"{MODEL_VERSION}|{SEARCH_VERSION}")
    return hashlib.sha256(text.encode()).hexdigest()


PROVER = ("verify", "amd", "chains", "emulate.py", "lanes.py", "lanefn.py", "pattern.py", "combine.py",
          "plan.py", "steps.py")     # what decides whether a plan is proven, under shflx/


@lru_cache(maxsize=1)
def prover_digest() -> str:
    """sha256 over the source of the prover, the emulator and the primitives' semantics (PROVER): a
    stored plan is trusted without a replay only by the prover that proved it."""
    package = Path(__file__).resolve().parents[1]
    h = hashlib.sha256()
    for name in PROVER:
        where = package / name
        for path in sorted(where.rglob("*.py")) if where.is_dir() else [where]:
            rel = path.relative_to(package).as_posix().encode()
            data = path.read_bytes()
            h.update(len(rel).to_bytes(4, "big") + rel + len(data).to_bytes(8, "big") + data)
    return h.hexdigest()


def plan_digest(k: str, text: str) -> str:
    """What a row stores beside a plan proven under key `k`: the sha256 of the key and the plan's text."""
    return hashlib.sha256(f"{k}\n{text}".encode()).hexdigest()


TABLE = "proven"      # key, plan JSON, plan_digest(key, plan JSON)


class _Distrusted(Exception):
    """The cache directory is not this user's own (files.trusted_cache_dir warned once, saying why)."""


@lru_cache(maxsize=4)
def _connect(path: str) -> sqlite3.Connection:
    """The store, opened once per process, after its directory was found trustworthy."""
    if trusted_cache_dir() is None:
        raise _Distrusted(distrusted(cache_dir()) or "the cache directory cannot be used")
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, timeout=BUSY_SECONDS, isolation_level=None, check_same_thread=False)
    _while_busy(conn, "PRAGMA journal_mode=WAL")
    _while_busy(conn, f"CREATE TABLE IF NOT EXISTS {TABLE} (key TEXT PRIMARY KEY, plan TEXT NOT NULL, digest TEXT NOT NULL)")
    return conn


BUSY_SECONDS = 30


def _while_busy(conn: sqlite3.Connection, sql: str) -> None:
    """`sql`, tried again while another process holds the lock: SQLite can answer 'database is
    locked' without waiting on its busy timeout while several processes create the store and switch
    it to WAL at once (seen as 1 in ~200 starts of 6 processes on a new store), and a store given
    up for that would lose every plan of this process."""
    deadline = time.monotonic() + BUSY_SECONDS
    while True:
        try:
            conn.execute(sql)
            return
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) and "busy" not in str(e) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


_UNUSABLE: dict[str, str] = {}           # store path -> why it cannot be used (warned once)


def _store_path() -> str:
    return str(cache_dir() / "plans.sqlite3")


def _unusable(path: str, error: BaseException) -> None:
    """The store cannot be used in this process: one warning line, then the search runs uncached
    (a cache that cannot be used only costs speed)."""
    why = getattr(error, "strerror", None) or str(error)
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
    except _Distrusted as e:                   # warned once already, by files.trusted_cache_dir
        _UNUSABLE[path] = str(e)
        return None
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
    rows = _execute(f"SELECT COUNT(*) FROM {TABLE}", ())
    if path in _UNUSABLE:
        return f"{path}: UNUSABLE ({_UNUSABLE[path]}); delete it to start a fresh cache"
    return f"{path}: {rows[0][0]} solved plans" if rows else f"{path}: busy or read-only"


def get(k: str, check: Callable[[Plan], str | None] | None = None, what: str = "") -> Plan | None:
    """The plan stored under `k` if it is the one proven under `k` (its digest matches) and passes
    `check` (None: it does; else why not), else None. A plan that fails `check` is a miss with one
    warning line naming `what` it was stored for and why it was refused."""
    rows = _execute(f"SELECT plan, digest FROM {TABLE} WHERE key = ?", (k,))
    row = rows[0] if rows else None
    if row is None or plan_digest(k, row[0]) != row[1]:
        return None
    try:
        plan = plan_from_json(json.loads(row[0]))
    except Exception:      # a damaged entry is a miss, never an error
        return None
    if not plan.proof or plan.proof.get("status") != "proved":
        return None
    why = None
    if check is not None:
        try:
            why = check(plan)
        except Exception as e:  # noqa: BLE001 - a plan the check cannot even run is refused too
            why = f"it cannot be run ({type(e).__name__}: {e})"
    if why is not None:
        print(f"shflx: warning: the plan cache {_store_path()} holds a plan for {what} that is not proven for it "
              f"({why}); solving it again", file=sys.stderr)
        return None
    return plan


def shuffle_check(pattern: str, target: Target, runtime_mask: bool = False) -> Callable[[Plan], str | None]:
    """The check of a stored plan for the shuffle `pattern` on `target`: its target and wave are the
    ones asked for, and it moves every lane as the pattern says (verify.api.lane_check: the lane-id
    input over every lane, exact); a plan for a run-time member mask must also be one the
    single-step search proposes (such a plan may rely on no intermediate lane, DESIGN decision 3)."""
    def check(plan: Plan) -> str | None:
        from ..verify.api import lane_check

        if (plan.on.name, plan.wave) != (target.name, target.wave):
            return f"it is for {plan.on.name} wave{plan.wave}"
        p = parse_pattern(pattern)
        proof = lane_check(plan, p)
        if not proof.proved:
            return proof.reason
        if runtime_mask:
            from ..match.search import SearchReport, candidates
            ok = {(c.steps, c.result) for c in candidates(target, p.lane_map(target.wave), SearchReport(), True)}
            if (plan.steps, plan.result) not in ok:
                return "it is not a one-step plan, as a member mask known only at run time needs"
        return None
    return check


def chain_check(coll: Collective, target: Target, chain: tuple, reassoc: bool) -> Callable[[Plan], str | None]:
    """The check of a stored chain plan: its target and wave; with `reassoc`, the multiset proof of
    the reduction or scan (verify.api.prove: exact for every associative and commutative operator);
    without, the plan must be the chain's literal lowering, step for step (its order of operations is
    the program's)."""
    def check(plan: Plan) -> str | None:
        from ..chains.literal import literal_builder
        from ..verify.api import prove

        if (plan.on.name, plan.wave) != (target.name, target.wave):
            return f"it is for {plan.on.name} wave{plan.wave}"
        text = format_pattern(coll)
        if not reassoc:
            literal = literal_builder(chain, coll.fn, target).plan(text)
            return None if (plan.steps, plan.result) == (literal.steps, literal.result) else \
                "it is not the chain's literal lowering (its operations may not be re-associated)"
        proof = prove(plan, text)
        return None if proof.proved else (proof.reason or proof.status)
    return check


def put(k: str, plan: Plan) -> None:
    """Store a proven plan under `k` (any other is not stored: a hit must be a proven plan)."""
    if not plan.proof or plan.proof.get("status") != "proved":
        return
    text = json.dumps(plan_to_dict(plan))
    _execute(f"INSERT OR REPLACE INTO {TABLE} (key, plan, digest) VALUES (?, ?, ?)", (k, text, plan_digest(k, text)))


def cached_lower(pattern: str, target: Target, solve: Callable[[str, Target], Plan],
                 runtime_mask: bool = False) -> Plan:
    """`solve(pattern, target)` through the store; `runtime_mask`: the plan is for a member mask
    known only at run time (its own key)."""
    if not enabled():
        return solve(pattern, target)
    k = key(pattern, target) if not runtime_mask else \
        key_for(f"{format_pattern(parse_pattern(pattern))}|runtime member mask", target)
    hit = get(k, shuffle_check(pattern, target, runtime_mask), f"'{pattern}' on {target.name}")
    if hit is not None:
        return hit
    plan = solve(pattern, target)
    put(k, plan)
    return plan


def lower(pattern: str, arch: str | Target, wave: int | None = None, *, cache: bool = True,
          runtime_mask: bool = False, prefer: str | None = None) -> Plan:
    """shflx.match.lower through the store (a hit is a plan proven under its key: `get`), looked
    up once per process. `arch`: a name (resolved here) or a Target; `prefer`: the search's
    preference (target.PREFERENCES; part of the key); `runtime_mask`: for a member mask known only
    at run time (stored under its own key)."""
    from .. import match

    target = resolve_target(arch, wave, prefer=prefer)
    if not cache or not enabled():
        return match.lower(pattern, target, runtime_mask=runtime_mask)
    return _lower_once(pattern, target, runtime_mask)


@lru_cache(maxsize=8192)
def _lower_once(pattern: str, target: Target, runtime_mask: bool) -> Plan:
    """One store lookup per distinct pattern per process: a module with 1,000 sites of 231
    patterns costs 231 lookups."""
    from .. import match

    return cached_lower(pattern, target, partial(match.lower, runtime_mask=runtime_mask), runtime_mask)


_CHAINS: dict[str, Any] = {}       # chain key -> the chain plan this process looked up or solved


def synthesize(coll: Collective, arch: str | Target, wave: int | None = None, chain: tuple | None = None,
               reassoc: bool = True):
    """shflx.chains.synthesize through the store (once per chain per process)."""
    from .. import chains
    from ..chains.literal import canonical_chain

    target = resolve_target(arch, wave)
    chain = chain if chain is not None else canonical_chain(coll)
    if not enabled():
        return chains.synthesize(coll, target, None, chain, reassoc)
    k = key_for(f"chain|{format_pattern(coll)}|{chain!r}|{reassoc}", target)
    if k in _CHAINS:
        return _CHAINS[k]
    hit = get(k, chain_check(coll, target, chain, reassoc), f"the chain '{format_pattern(coll)}' on {target.name}")
    if hit is not None:
        info = dict(hit.extra).get("chain", {})
        out = chains.ChainPlan(coll, hit, info.get("family", "?"), info.get("step_by_step_cost", hit.cost),
                               info.get("baseline_cost", hit.cost), info.get("families", {}),
                               tuple(info.get("refuted_families", ())), 0.0, cached=True)
    else:
        out = chains.synthesize(coll, target, None, chain, reassoc)
        put(k, replace(out.plan, extra=(("chain", out.to_json()),)))
    _CHAINS[k] = out
    return out


@lru_cache(maxsize=64)
def uniform_broadcast(target: Target) -> Any:
    """match.broadcast.uniform_broadcast through the store, once per process: its 32 instances,
    each stored under its own key once proven; a stored instance is used only if it is the plan
    the family builds today (the same steps), else all are proven again."""
    from ..match import broadcast

    if not enabled():
        return broadcast.uniform_broadcast(target)
    keys = [key_for(f"uniform broadcast|idx {k}", target) for k in range(32)]
    built = [broadcast.instance(target, k) for k in range(32)]
    hits = [get(k) for k in keys]
    if all(h is not None and (h.steps, h.result, h.cost) == (b.steps, b.result, b.cost) for h, b in zip(hits, built)):
        assumptions: list[str] = []
        for h in hits:
            assumptions += [a for a in h.proof.get("assumptions", []) if a not in assumptions]
        return broadcast.BroadcastFamily(tuple(hits), tuple(assumptions))
    family = broadcast.uniform_broadcast(target)
    for k, plan in zip(keys, family.instances):
        put(k, plan)
    return family
