"""Progress for long runs (`shflx coverage`): a bar redrawn in place on a terminal, plain lines
otherwise (CI logs, pipes), nothing with -q. Writes to stderr so stdout stays the result."""
from __future__ import annotations

import sys
import time
from typing import TextIO

BAR = 30


class Progress:
    """`plan(group, units)` before the run, `advance(group)` after each unit of work.

    On a TTY: one bar line, redrawn. Otherwise: one line per finished group (and, verbose, per
    unit), so a log shows where a slow run is without a line per map."""

    def __init__(self, what: str, verbosity: int = 1, stream: TextIO | None = None, tty: bool | None = None):
        self.total, self.what, self.verbosity = 0, what, verbosity
        self.stream = stream if stream is not None else sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty
        self.done = 0
        self.t0 = time.perf_counter()
        self.groups: dict[str, int] = {}

    def plan(self, group: str, units: int) -> None:
        """Announce `units` more units of `group` (before the run): its line comes after the last one."""
        self.groups[group] = self.groups.get(group, 0) + units
        self.total += units

    def advance(self, group: str = "") -> None:
        self.done += 1
        if self.verbosity <= 0:
            return
        seconds = time.perf_counter() - self.t0
        if self.tty:
            filled = BAR * self.done // max(self.total, 1)
            self.stream.write(f"\r{self.what} [{'#' * filled}{'.' * (BAR - filled)}] {self.done}/{self.total} "
                              f"{group:<20.20} {seconds:5.0f} s")
            if self.done == self.total:
                self.stream.write("\n")
            self.stream.flush()
            return
        left = self.groups.get(group)
        if left is not None:
            self.groups[group] = left - 1
        if self.verbosity >= 2 or (left is not None and left - 1 == 0):
            state = "done" if left is not None and left - 1 == 0 else "part"
            self.stream.write(f"{self.what}: {group} {state} ({self.done}/{self.total}, {seconds:.1f} s)\n")
            self.stream.flush()
