"""Typed errors: every failure the user can cause maps to one message and one exit code.

Anything that is not a ShflxError is a shflx bug (the CLI says so and exits 2)."""
from __future__ import annotations

import re
from dataclasses import dataclass

LONG_WORD = 120       # a word (no white space) longer than this is cut in a message
LONG_LINE = 1000      # so is a line


def clip(text: str) -> str:
    """`text` with every long value cut, so that an error line never echoes a 100,000-element
    pattern or a 4,000-digit number: a word over LONG_WORD characters keeps its start and end and
    says how long it was; then a line over LONG_LINE characters likewise."""
    def word(m: re.Match) -> str:
        w = m.group(0)
        return f"{w[:60]}...{w[-20:]} ({len(w)} characters)"

    def line(ln: str) -> str:
        return ln if len(ln) <= LONG_LINE else f"{ln[:600]} ...({len(ln) - 800} characters cut)... {ln[-200:]}"

    if len(text) <= LONG_WORD:
        return text
    text = re.sub(rf"\S{{{LONG_WORD + 1},}}", word, text)
    return "\n".join(line(ln) for ln in text.split("\n"))


@dataclass(frozen=True)
class Location:
    """Where an input problem is: file, and line/column when known (1-based)."""

    file: str
    line: int | None = None
    col: int | None = None

    def __str__(self) -> str:
        parts = [self.file]
        if self.line is not None:
            parts.append(str(self.line))
            if self.col is not None:
                parts.append(str(self.col))
        return ":".join(parts)


class ShflxError(Exception):
    """Base of all user-facing errors; `exit_code` is what the CLI returns: 2 for every error
    (README "Exit codes"; 1 is kept for a verdict, `verify`'s refuted plan)."""

    exit_code = 2

    def __init__(self, reason: str, where: Location | None = None):
        reason = clip(reason)           # messages cut long values (a pattern, a number, a lane list)
        self.reason = reason
        self.where = where
        super().__init__(f"{where}: error: {reason}" if where else f"shflx: error: {reason}")

    def at(self, where: Location) -> "ShflxError":
        """The same error, located (used when a parser below did not know the file)."""
        return type(self)(self.reason, where)


class InputError(ShflxError):
    """Bad pattern, plan, .cu/.ll/.ptx: exit 2, as a usage error."""


class IllegalOp(InputError):
    """A step the target does not have (e.g. row_xmask on gfx9): exit 2."""


class UsageError(ShflxError):
    """Unknown target (with the list of known ones), bad flags: exit 2."""

    exit_code = 2


class ToolchainError(ShflxError):
    """clang / ld.lld / llvmlite missing or failing: exit 2."""

    exit_code = 2
