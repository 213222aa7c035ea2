"""An AMDGPU module in parts, whose code is generated in parallel and linked into one code object,
as LLVM's AMDGPU back end splits a module after LTO (llvm/lib/Target/AMDGPU/AMDGPUSplitModule.cpp).

A part is the module's text with some of its kernels. Every function a kernel may call is copied
into every part as an internal function (LLVM's optimizer drops the copies a part does not use);
read-only data of the module's own is copied as it is; and every global that can be written, or
that the host may look up by name, is defined in part 0 alone and referenced from the others
(`available_externally`: a definition LLVM's code generation never emits), so the linked code
object holds one of each, as the whole module's would. LDS variables are per kernel in any case
(each kernel's LDS is laid out on its own), so each part keeps its own.

A module stays whole (`split` answers why) where a part could not mean what the whole means: a
function whose address is taken (copies would give it several addresses), device printf (format
strings are numbered per module in the code object's metadata), global constructors, and
definitions this reading does not model (comdat data, other appending arrays). It works on the
text LLVM prints: one line per global, `define ... {` to `}` per function."""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..ir.text import functions, has_inline_asm

NAME = r'(?:"(?:[^"\\]|\\.)*"|[-\w.$]+)'
_DEFINE = re.compile(rf"^define\b([^@]*)@({NAME})\(")
_GLOBAL = re.compile(rf"^@({NAME}) = ((?:[a-z_]+(?:\(\d+\))? )*?)(global|constant) ")
_REFERENCE = re.compile(rf"@({NAME})(?![-\w.$\"(])")
_COMDAT = re.compile(r" comdat(?:\(\$[^)]*\))?(?=[ {])")
_DATA_COMDAT = re.compile(r", comdat(?:\(\$[^)]*\))?(?=,|$| )")
PRINTF_CALLS = ("@__printf_alloc(", "@__ockl_printf", "@printf(")
_PRINTF = re.compile(r"\bcall\b[^\n]*@(?:__printf_alloc|__ockl_printf\w*|printf)\(")
LINKAGES = {"private", "internal", "available_externally", "linkonce", "weak", "common", "appending",
            "extern_weak", "linkonce_odr", "weak_odr", "external"}
LOCAL = {"private", "internal"}
VISIBILITY = {"default", "hidden", "protected"}
PREEMPTION = {"dso_local", "dso_preemptable"}
USED = {"llvm.used", "llvm.compiler.used"}
UNSPLITTABLE = {"llvm.global_ctors": "global constructors", "llvm.global_dtors": "global destructors"}


@dataclass
class _Function:
    name: str
    kernel: bool
    start: int          # the define line
    end: int            # the closing brace


def split(ir: str, parts: int) -> tuple[list[str] | None, str]:
    """The texts of up to `parts` modules that together are `ir` (kernels balanced by size), or
    None and why the module stays whole."""
    lines = ir.split("\n")
    functions = _functions(lines)
    kernels = [f for f in functions if f.kernel]
    if parts < 2 or len(kernels) < 2:
        return None, "one kernel" if len(kernels) < 2 else "one part"
    if has_inline_asm(ir):
        return None, "inline assembly"
    if any(_PRINTF.search(line) for line in lines if "call " in line and any(name in line for name in PRINTF_CALLS)):
        return None, "device printf"
    names = {f.name for f in functions}
    globals_ = {}
    for k, line in enumerate(lines):
        if not line.startswith("@"):
            continue
        m = _GLOBAL.match(line)
        if m is None:
            return None, f"the global {line.split(' =', 1)[0]} (an alias, or words this reading does not know)"
        globals_[k] = m
        if m.group(1) in UNSPLITTABLE:
            return None, UNSPLITTABLE[m.group(1)]
        if "appending" in m.group(2).split() and m.group(1) not in USED:
            return None, f"the appending array @{m.group(1)}"
    taken = _addresses_taken(lines, globals_, names, {f.name for f in kernels})
    if taken:
        return None, f"the address of @{taken} is taken"
    groups = _balanced(kernels, parts)
    shared: dict[int, tuple[str, str]] = {}            # global line -> (home text, text elsewhere)
    for k, m in globals_.items():
        if m.group(1) in USED:
            continue
        edited = _shared_global(lines[k], m)
        if edited is None:
            return None, f"the comdat data @{m.group(1)}"
        if edited != (lines[k], lines[k]):
            shared[k] = edited
    inside = {k for f in functions for k in range(f.start, f.end + 1)}
    texts = []
    for n, group in enumerate(groups):
        home = n == 0
        out = []
        for k, line in enumerate(lines):
            if k in inside:
                continue
            if k in globals_ and globals_[k].group(1) in USED and not home:
                continue                 # part 0 keeps what must not be discarded
            out.append(shared[k][0 if home else 1] if k in shared else line)
        for f in functions:
            if f.kernel and f.name not in group:
                continue
            body = lines[f.start:f.end + 1]
            out += body if f.kernel else [_internal(body[0])] + body[1:]
        texts.append("\n".join(out))
    return texts, f"{len(texts)} parts"


