"""Reading LLVM IR text: functions and their warp-uniform parameters, call arguments, debug
locations (through `inlinedAt` to the user's line), declarations.

Pure text processing (the core stays free of llvmlite, STYLE.md); every other module of `ir/`
reads the module through these helpers."""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Callable, Iterator, Mapping

from .constants import ModuleConstants, module_constants
from .frames import Frame, is_header, user_index

DEF = re.compile(r"^\s*(%[\w.\-]+) = (.*)$")
DBG = re.compile(r"!dbg (![0-9]+)")
LABEL = re.compile(r"^([\w.\-]+):")            # a basic block's label (on a stripped line)
LABEL_REF = re.compile(r"label %([\w.\-]+)")   # a branch target
_ATTRIBUTE_GROUP = re.compile(r"^attributes (#\d+) = \{")


def split_args(text: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        depth += ch in "([{<"
        depth -= ch in ")]}>"
        cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


# The opcodes of LLVM's constant expressions (LangRef, "Constant Expressions")
_CONST_EXPR = re.compile(r"(?:^|\s)(?:getelementptr|ptrtoint|inttoptr|addrspacecast|bitcast|trunc|add|sub|xor|mul|shl"
                         r"|extractelement|insertelement|shufflevector)\s")


def operand_token(arg: str) -> str:
    """The value of a call argument (`i32 noundef %x` -> `%x`), a constant expression whole
    (`i32 ptrtoint (ptr addrspace(3) @b to i32)`: the address of a __shared__ variable)."""
    if arg.endswith(")"):
        m = _CONST_EXPR.search(arg)
        if m:
            return arg[m.start():].lstrip()
    return arg.split()[-1]


_CALLEE = re.compile(r"@[\w.$\-]+\(")


def call_args(inst: str) -> list[str]:
    """The operand tokens of the call instruction `inst`, read after the callee's name (a return
    attribute such as `range(i32 0, 33)` comes before it; inline asm has no name)."""
    callee = _CALLEE.search(inst)
    start = callee.end() if callee else inst.index("(") + 1
    return [operand_token(a) for a in split_args(inst[start: inst.rindex(")")])]


_INLINE_ASM_CALL = re.compile(r"\bcall [^\n]*\basm\b")


def has_inline_asm(ir: str) -> bool:
    """Whether the module calls inline assembly (`call ... asm "..."`): a substring test first and
    the pattern only on the lines that pass it (one search over a 139 MB module took 2.5 s)."""
    return " asm " in ir and any(_INLINE_ASM_CALL.search(line) for line in ir.split("\n") if " asm " in line)


def functions(lines: list[str]) -> list[tuple[str, int, int, list[str]]]:
    """(name, first line, last line, warp-uniform parameters) of each function defined in the
    module. Only a kernel's parameters are uniform (every thread of the launch gets the same
    argument); a device function that was not inlined may be called with per-lane values."""
    out = []
    k = 0
    while k < len(lines):
        line = lines[k]
        if line.startswith("define "):
            name = re.search(r"@([\w.$\-]+)\(", line).group(1)
            head = line.split("@", 1)[0]
            kernel = " amdgpu_kernel " in head or " ptx_kernel " in head
            params = re.findall(r"(%[\w.\-]+)(?=[,)])", line.split("(", 1)[1]) if kernel else []
            end = k
            while not lines[end].startswith("}"):
                end += 1
            out.append((name, k, end, params))
            k = end
        k += 1
    return out


_META = re.compile(r"^(![0-9]+) = (?:distinct )?(.*)$")


def _metadata(lines: list[str]) -> dict[str, str]:
    meta = {}
    for line in lines:
        if line.startswith("!") and (m := _META.match(line)):
            meta[m.group(1)] = m.group(2)
    return meta


@lru_cache(maxsize=None)
def _field_pattern(name: str) -> re.Pattern:
    return re.compile(rf"\b{name}: (\"(?:[^\"\\]|\\.)*\"|![0-9]+|\d+)")


def _field(text: str, name: str) -> str | None:
    m = _field_pattern(name).search(text)
    return m.group(1) if m else None


def _unescape(text: str) -> str:
    """An LLVM string's text: `\\XX` is the byte XX (a file name that is not UTF-8 keeps its bytes,
    as Python spells such names: surrogateescape)."""
    if "\\" not in text:
        return text
    raw = re.sub(rb"\\([0-9A-Fa-f]{2})", lambda m: bytes([int(m.group(1), 16)]), text.encode("utf-8", "surrogateescape"))
    return raw.decode("utf-8", "surrogateescape")


def _frame(meta: dict[str, str], loc: str) -> str:
    """One DILocation (its own scope, not its inlinedAt) as "file:line:col"."""
    def file_of(scope: str | None, depth: int = 0) -> str:
        if scope is None or depth > 20 or scope not in meta:
            return "?"
        text = meta[scope]
        f = _field(text, "file")
        if f and f in meta and meta[f].startswith("!DIFile"):
            return _unescape((_field(meta[f], "filename") or '"?"')[1:-1])
        return file_of(_field(text, "scope"), depth + 1)
    return f"{file_of(_field(loc, 'scope'))}:{_field(loc, 'line')}:{_field(loc, 'column')}"


def _function(meta: dict[str, str], loc: str) -> str:
    """The name of the DISubprogram a DILocation is in (through its lexical blocks), else ""."""
    scope = _field(loc, "scope")
    for _ in range(30):
        text = meta.get(scope or "")
        if text is None:
            return ""
        if text.startswith("!DISubprogram"):
            return (_field(text, "name") or '""').strip('"')
        scope = _field(text, "scope")
    return ""


def _chain(meta: dict[str, str], key: str) -> list[str]:
    """The DILocations of !key: itself, then each inlinedAt (at most 50)."""
    out = []
    while key in meta and meta[key].startswith("!DILocation") and len(out) <= 50:
        out.append(meta[key])
        key = _field(meta[key], "inlinedAt") or ""
    return out


class _Locations(Mapping[str, str]):
    """!N -> "file:line:col", each read when first asked for (a module has thousands of
    DILocations; a pass asks for the few of its shuffle sites)."""

    def __init__(self, meta: dict[str, str]) -> None:
        self._meta = meta
        self._keys = [key for key, text in meta.items() if text.startswith("!DILocation")]
        self._known: dict[str, str] = {}

    def __getitem__(self, key: str) -> str:
        if key not in self._known:
            text = self._meta.get(key)
            if text is None or not text.startswith("!DILocation"):
                raise KeyError(key)
            frames = [Frame(_frame(self._meta, loc)) for loc in _chain(self._meta, key)]
            self._known[key] = frames[user_index(frames) or 0].where
        return self._known[key]

    def frames(self, key: str) -> list[str]:
        """Every frame of !key as "file:line:col", innermost first, then each call it was inlined into."""
        return [_frame(self._meta, loc) for loc in _chain(self._meta, key)]

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)


