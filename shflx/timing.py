"""Where one compile spends its time (`--time-report`, as clang's -ftime-report): wall seconds per
stage of a (file, target) compile, recorded where each stage runs. Stages never nest, so they add
up to the compile; outside `recording()` a stage costs one context-variable read."""
from __future__ import annotations

import time
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterator

_TIMES: ContextVar[dict[str, float] | None] = ContextVar("shflx_stage_times", default=None)


@contextmanager
def recording() -> Iterator[dict[str, float]]:
    """The stages run inside, stage -> seconds, in the order they first ran."""
    times: dict[str, float] = {}
    token = _TIMES.set(times)
    try:
        yield times
    finally:
        _TIMES.reset(token)


@contextmanager
def stage(name: str) -> Iterator[None]:
    """Time the block as `name` (added to earlier runs of the same stage)."""
    times = _TIMES.get()
    t0 = time.perf_counter()
    try:
        yield
    finally:
        if times is not None:
            times[name] = times.get(name, 0.0) + time.perf_counter() - t0


def table(entry_label: str, times: dict[str, float]) -> list[str]:
    """The report's lines: one per stage, with its share of the total, then the total."""
    total = sum(times.values()) or 1e-9
    width = max(map(len, times), default=5)
    lines = [f"shflx: time report for {entry_label}:"]
    lines += [f"  {name:<{width}}  {s:8.3f} s  {100 * s / total:5.1f}%" for name, s in times.items()]
    lines.append(f"  {'total':<{width}}  {total:8.3f} s")
    return lines
