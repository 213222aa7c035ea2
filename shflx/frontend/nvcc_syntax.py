"""Source that nvcc's front end (EDG) accepts and clang rejects, read as nvcc reads it.

Two forms occur in real CUDA files (cuda-samples' conjugateGradientMultiDeviceCG, TensorRT's
instanceNormFwdImpl) and have exactly one well-formed reading:
- asm operands written without the comma between them, `::"r"(v) "l"(p)`: clang stops with
  "expected ')'" at the second constraint; EDG reads two operands, so the asm template's %0 and %1
  are `v` and `p`.
- a member template of a dependent class called without `template`, `A<T>::f<N>(x)`: clang parses
  `(A<T>::f < N) > (x)` and, at instantiation, rejects comparing the overload set `f` ("reference to
  overloaded function could not be resolved", a note naming `f`'s declaration; or "missing
  'template' keyword"). EDG reads the template-id `A<T>::template f<N>(x)`, the only reading that
  is well-formed. So is a dependent type template named without it, `typename
  std::allocator_traits<A>::rebind_alloc<T>` (BGHT; clang 22: "use 'template' keyword"), which the
  sm_NN pass stops at (the AMD pass's -fms-extensions lets clang read it).

A kernel launch with spaces inside its brackets, `k << <grid, block >> > (args)` (xmrig-cuda), is
an execution configuration to nvcc; clang stops at the third `<` ("expected expression"), and it is
read as `k <<< grid, block >>> (args)`.

A macro whose expansion is `#pragma X`, used alone on a line (moderngpu's
`PRAGMA_UNROLL`), is that pragma to nvcc, which compiles its own preprocessed output; clang reads a
`#` in a statement ("expected expression") and it is read as `_Pragma("X")`.

An asm template that writes a PTX name with one `%` (`"mov.u32 %0, %lanemask_lt;"`, nvdiffrast):
nvcc substitutes only `%N` and `%%` and passes the rest through; clang stops ("invalid % escape in
inline assembly string"). Read as `%%lanemask_lt`, GNU asm's literal `%`.

An explicit specialization that is `__device__` of a `__host__ __device__` function template
(cudaKDTree's `template<> __device__ float as_float_rz(int)`, under `#ifdef __CUDA_ARCH__`): EDG
matches a specialization to its template by signature, the execution space aside; clang also
matches the target attributes and finds no template ("candidate template ignored: target
attributes do not match"). Read as `__host__ __device__`: device code is the same (the body is
compiled for the device either way), and only device code reads it in a device pass. A `__host__`
specialization is left alone: nvcc refuses a call to it from device code, which `__device__` added
would allow.

A member of a dependent base class named without `this->` in a class template's member function
(cudaKDTree's `HeapCandidateList<k>::maxRadius2() { return decode_dist2(entry[0]); }`): EDG finds it
at instantiation, as CUB long relied on (NVIDIA/cub#334, "use of undeclared identifier
'ProcessFloatMinusZero'" under clang); clang finds it too but refuses it ("explicit qualification
required to use member 'X' from dependent base class", with `this->` as its own fix-it). Read as
`this->X`, the member clang found.

A third is a difference of meaning that nvcc settles with a warning: a `__shared__` variable of a
class whose default constructor does something (libcu++'s `cuda::barrier`, initialized later by
`init(&bar, n)`): nvcc does not run the constructor ("dynamic initialization is not supported") and
leaves the variable uninitialized; clang rejects it ("initialization is not supported for
__shared__ variables"). The declaration `__shared__ T name;` becomes a `__shared__` union whose
empty constructor and destructor leave its one member `T v` unconstructed, and `T &name` bound to
that member: the same storage, never constructed, as nvcc has it.

Each fix is made at the exact position clang's diagnostic names, only where the text there has that
form, in a rewritten copy of the file that clang reads through a VFS overlay in place of the
original (`-ivfsoverlay`; diagnostics and line tables keep naming the original file; nothing on
disk changes). The report names every fix. Where clang compiled preprocessed text (the AMD path of
files that read CCCL, frontend/ptx_operands.py), a diagnostic's column counts the line with its
macros expanded (`__shared__` is `__attribute__((shared))` there); it is taken back to the
original line by the token it points at (`source_column`)."""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from . import own_typedefs
from .host_only import leading_notes