def locations(lines: list[str]) -> _Locations:
    """!N -> "file:line:col" for every DILocation: its innermost frame in the user's files, through
    inlinedAt (ir.frames: a shuffle inside CUB is placed at the user's call of CUB)."""
    return _Locations(_metadata(lines))


def inline_chains(lines: list[str], indices: list[int]) -> list[list[str]]:
    """The location of each line `lines[i]` as "file:line:col" frames, innermost first, then each
    call site it was inlined into (clang's remarks point at the innermost; the report names the last)."""
    meta = _metadata(lines)
    out = []
    for i in indices:
        m = re.search(r"!dbg (![0-9]+)", lines[i])
        out.append([_frame(meta, loc) for loc in _chain(meta, m.group(1))] if m else [])
    return out


def inline_frames(lines: list[str], indices: list[int]) -> list[list[Frame]]:
    """As inline_chains, each frame with the name of the function it is in (ir.frames.place)."""
    meta = _metadata(lines)
    out = []
    for i in indices:
        m = re.search(r"!dbg (![0-9]+)", lines[i])
        out.append([Frame(_frame(meta, loc), _function(meta, loc)) for loc in _chain(meta, m.group(1))] if m else [])
    return out


_LOCATION_LINE = re.compile(r"^(![0-9]+) = (distinct )?!DILocation\(")


