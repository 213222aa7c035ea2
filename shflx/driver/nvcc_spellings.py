"""nvcc's spellings of compile flags, rewritten to the words `driver.flags` reads.

Real builds pass nvcc's long names (`--compile`, `--output-file D`), `=`-joined values of its
forwarding flags (`-Xcompiler=-fPIC`, `-Xptxas=-v`), `-dc`, and flags that steer nvcc's own process
(its host compiler, kept files, threads, register report) and change no device code. The tables are
data (nvcc_options.json), from nvcc's manual ("NVCC Command Options": each option's long and short
name and its values). A word becomes what clang and shflx read (`--include-path D` -> `-I D`,
`-fmad=false` -> `-ffp-contract=off`), or nothing where the flag is about nvcc itself; enumerated
values are checked, the error listing them."""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from ..errors import UsageError

NVCC_OPTIONS = Path(__file__).with_name("nvcc_options.json")


@lru_cache(maxsize=1)
def _tables() -> dict:
    return json.loads(NVCC_OPTIONS.read_text())


def nvcc_words(words: list[str]) -> list[str]:
    """The command's words with nvcc's spellings rewritten; words after `--` are left as they are."""
    t = _tables()
    out: list[str] = []
    k = 0
    while k < len(words):
        w = words[k]
        if w == "--":
            return out + words[k:]
        name, eq, joined = w.partition("=")
        short = t["long"].get(name, name)
        # a long name, or a valued flag only nvcc reads (`-Xcompiler=x`, `-ccbin g++`); the short
        # spellings clang reads itself (`-I d`, `-O`, `-std=c++17`) stay as written
        if short in t["valued"] and (short != name or short in t["nvcc_only"]):
            if eq:
                value = joined
            elif k + 1 < len(words):
                k += 1
                value = words[k]
            else:
                raise UsageError(f"{w} needs a value")
            out += _valued(short, value, t)
        elif not eq and short != name or short in t["dropped"] or short == "-dc":
            out += _switch(short, t)
        else:
            out.append(w)
        k += 1
    return out


def _switch(short: str, t: dict) -> list[str]:
    """An nvcc switch -> shflx's words: -dc is -c with relocatable device code (nvcc manual, "--device-c")."""
    if short == "-dc":
        return ["-c", "-dc"]
    return [] if short in t["dropped"] else [short]


def _valued(short: str, value: str, t: dict) -> list[str]:
    """A valued nvcc flag (short name, value) -> shflx's words."""
    choices = t["choices"].get(short)
    if choices and value not in choices:
        raise UsageError(f"invalid value '{value}' for {short}; valid values: {', '.join(choices)}")
    if short in t["dropped"]:
        return []
    if short == "-O":
        return [f"-O{value}"]
    if short == "-std":
        return [f"-std={value}"]
    if short == "-Xlinker":
        return [f"-Wl,{value}"]
    if short == "-fmad":                        # nvcc manual, "--fmad": false forbids contraction into FMA
        return [] if value == "true" else ["-ffp-contract=off"]
    return [short, value]