NOTE_PREFIX = "; shflx: read as nvcc reads it: "      # carried at the top of the device IR
_DIAG = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): (?P<sev>error|note): (?P<msg>.*)$")
_ASM_START = re.compile(rb"\b(?:asm|__asm__|__asm)\b(?:\s+(?:volatile|__volatile__|inline|goto))*\s*\(")
_PERCENT_MSG = "invalid % escape in inline assembly string"
_OVERLOADED = "reference to overloaded function could not be resolved; did you mean to call it?"
_MISSING_TEMPLATE = re.compile(r"missing 'template' keyword prior to dependent template name '(?P<name>\w+)'")
# clang's error where a dependent name followed by `<` can only be a template (a type: BGHT's
# `typename std::allocator_traits<A>::rebind_alloc<T>`), which GCC and EDG read as that template
_USE_TEMPLATE = re.compile(r"use 'template' keyword to treat '(?P<name>\w+)' as a dependent template name")
_DEPENDENT_BASE = re.compile(r"explicit qualification required to use member '(?P<name>\w+)' from dependent base class")
_SPECIALIZATION = re.compile(r"no function template matches function template specialization '(?P<name>\w+)'")
_TARGETS_DIFFER = "candidate template ignored: target attributes do not match"
_DEVICE = re.compile(rb"\b__device__\b|__attribute__\s*\(\(\s*(?:__)?device(?:__)?\s*\)\)")
_NOT_DEVICE_ONLY = re.compile(rb"\b__host__\b|\b__global__\b|__attribute__\s*\(\(\s*(?:__)?(?:host|global)(?:__)?\s*\)\)")
_EXPLICIT = re.compile(rb"\btemplate\s*<\s*>")
# a qualified name ending in `::name <` (the template arguments of the qualifiers without ; { })
_QUALIFIED_CALL = re.compile(rb"(?:\w+\s*(?:<[^;{}()]*>)?\s*::\s*)+(?P<name>\w+)\s*<")


@dataclass(frozen=True)
class Fix:
    """Insert `text` at byte `offset` of `path`; `where` (file:line:col) and `what` for the report."""

    path: str
    offset: int
    text: bytes
    where: str
    what: str
    length: int = 0                 # bytes replaced at `offset` (0: an insertion)

    def note(self) -> str:
        return f"{NOTE_PREFIX}{self.where}: {self.what}"


def fixes(diagnostics: str, read=lambda p: Path(p).read_bytes(),
          compiled: dict[tuple[str, int], bytes] | None = None) -> list[Fix]:
    """The fixes for the diagnostics clang printed, where the source text has one of the forms.
    `compiled` (preprocessed_lines) holds the lines as clang compiled them, where that was
    preprocessed text: a diagnostic's column is then mapped back to the original line."""
    lines = diagnostics.splitlines()
    out: list[Fix] = []
    for k, line in enumerate(lines):
        m = _DIAG.match(line)
        if not m or m["sev"] != "error":
            continue
        path, row, col = m["file"], int(m["line"]), int(m["col"])
        try:
            text = read(path)
        except OSError:
            continue
        if compiled is not None:
            col = source_column(_line(text, row), compiled.get((path, row)), col)
            if col is None and m["msg"] == _PERCENT_MSG:
                col = 1                          # inside a string: the line's only asm statement
            if col is None:
                continue
        offset = _offset(text, row, col)
        if offset is None:
            continue
        fix = None
        if m["msg"] == "expected ')'":
            fix = _asm_comma(path, text, offset, f"{path}:{row}:{col}")
        elif m["msg"] == _OVERLOADED:
            declared = _noted_declaration(lines[k + 1:], read)
            fix = _template_keyword(path, text, offset, lambda name: bool(
                declared and re.search(rb"\b" + re.escape(name.encode()) + rb"\s*\(", declared)), f"{path}:{row}:{col}")
        elif m["msg"] == "initialization is not supported for __shared__ variables":
            fix = _shared_uninitialized(path, text, offset, f"{path}:{row}:{col}")
        elif m["msg"] == "expected expression":
            fix = _spaced_launch(path, text, offset, f"{path}:{row}:{col}") or \
                _pragma_macro(path, text, offset, lines[k + 1:], read, f"{path}:{row}:{col}")
        elif m["msg"] == _PERCENT_MSG:
            fix = _asm_percent(path, text, row, offset, f"{path}:{row}:{col}")
        elif own_typedefs.CLASH.fullmatch(m["msg"]):
            fix = _library_typedef(own_typedefs.CLASH.fullmatch(m["msg"])["mine"], lines[k + 1:], read)
        elif _SPECIALIZATION.fullmatch(m["msg"]):
            fix = _device_specialization(path, text, row, _SPECIALIZATION.fullmatch(m["msg"])["name"],
                                         lines[k + 1:], f"{path}:{row}:{col}")
        elif _DEPENDENT_BASE.fullmatch(m["msg"]):
            fix = _this_member(path, text, offset, _DEPENDENT_BASE.fullmatch(m["msg"])["name"], f"{path}:{row}:{col}")
        elif _MISSING_TEMPLATE.fullmatch(m["msg"]):
            name = _MISSING_TEMPLATE.fullmatch(m["msg"])["name"]
            fix = _template_keyword(path, text, offset, lambda n: n == name, f"{path}:{row}:{col}")
        elif _USE_TEMPLATE.fullmatch(m["msg"]):
            fix = _template_at(path, text, offset, _USE_TEMPLATE.fullmatch(m["msg"])["name"], f"{path}:{row}:{col}")
        if fix and fix not in out:
            out.append(fix)
    return out