def user_frame_locations(ir: str) -> str:
    """`ir` with each DILocation whose innermost frame is in a header (ir.frames.is_header: CUDA's,
    clang's, CCCL's) made the innermost frame in the user's files, with that frame's own inlinedAt
    chain: for outputs that carry one line per instruction and no inlined-at chain (NVPTX with
    line directives only: `.loc FILE LINE COL`), so each instruction names the user's line, not a
    line of __clang_cuda_intrinsics.h. Locations with no user frame, and those of loop metadata,
    are left as they are."""
    lines = ir.splitlines()
    meta = _metadata(lines)
    # a loop's start/end locations (`!llvm.loop !N`, `!N = distinct !{!N, !start, !end, ...}`) stay:
    # LLVM's warnings about the loop are placed there (codegen.diagnostics tells headers by them)
    loops = {ref for text in meta.values() if text.startswith("!{") for ref in re.findall(r"![0-9]+", text)}
    new: dict[str, str] = {}
    for key, text in meta.items():
        if not text.startswith("!DILocation") or key in loops:
            continue
        keys = [key]
        while len(keys) <= 50 and (up := _field(meta[keys[-1]], "inlinedAt")) and up in meta:
            keys.append(up)
        frames = [Frame(_frame(meta, meta[k])) for k in keys]
        k = user_index(frames)
        if k and not is_header(frames[k].path):
            new[key] = meta[keys[k]]
    if not new:
        return ir
    out = []
    for line in lines:
        m = _LOCATION_LINE.match(line) if line.startswith("!") else None
        if m and m.group(1) in new:
            line = f"{m.group(1)} = {m.group(2) or ''}{new[m.group(1)]}"
        out.append(line)
    return "\n".join(out) + "\n"


def constant_tables(lines: list[str]) -> ModuleConstants:
    """The module's immutable integer constants (lookup tables) and type layout (ir.constants)."""
    return module_constants(lines)


@lru_cache(maxsize=4)
def _module_facts(ir: str) -> tuple[list[str], Mapping[str, str]]:
    """Lines and debug locations of a module, read once per module text (every pass over one
    module asks for them)."""
    lines = ir.splitlines()
    return lines, locations(lines)


def function_waves(lines: list[str]) -> dict[str, int]:
    """Function name -> its wave size from its attribute group's target features (AMDGPU:
    +wavefrontsize32, else 64); functions without one are left out."""
    groups = {m.group(1): (32 if "+wavefrontsize32" in line else 64)
              for line in lines if line.startswith("attributes ") and (m := _ATTRIBUTE_GROUP.match(line))
              and "target-features" in line}
    out = {}
    for line in lines:
        if line.startswith("define "):
            m = re.search(r"@([\w.$\-]+)\(.*\)[^(]*?(#\d+)", line)
            if m and m.group(2) in groups:
                out[m.group(1)] = groups[m.group(2)]
    return out


def call_sites(ir: str, pattern: re.Pattern, needle: str,
               body_of: Callable[[str, int, int, list[str]], Any]) -> Iterator[tuple[Any, int, Any, str]]:
    """(function body, line index, match, location) for every line of `ir` matching `pattern`;
    `needle` is text every match holds (other lines are not tried), `body_of(name, define line,
    closing line, uniform params)` a function's body, asked for once per function with a match."""
    lines, locs = _module_facts(ir)
    for name, start, end, params in functions(lines):
        body = None
        for k in range(start + 1, end):
            line = lines[k]
            if needle not in line:
                continue
            m = pattern.match(line.strip())
            if not m:
                continue
            body = body or body_of(name, start, end, params)
            dbg = DBG.search(m.group("rest"))
            yield body, k, m, (locs.get(dbg.group(1), "?") if dbg else "?")


def own_bodies(ir: str, body_type: type) -> Callable[[str, int, int, list[str]], Any]:
    """call_sites' `body_of` that builds a `body_type` of its own for each function (a pass whose
    bodies are not the module's shared ir.body.FunctionIR)."""
    lines, _ = _module_facts(ir)
    facts: list = []

    def body_of(name: str, start: int, end: int, params: list[str]) -> Any:
        if not facts:
            facts[:] = [constant_tables(lines), function_waves(lines)]
        return body_type(name, lines[start + 1:end], params, constants=facts[0], wave=facts[1].get(name, 64))
    return body_of


def declared_names(ir: str) -> set[str]:
    """The functions `ir` declares (without defining them)."""
    return set(re.findall(r"^declare [^@]*@([\w.$]+)\(", ir, flags=re.M))
