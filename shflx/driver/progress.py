"""Progress for long runs (`shflx compile` of several files or targets, `shflx coverage`): a bar
redrawn in place on a terminal, plain lines otherwise (CI logs, pipes), nothing with -q. Writes to
stderr so stdout stays the result.

Quiet unless it helps: nothing for a run of one unit, nothing before `delay` seconds (a run that
ends sooner prints nothing at all: success is quiet), nothing once the last unit is done unless a
line was already shown. In-house rather than tqdm or rich: the two outputs above and the delay are
all shflx needs, the standard library does it in a few lines, and the package keeps its
dependencies to the compiler's own (a progress library would be one more install for every user,
also inside the compile server's forked workers, whose stderr is a relay, not a terminal)."""
from __future__ import annotations

import sys
import time
from typing import TextIO

BAR = 30
LABEL = 36          # characters of the group's name on the bar line
DELAY = 2.0          # seconds: a run shorter than this shows no progress


class Progress:
    """`plan(group, units)` before the run, `advance(group, n)` after each `n` units of work.

    On a TTY: one bar line, redrawn. Otherwise: one line per finished group (and, verbose, per
    advance), so a log shows where a slow run is without a line per unit."""

    def __init__(self, what: str, verbosity: int = 1, stream: TextIO | None = None, tty: bool | None = None,
                 delay: float | None = None, clock=time.perf_counter):
        self.total, self.what, self.verbosity = 0, what, verbosity
        self.stream = stream if stream is not None else sys.stderr
        try:
            self.tty = self.stream.isatty() if tty is None else tty
        except (AttributeError, ValueError):
            self.tty = False
        self.done = 0
        self.clock = clock
        self.t0 = clock()
        self.delay = DELAY if delay is None else delay
        self.shown = False
        self.groups: dict[str, int] = {}

    def plan(self, group: str, units: int) -> None:
        """Announce `units` more units of `group` (before the run): its line comes after the last one."""
        self.groups[group] = self.groups.get(group, 0) + units
        self.total += units

    def advance(self, group: str = "", n: int = 1) -> None:
        self.done += n
        left = self.groups.get(group)
        if left is not None:
            self.groups[group] = left - n
        finished = left is not None and left - n <= 0
        seconds = self.clock() - self.t0
        if self.verbosity <= 0 or self.total <= 1:
            return
        if not self.shown and (seconds < self.delay or self.done >= self.total):
            return                              # quick so far, or over before it needed showing
        self.shown = True
        if self.tty:
            filled = BAR * min(self.done, self.total) // max(self.total, 1)
            label = group if len(group) <= LABEL else "..." + group[3 - LABEL:]    # a path's end says most
            self.stream.write(f"\r{self.what} [{'#' * filled}{'.' * (BAR - filled)}] {self.done}/{self.total} "
                              f"{label:<{LABEL}} {seconds:5.0f} s")
            if self.done >= self.total:
                self.stream.write("\n")
            self.stream.flush()
            return
        if self.verbosity >= 2 or finished:
            state = "done" if finished else "part"
            self.stream.write(f"{self.what}: {group} {state} ({self.done}/{self.total}, {seconds:.1f} s)\n")
            self.stream.flush()