def overlay(all_fixes: list[Fix], into: Path, read=lambda p: Path(p).read_bytes()) -> Path:
    """A VFS overlay (clang's YAML/JSON format) mapping each fixed file to its rewritten copy."""
    by_path: dict[str, list[Fix]] = {}
    for f in all_fixes:
        by_path.setdefault(f.path, []).append(f)
    roots = []
    for n, (path, fs) in enumerate(sorted(by_path.items())):
        text = read(path)
        for f in sorted(fs, key=lambda f: f.offset, reverse=True):
            text = text[:f.offset] + f.text + text[f.offset + f.length:]
        copy = into / f"{n}_{Path(path).name}"
        copy.write_bytes(text)
        roots.append({"type": "file", "name": os.path.abspath(path), "external-contents": str(copy)})   # as clang opened it
    yaml = into / "nvcc-syntax-overlay.yaml"
    yaml.write_text(json.dumps({"version": 0, "use-external-names": False, "roots": roots}))
    return yaml


_LINE_MARKER = re.compile(rb'^# (\d+) "((?:[^"\\]|\\.)*)"')
_TOKEN = re.compile(rb"\w+|\S")


def preprocessed_lines(text: bytes) -> dict[tuple[str, int], bytes]:
    """(file, line) -> that line of `text` (clang -E output): where each source line went, by the
    line markers; a line met twice with different text (a header read twice) is left out."""
    out: dict[tuple[str, int], bytes] = {}
    twice: set[tuple[str, int]] = set()
    path, row = "", 0
    for line in text.split(b"\n"):
        m = _LINE_MARKER.match(line)
        if m:
            path, row = m[2].decode(errors="replace").replace("\\\\", "\\"), int(m[1])
            continue
        key = (path, row)
        if out.get(key, line) != line:
            twice.add(key)
        out.setdefault(key, line)
        row += 1
    for key in twice:
        del out[key]
    return out


def source_column(original: bytes | None, compiled: bytes | None, col: int) -> int | None:
    """The column in `original` of the token at `col` of `compiled` (the same line with its macros
    expanded): the token's k-th occurrence there is its k-th in the original line. `col` itself
    where the lines are the same or the compiled one is not known; None where the token does not
    occur as often in the original line (it came from a macro)."""
    if original is None or compiled is None or compiled == original:
        return col
    at = _TOKEN.match(compiled, col - 1)
    if at is None:
        return None
    token = at.group()

    def starts(line: bytes) -> list[int]:
        return [m.start() for m in _TOKEN.finditer(line) if m.group() == token]
    before = starts(compiled)
    if at.start() not in before:            # not at a token's start
        return None
    k, found = before.index(at.start()), starts(original)
    return found[k] + 1 if k < len(found) else None


def _line(text: bytes, row: int) -> bytes | None:
    start = _offset(text, row, 1)
    if start is None:
        return None
    end = text.find(b"\n", start)
    return text[start:end if end >= 0 else len(text)]