def kernel_names(ir: str) -> set[str]:
    """The kernels the module defines (their names as written after `@`, unquoted)."""
    return {f.name for f in _functions(ir.split("\n")) if f.kernel}


def _functions(lines: list[str]) -> list[_Function]:
    """Each function the module defines (ir.text.functions), and whether it is a kernel."""
    return [_Function(name, " amdgpu_kernel " in lines[start].split("@", 1)[0], start, end)
            for name, start, end, _ in functions(lines)]


def _addresses_taken(lines: list[str], globals_: dict[int, re.Match], functions: set[str],
                     kernels: set[str]) -> str | None:
    """A function referenced other than as a callee (`@f(`), or a kernel named in llvm.used: a
    part's copy of it would be another function, at another address."""
    for k, line in enumerate(lines):
        if "@" not in line or line.startswith(("define", "declare")):
            continue
        used = k in globals_ and globals_[k].group(1) in USED
        for name in _REFERENCE.findall(line):
            if name in kernels or (name in functions and not used):
                return name
    return None


def _balanced(kernels: list[_Function], parts: int) -> list[set[str]]:
    """Kernels into at most `parts` groups of about equal text size, largest first."""
    groups: list[tuple[int, set[str]]] = [(0, set()) for _ in range(min(parts, len(kernels)))]
    for f in sorted(kernels, key=lambda f: f.end - f.start, reverse=True):
        size, names = min(groups, key=lambda g: g[0])
        groups[groups.index((size, names))] = (size + f.end - f.start + 1, names | {f.name})
    return [names for _, names in groups]


def _shared_global(line: str, m: re.Match) -> tuple[str, str] | None:
    """(its line in part 0, its line elsewhere) for a global definition; None where the reading
    does not model it. LDS: part 0 as written, the others an internal copy. Declarations and
    read-only data of this module's own: as written everywhere. Anything else: defined once."""
    words = m.group(2).split()
    linkage = next((w for w in words if w in LINKAGES), "")   # a definition's external linkage is unwritten
    rest = line[m.end():]
    if linkage in ("external", "extern_weak") or (linkage in LOCAL and m.group(3) == "constant"):
        return line, line
    kept = [w for w in words if w not in LINKAGES | VISIBILITY | PREEMPTION]
    head = f"@{m.group(1)} = "
    if "addrspace(3)" in words:          # undef or poison: no text in which ', comdat' could be data
        return line, head + " ".join(["internal", *kept, f"{m.group(3)} {_DATA_COMDAT.sub('', rest)}"])
    if "comdat" in rest:
        return None
    tail = f"{m.group(3)} {rest}"
    visibility = next((w for w in words if w in VISIBILITY), "default")
    if linkage in LOCAL:                 # named once for the link: a hidden symbol of part 0
        visibility = "hidden"
        line = head + " ".join(["hidden", *kept, tail])
    return line, head + " ".join(["available_externally", visibility, *kept, tail])


def _internal(define: str) -> str:
    """A function's define line as an internal function of its part, out of any comdat."""
    m = _DEFINE.match(define)
    words = [w for w in m.group(1).split() if w not in LINKAGES | VISIBILITY | PREEMPTION]
    head = " ".join(["define", "internal", *words])
    tail = define[m.start(2) - 1:]
    close = _closing_paren(tail, tail.index("("))
    return f"{head} {tail[:close + 1]}{_COMDAT.sub('', tail[close + 1:])}"


def _closing_paren(text: str, opening: int) -> int:
    depth = 0
    for k in range(opening, len(text)):
        if text[k] == "(":
            depth += 1
        elif text[k] == ")":
            depth -= 1
            if depth == 0:
                return k
    raise ValueError("unbalanced parentheses in a define line")