def _offset(text: bytes, row: int, col: int) -> int | None:
    start = 0
    for _ in range(row - 1):
        start = text.find(b"\n", start) + 1
        if start == 0:
            return None
    offset = start + col - 1
    return offset if offset < len(text) else None


def _asm_comma(path: str, text: bytes, offset: int, where: str) -> Fix | None:
    """`"c"(x) "c"(y)` in an asm operand list: a constraint (or `[name]`) right after the `)` that
    closes the previous operand, at depth 0 of the operand list of an asm statement."""
    if text[offset:offset + 1] not in (b'"', b"["):
        return None
    before = text[:offset].rstrip()
    if not before.endswith(b")"):
        return None
    starts = [m for m in _ASM_START.finditer(text, max(0, offset - 4000), offset)]
    if not starts:
        return None
    depth, seen_colon, k = 1, False, starts[-1].end()
    while k < offset:                    # from asm( to the error: still inside it, past its first ':'
        c = text[k:k + 1]
        if c == b'"':
            m = re.compile(rb'"(?:[^"\\\n]|\\.)*"').match(text, k)
            k = m.end() if m else k + 1
            continue
        depth += c == b"("
        depth -= c == b")"
        if depth == 0:
            return None
        seen_colon |= c == b":" and depth == 1
        k += 1
    if depth != 1 or not seen_colon:
        return None
    return Fix(path, len(before), b",", where, "a ',' between asm operands written without one")


_TEMPLATE = re.compile(rb'\s*((?:"(?:[^"\\\n]|\\.)*"\s*)+)')
# in a template: %% (a literal %), or % and a GNU operand reference (digits, [name], a modifier
# letter before one, %=), or % and a PTX name (%laneid, %lanemask_lt, %clock): only the last is
# one clang rejects
_PERCENT = re.compile(rb"%(%|\d|\[|=|[A-Za-z](?=\d|\[)|(?=[A-Za-z_]))")


def _asm_percent(path: str, text: bytes, row: int, offset: int, where: str) -> Fix | None:
    """`asm("mov.u32 %0, %lanemask_lt;" : "=r"(r))` (nvdiffrast): nvcc substitutes only `%N` and
    `%%` and leaves a `%` before a PTX name as it is; clang rejects it ("invalid % escape"). Read
    as `%%lanemask_lt`, GNU asm's literal `%`. The template is the asm statement's that reaches the
    line clang names and spans the error's column, or the only one reaching that line (a column on
    preprocessed text may not map back inside the string)."""
    start = _offset(text, row, 1)
    if start is None:
        return None
    end = text.find(b"\n", start)
    end = len(text) if end < 0 else end
    spans = []
    for a in _ASM_START.finditer(text, max(0, start - 4000), end):     # a template may begin lines above
        t = _TEMPLATE.match(text, a.end())
        if t and t.end(1) > start:
            spans.append((a.start(), t.start(1), t.end(1)))
    hit = [sp for sp in spans if sp[0] <= offset < sp[2]] or (spans if len(spans) == 1 else [])
    if not hit:
        return None
    _, t0, t1 = hit[0]
    old = text[t0:t1]
    new = _PERCENT.sub(lambda m: b"%%" if m.group(1) == b"" else m.group(0), old)
    if new == old:
        return None
    return Fix(path, t0, new, where, "a '%' before a PTX name in an asm template as '%%' (nvcc substitutes only "
               "%N and %%)", len(old))


_OPEN_SPACED = re.compile(rb"<<([ \t]+)<")
_CLOSE_SPACED = re.compile(rb">>([ \t]+)>")


def _spaced_launch(path: str, text: bytes, offset: int, where: str) -> Fix | None:
    """A kernel launch written `k << <grid, block >> > (args)` (xmrig-cuda): nvcc reads the
    execution configuration, clang reads `k << <` and stops with "expected expression" at the third
    `<`. Read as `k <<< grid, block >>> (args)`: the spaces move after the brackets, so every column
    stays where it was."""
    if text[offset:offset + 1] != b"<":
        return None
    open_ = next((m for m in _OPEN_SPACED.finditer(text, max(0, offset - 16), offset + 1) if m.end() == offset + 1), None)
    if open_ is None:
        return None
    close = _CLOSE_SPACED.search(text, open_.end(), open_.end() + 2000)
    if close is None or b";" in text[open_.end():close.start()]:
        return None
    span = text[open_.start():close.end()]
    k = close.start() - open_.start()
    fixed = b"<<<" + open_[1] + span[len(open_[0]):k] + b">>>" + close[1]
    return Fix(path, open_.start(), fixed, where, "a kernel launch's '<< <' ... '>> >' as '<<<' ... '>>>'", len(span))


_EXPANDED = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<col>\d+): note: expanded from macro '(?P<name>\w+)'$")
_PRAGMA_DEFINE = re.compile(rb"[ \t]*#[ \t]*define[ \t]+(?P<name>\w+)[ \t]+#[ \t]*pragma[ \t]+(?P<body>[^\"\\\n]*?)[ \t]*")


def _pragma_macro(path: str, text: bytes, offset: int, following: list[str], read, where: str) -> Fix | None:
    """`#define PRAGMA_UNROLL #pragma unroll` used alone on a line (moderngpu): nvcc compiles its
    preprocessed output, where the expansion starts a line and is a pragma; clang sees a `#` token in
    a statement ("expected expression", a note "expanded from macro"). Read as `_Pragma("unroll")`,
    the C99/C++11 operator for a pragma from a macro."""
    name = re.match(rb"\w+", text[offset:])
    located = next((ln for ln in following if _DIAG.match(ln)), "")     # past clang's source snippet
    note = _EXPANDED.match(located)
    if not name or not note or note["name"].encode() != name.group():
        return None
    start, end = text.rfind(b"\n", 0, offset) + 1, text.find(b"\n", offset)
    if text[start:offset].strip() or text[offset + name.end():end if end >= 0 else len(text)].strip():
        return None                          # nvcc's pragma line holds the macro alone
    try:
        defined = _line(read(note["file"]), int(note["line"]))
    except OSError:
        return None
    d = _PRAGMA_DEFINE.fullmatch(defined or b"")
    if not d or d["name"] != name.group():
        return None
    body = d["body"].decode()
    return Fix(path, offset, f'_Pragma("{body}")'.encode(), where,
               f"'{name.group().decode()}' (a macro for '#pragma {body}') as the pragma it is to nvcc", name.end())


_SHARED_DECL = re.compile(rb"(?P<lead>(?:static\s+)?__shared__\s+)(?P<type>[\w:<>,\s*&]+?)\s+$")


def _shared_uninitialized(path: str, text: bytes, offset: int, where: str) -> Fix | None:
    """`__shared__ T name;` (block scope, no initializer, not an array), `name` at the error:
    `__shared__ union U { T v; U() {} ~U() {} } U_; T &name = U_.v;` on the same line."""
    name = re.match(rb"\w+", text[offset:])
    if not name or not re.match(rb"\s*;", text[offset + name.end():]):
        return None
    start = max(text.rfind(c, 0, offset) for c in (b";", b"{", b"}", b"\n")) + 1
    decl = _SHARED_DECL.fullmatch(text[start:offset].lstrip())
    if not decl or b"\n" in text[start:offset].strip():
        return None
    lead = start + len(text[start:offset]) - len(text[start:offset].lstrip())
    ty, var = decl["type"].strip().decode(), name.group().decode()
    union = f"__shflx_uninitialized_{var}"
    new = (f"{decl['lead'].decode()}union {union} {{ {ty} v; __device__ {union}() {{}} __device__ ~{union}() {{}} }} "
           f"{union}_; {ty} &{var} = {union}_.v")
    return Fix(path, lead, new.encode(), where, f"'__shared__ {ty} {var}' left uninitialized, as nvcc leaves it "
               "(nvcc does not run its default constructor)", length=offset + name.end() - lead)


# the headers whose typedef of uint8_t ... uint64_t may take a file's own (own_typedefs.py): glibc's,
# a C library's or clang's <stdint.h>, and the CUDA layer's
_STDINT_HEADERS = ("stdint-uintn.h", "stdint.h", "shflx_stdint.h")


def _library_typedef(mine: str, following: list[str], read) -> Fix | None:
    """A file's own typedef of a fixed-width unsigned name that clashes with the C library's: the
    library's typedef (the "previous definition" note's) given the file's type (own_typedefs.py)."""
    for line in following:
        m = _DIAG.match(line)
        if m and m["sev"] == "error":
            return None
        if not m or m["msg"] != "previous definition is here":
            continue
        if os.path.basename(m["file"]) not in _STDINT_HEADERS:
            return None
        try:
            text = read(m["file"])
        except OSError:
            return None
        start, found = _offset(text, int(m["line"]), 1), _line(text, int(m["line"]))
        hit = own_typedefs.retyped(mine, found) if start is not None and found is not None else None
        if hit is None:
            return None
        begin, end, new, name = hit      # said at the library's typedef: one fix however many errors lead to it
        return Fix(m["file"], start + begin, new, f"{m['file']}:{m['line']}:{m['col']}",
                   f"{name} is '{mine}' here, the type the file's own typedef gives it, as nvcc has it (its "
                   f"headers declare no {name})", end - begin)
    return None


def _noted_declaration(following: list[str], read) -> bytes | None:
    """The source line of the function a "possible target for call" note after the error names (its
    column is not used: on preprocessed input it counts macro-expanded text)."""
    for line in following:
        m = _DIAG.match(line)
        if not m:
            continue
        if m["sev"] == "error":
            return None
        if m["msg"] == "possible target for call":
            try:
                text = read(m["file"])
            except OSError:
                return None
            start = _offset(text, int(m["line"]), 1)
            return None if start is None else text[start:text.find(b"\n", start)]
    return None


def _template_keyword(path: str, text: bytes, offset: int, is_function, where: str) -> Fix | None:
    """`A<T>::name<N>(...)` starting at the error, `name` a function (`is_function(name)`):
    `template ` before `name`."""
    m = _QUALIFIED_CALL.match(text, offset)
    if not m or not is_function(m["name"].decode()) or text[:m.start("name")].rstrip().endswith(b"template"):
        return None
    name = m["name"].decode()
    return Fix(path, m.start("name"), b"template ", where,
               f"'template' before the dependent member template '{name}' (nvcc does not require it)")


def _template_at(path: str, text: bytes, offset: int, name: str, where: str) -> Fix | None:
    """`name<` at the error, right after `::`: `template ` before `name`."""
    if not re.match(re.escape(name.encode()) + rb"\s*<", text[offset:]) or \
            not re.search(rb"::\s*$", text[max(0, offset - 64):offset]):
        return None
    return Fix(path, offset, b"template ", where,
               f"'template' before the dependent member template '{name}' (nvcc does not require it)")


def _this_member(path: str, text: bytes, offset: int, name: str, where: str) -> Fix | None:
    """`name` at the error, not already after `.`, `->` or `::`: `this->` before it."""
    if not re.match(re.escape(name.encode()) + rb"\b", text[offset:]) or \
            re.search(rb"(?:\.|->|::)\s*$|\w$", text[max(0, offset - 64):offset]):
        return None
    return Fix(path, offset, b"this->", where,
               f"'this->{name}', the member of a dependent base class nvcc finds at instantiation")


def _device_specialization(path: str, text: bytes, row: int, name: str, following: list[str],
                           where: str) -> Fix | None:
    """`template<> ... __device__ ... name(` on the error's line, where the template's target
    attributes differ (the note after the error): `__attribute__((host))` after `template<>`. The
    line is searched for `name` (on preprocessed input the column counts macro-expanded text)."""
    for line in following:
        m = _DIAG.match(line)
        if m and m["sev"] == "error":
            return None
        if m and m["msg"] == _TARGETS_DIFFER:
            break
    else:
        return None
    start = _offset(text, row, 1)
    found = _line(text, row)
    call = re.search(rb"\b" + re.escape(name.encode()) + rb"\s*(?:<[^;{}()]*>\s*)?\(", found or b"")
    if start is None or call is None:
        return None
    explicit = [e for e in _EXPLICIT.finditer(text, max(0, start - 400), start + call.start())
                if not re.search(rb"[;{}]", text[e.end():start + call.start()])]
    if not explicit:
        return None
    decl = text[explicit[-1].end():start + call.start()]
    if not _DEVICE.search(decl) or _NOT_DEVICE_ONLY.search(decl):
        return None
    return Fix(path, explicit[-1].end(), b" __attribute__((host))", where,
               f"the __device__ specialization of '{name}' as __host__ __device__, its template's execution space "
               "(nvcc matches a specialization to its template whatever the execution space)")


def notes(ir: str) -> list[str]:
    """The notes `Fix.note()` left at the top of a device module."""
    return leading_notes(ir, NOTE_PREFIX)
