"""PTX as data: a reader and writer that keep every byte they do not change.

Why: the NVIDIA rewrites (redux.sync, load -> shuffle) edit a few statements of PTX that nvcc or
clang produced; everything else must reach ptxas exactly as it was, so unknown instructions and
directives are kept verbatim and every statement remembers its original text. An unmodified
statement prints byte-identically; `unparse(parse(x)) == x` for every file `parse` accepts.

Public API (stable; helper code builds on it):

    parse(text, filename="<ptx>", check=True) -> Module   InputError on malformed PTX (file:line, reason);
                                                          with check, also on an unsupported .version
                                                          or .target (the supported ones are listed)
    unparse(module) -> str                                 (also Module.unparse())
    parse_instruction(text, line=0) -> Instruction         one statement, e.g. "add.s32 %r1, %r2, 1;"
    Instruction.new(opcode, operands, pred=None, neg=False)

    Module: filename, version ("9.0"), version_tuple ((9, 0)), target ("sm_90"), target_options
            (("debug",) ...), address_size (64 or None), items (top-level Directive | Function, in
            order), functions (every Function, declarations included: body is None), function(name)
    Function: name, kind ("entry" | "func"), linkage (".visible", ".extern", ".weak" or ""),
            params / returns (list of Param(name, decl)), body (list of statements, the outermost
            braces excluded; nested `{`/`}` are ScopeOpen/ScopeClose), line,
            instructions() (iterator), index(stmt), insert(index, stmts), insert_before(anchor,
            stmts), insert_after(anchor, stmts), replace(old, stmts), remove(stmt),
            new_reg(".b32") -> "%shx0" (adds `.reg .b32 %shx0;` after the function's .reg block),
            new_label("prefix") -> fresh label name, is_reg(name), reg_types() (name or range prefix
            -> type), reg_type(name) (".b32"; through `%r<N>` ranges; None if undeclared),
            branch_targets() (labels some statement can jump to; line-info labels are not)
    Statements (all have `line`, 1-based, 0 for new ones, and `lead`: the whitespace/comments before):
      Instruction: pred ("%p1" or None), neg (True for `@!%p1`), opcode ("shfl.sync.bfly.b32"),
            operands (list of str, split at top-level commas: "{%r1, %r2}", "[%rd1+8]", "%r1|%p1"
            stay whole), base ("shfl"), modifiers (("sync", "bfly", "b32")), dests(), srcs()
            (register names: %-names anywhere, bare names outside [...] that may be registers
            declared without % by inline asm; filter with Function.is_reg), render()
      Label(name), Directive(name, text) (".reg", ".loc", ".pragma", ... verbatim),
      RegDecl(Directive: dtype, names), ScopeOpen, ScopeClose
    Mutating an Instruction's fields (or building a new one) makes it print in canonical form
    (`@%p1 opcode\\toperands;`); untouched statements print their original text.

PTX syntax follows the PTX ISA, chapter "PTX Syntax" (statements end in ';', directives start with
'.', labels end in ':', `@{!}p` guards) and "Directives" (.version/.target/.address_size/.loc/.file
and the performance-tuning directives are the ones without a terminating ';')."""
from __future__ import annotations

import bisect
import re
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Sequence

from ..errors import InputError, Location

# PTX ISA versions this reader has been checked against: 6.0 introduced shfl.sync (the oldest form
# shflx rewrites), 9.0 is what CUDA 13.0's nvcc emits and its ptxas accepts (spec/cuda_ptx_shfl.md §2).
SUPPORTED_VERSIONS = ((6, 0), (9, 0))

# Directives that end at the end of their line rather than at ';' (PTX ISA "Directives").
_LINE_DIRECTIVES = frozenset({
    ".version", ".target", ".address_size", ".loc", ".file", ".maxntid", ".reqntid", ".minnctapersm",
    ".maxnctapersm", ".maxnreg", ".maxclusterrank", ".reqnctapercluster", ".explicitcluster",
    ".noreturn", ".blocksareclusters"})

# Instructions whose first operand is not written (stores, branches, barriers, ...).
_NO_DEST = frozenset({
    "st", "red", "bar", "barrier", "bra", "brx", "ret", "exit", "membar", "fence", "prefetch",
    "prefetchu", "trap", "brkpt", "nanosleep", "pmevent", "cp", "stmatrix", "griddepcontrol",
    "setmaxnreg", "applypriority", "discard", "tensormap", "stackrestore"})

_IDENT = r"[A-Za-z_$%][\w$]*"
_LABEL_RE = re.compile(r"([A-Za-z_$][\w$]*)\s*:")
_GUARD_RE = re.compile(r"@(!?)(%?[A-Za-z_$][\w$]*)\s+")
_OPCODE_RE = re.compile(r"[A-Za-z_][\w.:]*")
_DIRWORDS_RE = re.compile(r"\.[A-Za-z_]\w*(?:\s+\.[A-Za-z_]\w*)*")
_REG_TOKEN_RE = re.compile(r"%[A-Za-z_$][\w$]*(?:\.[xyzw])?|[A-Za-z_$][\w$]*")
_JUNK_RE = re.compile(r"[\w$.]\s+([\w$%@.]+)")
_NUMBER_RE = re.compile(r"[-+]?(0[xX][0-9a-fA-F]+U?|0[fFdD][0-9a-fA-F]+|\d+(\.\d*)?([eE][-+]?\d+)?U?)$")


# ----------------------------------------------------------------------------- statements

@dataclass(eq=False)
class Statement(ABC):
    """One PTX statement; `lead` is the exact text (whitespace, comments) before it."""

    lead: str = "\n\t"
    line: int = 0

    @abstractmethod
    def render(self) -> str:
        """The statement's own text (without `lead`)."""


@dataclass(eq=False)
class Instruction(Statement):
    """An instruction with its guard; operands are kept as written (no type checking)."""

    pred: str | None = None
    neg: bool = False
    opcode: str = ""
    operands: list[str] = field(default_factory=list)
    text: str | None = None          # original text, used while the fields are unchanged
    _orig: tuple | None = field(default=None, repr=False)

    @classmethod
    def new(cls, opcode: str, operands: Sequence[str], pred: str | None = None,
            neg: bool = False) -> "Instruction":
        """A fresh instruction (printed canonically); insert it with Function.insert*/replace."""
        return cls(pred=pred, neg=neg, opcode=opcode, operands=list(operands))

    def _key(self) -> tuple:
        return (self.pred, self.neg, self.opcode, tuple(self.operands))

    @property
    def base(self) -> str:
        return self.opcode.split(".", 1)[0]

    @property
    def modifiers(self) -> tuple[str, ...]:
        return tuple(self.opcode.split(".")[1:])

    def dests(self) -> list[str]:
        """Registers this instruction writes (the first operand, split at '|' and vectors)."""
        if not self.operands or self.base in _NO_DEST:
            return []
        if self.base == "call":
            return _regs(self.operands[0]) if self.operands[0].startswith("(") else []
        if self.base in ("wmma", "mbarrier") and any(m.startswith(("store", "init", "inval"))
                                                     for m in self.modifiers):
            return []
        # mbarrier.expect_tx/complete_tx [addr], n write no register; `_` is the sink (PTX ISA 9.7.13.15)
        if self.base == "mbarrier" and (self.modifiers[:1] in (("expect_tx",), ("complete_tx",))
                                        or self.operands[0].strip() == "_"):
            return []
        return _regs(self.operands[0])

    def srcs(self) -> list[str]:
        """Registers this instruction reads (the guard is in `pred`, not here)."""
        if self.base in ("bra", "brx"):
            return [r for op in self.operands[1:] for r in _regs(op)] if self.base == "brx" else []
        if self.base == "call":
            ops = self.operands[1:] if self.operands and self.operands[0].startswith("(") else self.operands
            return [r for op in ops[1:] for r in _regs(op)]
        sink = self.base == "mbarrier" and bool(self.operands) and self.operands[0].strip() == "_"
        first = 1 if self.dests() or sink else 0
        return [r for op in self.operands[first:] for r in _regs(op)]

    def render(self) -> str:
        if self.text is not None and self._orig == self._key():
            return self.text
        guard = f"@{'!' if self.neg else ''}{self.pred} " if self.pred else ""
        ops = "\t" + ", ".join(self.operands) if self.operands else ""
        return f"{guard}{self.opcode}{ops};"

    def __str__(self) -> str:
        return self.render()


@dataclass(eq=False)
class Label(Statement):
    name: str = ""
    text: str | None = None
    _orig: str | None = field(default=None, repr=False)

    def render(self) -> str:
        return self.text if self.text is not None and self._orig == self.name else f"{self.name}:"


@dataclass(eq=False)
class Directive(Statement):
    """A directive kept verbatim: `name` is its first word (".reg", ".loc", ".pragma", ...)."""

    name: str = ""
    text: str = ""

    def render(self) -> str:
        return self.text


@dataclass(eq=False)
class RegDecl(Directive):
    """`.reg .b32 %r<25>;` or `.reg .pred p, q;`: names as written (ranges keep their `<N>`)."""

    dtype: str = ""
    names: tuple[str, ...] = ()


@dataclass(eq=False)
class ScopeOpen(Statement):
    def render(self) -> str:
        return "{"


@dataclass(eq=False)
class ScopeClose(Statement):
    def render(self) -> str:
        return "}"


@dataclass(eq=False)
class Param:
    name: str
    decl: str          # the whole declaration as written, e.g. ".param .u64 k_param_0"


# ----------------------------------------------------------------------------- functions

@dataclass(eq=False)
class Function:
    """A kernel (.entry) or device function (.func); `body` is None for a declaration."""

    name: str
    kind: str
    linkage: str
    params: list[Param]
    returns: list[Param]
    body: list[Statement] | None
    line: int
    lead: str = ""
    header: str = ""          # from the first directive word to the opening '{' (or ';') inclusive
    close_lead: str = "\n"    # text before the closing '}'
    _fresh: int = field(default=0, repr=False)

    def render(self) -> str:
        if self.body is None:
            return self.header
        return self.header + "".join(s.lead + s.render() for s in self.body) + self.close_lead + "}"

    def instructions(self) -> Iterator[Instruction]:
        return (s for s in (self.body or ()) if isinstance(s, Instruction))

    def index(self, stmt: Statement) -> int:
        for k, s in enumerate(self._b()):
            if s is stmt:
                return k
        raise ValueError(f"statement not in {self.name}")

    def _b(self) -> list[Statement]:
        if self.body is None:
            raise ValueError(f"{self.name} is a declaration without a body")
        return self.body

    def insert(self, index: int, stmts: Iterable[Statement]) -> None:
        self._b()[index:index] = list(stmts)

    def insert_before(self, anchor: Statement, stmts: Iterable[Statement]) -> None:
        self.insert(self.index(anchor), stmts)

    def insert_after(self, anchor: Statement, stmts: Iterable[Statement]) -> None:
        self.insert(self.index(anchor) + 1, stmts)

    def replace(self, old: Statement, stmts: Iterable[Statement]) -> None:
        """Replace `old`; the first new statement takes over old's leading whitespace/comments."""
        new = list(stmts)
        k = self.index(old)
        if new:
            new[0].lead = old.lead
        elif k + 1 < len(self._b()):
            self.body[k + 1].lead = old.lead + self.body[k + 1].lead.lstrip(" \t") \
                if old.lead.strip() else self.body[k + 1].lead
        self._b()[k:k + 1] = new

    def remove(self, stmt: Statement) -> None:
        self.replace(stmt, [])

    def reg_types(self) -> dict[str, str]:
        """Declared registers, as written: name -> type ("%r<25>" stands for %r0 .. %r24)."""
        return {n: s.dtype for s in self.body or () if isinstance(s, RegDecl) for n in s.names}

    def reg_type(self, name: str) -> str | None:
        """The declared type of register `name` (".b32", ...), also through a range declaration
        (`%r<25>` declares %r0 .. %r24); None when it is not declared (special registers included)."""
        decl = self.reg_types()
        if name in decl:
            return decl[name]
        m = re.fullmatch(r"(.*?)(\d+)", name)
        if m:
            for n, dtype in decl.items():
                r = re.fullmatch(r"(.+)<(\d+)>", n)
                if r and r.group(1) == m.group(1) and int(m.group(2)) < int(r.group(2)):
                    return dtype
        return None

    def is_reg(self, name: str) -> bool:
        """Whether `name` is a declared register (any scope) or a special register such as %tid.x."""
        return name.split(".")[0] in _SPECIAL_REGS or self.reg_type(name) is not None

    def branch_targets(self) -> set[str]:
        """Labels control can jump to: the label names that some non-label statement mentions (a
        branch's operand, a .branchtargets list, ...). The `$L__tmp` labels of line info
        (nvcc -lineinfo, clang -g) are named by no statement here, so they are not targets and do
        not split a straight-line stretch."""
        body = self.body or ()
        labels = {s.name for s in body if isinstance(s, Label)}
        if not labels:
            return set()
        mentioned = " ".join(" ".join(s.operands) if isinstance(s, Instruction) else s.render()
                             for s in body if not isinstance(s, Label))
        return labels & set(re.findall(r"[\w$.]+", mentioned))

    def new_reg(self, dtype: str) -> str:
        """A fresh register of `dtype` (".b32", ".pred", ...), declared after the last top-level .reg."""
        if not dtype.startswith("."):
            dtype = "." + dtype
        body = self._b()
        used = self._all_tokens()
        while True:
            name = f"%shx{'p' if dtype == '.pred' else ''}{self._fresh}"
            self._fresh += 1
            if name not in used and not self.is_reg(name):    # is_reg: names inside a `%x<N>` range
                break
        depth, at = 0, 0
        for k, s in enumerate(body):
            if isinstance(s, ScopeOpen):
                depth += 1
            elif isinstance(s, ScopeClose):
                depth -= 1
            elif depth == 0 and isinstance(s, RegDecl):
                at = k + 1
        text = f".reg {dtype} {name};"
        body.insert(at, RegDecl(lead="\n\t", name=".reg", text=text, dtype=dtype, names=(name,)))
        return name

    def new_label(self, prefix: str = "$L__shflx") -> str:
        """A label name not used anywhere in this function."""
        used = self._all_tokens()
        while True:
            name = f"{prefix}{self._fresh}"
            self._fresh += 1
            if name not in used:
                return name

    def _all_tokens(self) -> set[str]:
        return set(_REG_TOKEN_RE.findall(self.render()))


_SPECIAL_REGS = frozenset({
    "%tid", "%ntid", "%laneid", "%warpid", "%nwarpid", "%ctaid", "%nctaid", "%smid", "%nsmid",
    "%gridid", "%lanemask_eq", "%lanemask_le", "%lanemask_lt", "%lanemask_ge", "%lanemask_gt",
    "%clock", "%clock64", "%clock_hi", "%globaltimer", "%globaltimer_lo", "%globaltimer_hi",
    "%dynamic_smem_size", "%total_smem_size", "%clusterid", "%nclusterid", "%cluster_ctaid",
    "%cluster_nctaid", "%cluster_ctarank", "%cluster_nctarank", "%is_explicit_cluster",
    "%aggr_smem_size", "%reserved_smem_offset_begin", "%reserved_smem_offset_end",
    "%reserved_smem_offset_cap", "%current_graph_exec"})


def _regs(operand: str) -> list[str]:
    """Register-like names in one operand: %-names anywhere, bare names outside [...] brackets."""
    out, depth, k = [], 0, 0
    while k < len(operand):
        ch = operand[k]
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        m = _REG_TOKEN_RE.match(operand, k) if (ch == "%" or ch.isalpha() or ch in "_$") else None
        if m and (k == 0 or not (operand[k - 1].isalnum() or operand[k - 1] in "_$.")):
            tok = m.group(0)
            if tok.startswith("%") or (depth == 0 and not _NUMBER_RE.match(tok)):
                out.append(tok)
            k = m.end()
            continue
        k += 1
    return out


# ----------------------------------------------------------------------------- module

@dataclass(eq=False)
class Module:
    filename: str
    items: list
    trailer: str = ""
    version: str = ""
    target: str = ""
    target_options: tuple[str, ...] = ()
    address_size: int | None = None

    @property
    def version_tuple(self) -> tuple[int, int]:
        major, _, minor = self.version.partition(".")
        return int(major), int(minor or 0)

    @property
    def functions(self) -> list[Function]:
        return [it for it in self.items if isinstance(it, Function)]

    def function(self, name: str) -> Function:
        for f in self.functions:
            if f.name == name and f.body is not None:
                return f
        for f in self.functions:
            if f.name == name:
                return f
        raise KeyError(name)

    def unparse(self) -> str:
        return "".join(it.lead + it.render() for it in self.items) + self.trailer


_FILE = re.compile(r'^\.file\s+(\d+)\s+"((?:[^"\\]|\\.)*)"')
_LOC = re.compile(r"^\.loc\s+(\d+)\s+(\d+)\s+(\d+)(?:.*\binlined_at\s+(\d+)\s+(\d+)\s+(\d+))?")


def source_lines(module: Module) -> dict[int, str]:
    """PTX line of each instruction -> "file:line:col" of the source it came from, from the `.loc`
    before it (nvcc -lineinfo / -G, clang -g): the `inlined_at` call site when there is one, since
    that is the caller's line (the user's code rather than a header's). Empty without .loc."""
    files = {int(m.group(1)): m.group(2) for it in module.items
             if isinstance(it, Directive) and (m := _FILE.match(it.text.strip()))}
    out: dict[int, str] = {}
    for fn in module.functions:
        here = None
        for st in fn.body or ():
            if isinstance(st, Directive) and st.name == ".loc":
                m = _LOC.match(st.text.strip())
                if m:
                    f, ln, col = (m.group(4), m.group(5), m.group(6)) if m.group(4) else m.groups()[:3]
                    here = f"{files.get(int(f), f'file {f}')}:{ln}:{col}" if int(ln) > 0 else None
            elif isinstance(st, Instruction) and here is not None:
                out[st.line] = here
    return out


def unparse(module: Module) -> str:
    return module.unparse()


# ----------------------------------------------------------------------------- lexer

class _Src:
    """The text with line lookup and the scanning primitives shared by the parsers below."""

    def __init__(self, text: str, filename: str):
        self.t, self.n, self.file = text, len(text), filename
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def loc(self, i: int) -> Location:
        line = bisect.bisect_right(self.starts, i)
        return Location(self.file, line, i - self.starts[line - 1] + 1)

    def line(self, i: int) -> int:
        return bisect.bisect_right(self.starts, i)

    def err(self, i: int, reason: str) -> InputError:
        return InputError(reason, self.loc(i))

    def trivia(self, i: int) -> int:
        """Skip whitespace and comments."""
        t = self.t
        while i < self.n:
            c = t[i]
            if c in " \t\r\n\f\v":
                i += 1
            elif t.startswith("//", i):
                j = t.find("\n", i)
                i = self.n if j < 0 else j
            elif t.startswith("/*", i):
                j = t.find("*/", i + 2)
                if j < 0:
                    raise self.err(i, "unterminated /* comment")
                i = j + 2
            else:
                break
        return i

    def until(self, i: int, stops: str, what: str) -> int:
        """Index of the first char of `stops` at bracket depth 0 (outside strings and comments)."""
        t, depth, start = self.t, [], i
        pairs = {"(": ")", "[": "]", "{": "}"}
        while i < self.n:
            c = t[i]
            if c in stops and not depth:
                return i
            if c == '"':
                j = i + 1
                while j < self.n and t[j] != '"':
                    if t[j] == "\n":
                        raise self.err(i, "unterminated string")
                    j += 2 if t[j] == "\\" else 1
                if j >= self.n:
                    raise self.err(i, "unterminated string")
                i = j + 1
                continue
            if t.startswith("//", i):
                j = t.find("\n", i)
                i = self.n if j < 0 else j
                continue
            if t.startswith("/*", i):
                j = t.find("*/", i + 2)
                if j < 0:
                    raise self.err(i, "unterminated /* comment")
                i = j + 2
                continue
            if c in pairs:
                depth.append(pairs[c])
            elif c in ")]}":
                if not depth or depth[-1] != c:
                    raise self.err(start, f"unbalanced '{c}' (line {self.line(i)}) in {what}")
                depth.pop()
            i += 1
        if depth:
            raise self.err(start, f"{what} not terminated: missing '{depth[-1]}'")
        raise self.err(start, f"{what} not terminated: missing {' or '.join(repr(s) for s in stops)}")

    def eol(self, i: int) -> int:
        """End of a line directive: the newline or a // comment (strings respected)."""
        t, inq = self.t, False
        while i < self.n and t[i] != "\n":
            if t[i] == '"':
                inq = not inq
            elif not inq and t.startswith("//", i):
                break
            i += 1
        return i


def _strip_comments(s: str) -> str:
    s = re.sub(r"/\*.*?\*/", " ", s, flags=re.S)
    return re.sub(r"//[^\n]*", " ", s)


def _split_top(s: str) -> list[str]:
    """Split at commas outside (), [], {} (the text is already balanced)."""
    out, depth, cur = [], 0, []
    for ch in s:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur).strip())
    return out


def _instruction(body: str, src: _Src, at: int) -> Instruction:
    """Parse one instruction statement (text without its ';'); `at` locates errors."""
    s = _strip_comments(body).strip()
    pred, neg = None, False
    if s.startswith("@"):
        g = _GUARD_RE.match(s)
        if not g:
            raise src.err(at, f"malformed guard predicate in '{s[:40]}' (expected @p or @!p before the opcode)")
        neg, pred = bool(g.group(1)), g.group(2)
        s = s[g.end():]
    m = _OPCODE_RE.match(s)
    if not m or (m.end() < len(s) and not s[m.end()].isspace()):
        raise src.err(at, f"expected an instruction opcode, found '{s[:40]}'")
    rest = s[m.end():].strip()
    operands = _split_top(rest) if rest else []
    if any(op == "" for op in operands):
        raise src.err(at, f"empty operand in '{s[:60]}'")
    for op in operands:
        junk = _JUNK_RE.search(re.sub(r"\[[^\[\]]*\]|\{[^{}]*\}|\([^()]*\)", "x", op))
        if junk:
            raise src.err(at, f"an operand of {m.group(0)} runs into '{junk.group(1)}' "
                              "(missing ';' or ',')")
    return Instruction(pred=pred, neg=neg, opcode=m.group(0), operands=operands)


def parse_instruction(text: str, line: int = 0, filename: str = "<ptx>") -> Instruction:
    """One instruction from text ("add.s32 %r1, %r2, 1;" with or without the ';'); prints canonically."""
    s = text.strip()
    src = _Src(s, filename)
    end = src.until(0, ";", "instruction") if ";" in s else len(s)
    if s[end + 1:].strip() if end < len(s) else False:
        raise src.err(end, "text after the instruction's ';'")
    ins = _instruction(s[:end], src, 0)
    ins.line = line
    return ins


def _params(group: str) -> list[Param]:
    inner = group.strip()[1:-1].strip()
    if not inner:
        return []
    out = []
    for decl in _split_top(_strip_comments(inner)):
        names = re.findall(r"([A-Za-z_$][\w$]*)\s*(?:\[[^\]]*\])*\s*$", decl)
        out.append(Param(names[0] if names else "", decl))
    return out


def _function(src: _Src, i: int, lead: str) -> tuple[Function, int]:
    """A .entry/.func starting at i (its first directive word); returns it and the index after it."""
    t, i0 = src.t, i
    end = src.until(i, "{;", "function header")
    header = t[i:end + 1]
    words = _DIRWORDS_RE.match(header).group(0).split()
    kind = "entry" if ".entry" in words else "func"
    linkage = next((w for w in words if w in (".visible", ".extern", ".weak", ".common")), "")
    rest = _strip_comments(header[_DIRWORDS_RE.match(header).end():-1]).strip()
    returns: list[Param] = []
    if rest.startswith("("):
        close = src.until(i + header.index("(") + 1, ")", "return parameter list")
        returns = _params(t[i + header.index("("):close + 1])
        rest = _strip_comments(t[close + 1:end]).strip()
    m = re.match(r"([A-Za-z_$][\w$]*)", rest)
    if not m:
        raise src.err(i, f"{words[-1]} without a name")
    name = m.group(1)
    rest = rest[m.end():].strip()
    params = _params(rest[:_group_end(rest) + 1]) if rest.startswith("(") else []
    fn = Function(name=name, kind=kind, linkage=linkage, params=params, returns=returns, body=None,
                  line=src.line(i), lead=lead, header=header)
    if t[end] == ";":
        return fn, end + 1
    fn.body = []
    i, depth = end + 1, 0
    while True:
        j = src.trivia(i)
        if j >= src.n:
            raise src.err(i0, f"function {name}: missing closing '}}'")
        lead_s, c = t[i:j], t[j]
        if c == "}":
            if depth == 0:
                fn.close_lead = lead_s
                return fn, j + 1
            depth -= 1
            fn.body.append(ScopeClose(lead=lead_s, line=src.line(j)))
            i = j + 1
        elif c == "{":
            depth += 1
            fn.body.append(ScopeOpen(lead=lead_s, line=src.line(j)))
            i = j + 1
        else:
            stmt, i = _statement(src, j, lead_s)
            fn.body.append(stmt)


def _group_end(s: str) -> int:
    depth = 0
    for k, ch in enumerate(s):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0:
            return k
    return len(s) - 1


_DIRECTIVE_NAME = re.compile(r"\.[A-Za-z_]\w*")


def _directive(src: _Src, i: int, lead: str) -> tuple[Directive, int]:
    t = src.t
    m = _DIRECTIVE_NAME.match(t, i)        # at i: slicing t[i:] copied the rest of the file per directive
    if not m:
        raise src.err(i, f"malformed directive '{t[i:i + 20].splitlines()[0]}'")
    name = m.group(0)
    if name in _LINE_DIRECTIVES:
        end = src.eol(i)
        text = t[i:end].rstrip(" \t\r")
        end = i + len(text)
    elif name == ".section":
        k = src.until(i, "{;", ".section")
        end = (src.until(k + 1, "}", ".section body") + 1) if t[k] == "{" else k + 1
        text = t[i:end]
    else:
        end = src.until(i, ";", f"directive {name}") + 1
        text = t[i:end]
    if name == ".reg":
        body = _strip_comments(text[len(name):-1]).strip()
        parts = body.split(None, 1)
        words = re.findall(r"\.[\w]+", body)
        dtype = next((w for w in words if w not in (".v2", ".v4", ".v8") and not w.startswith(".align")), "")
        names_txt = re.sub(r"^(\s*\.[\w]+(\s+\d+)?)+\s*", "", body)
        names = tuple(x.strip() for x in _split_top(names_txt) if x.strip())
        if len(parts) < 2 or not names:
            raise src.err(i, "malformed .reg declaration (expected `.reg .TYPE NAME[, NAME...];`)")
        return RegDecl(lead=lead, line=src.line(i), name=name, text=text, dtype=dtype, names=names), end
    return Directive(lead=lead, line=src.line(i), name=name, text=text), end


def _statement(src: _Src, i: int, lead: str) -> tuple[Statement, int]:
    """One statement inside a function body at i (after its lead)."""
    t = src.t
    c = t[i]
    if c == ".":
        return _directive(src, i, lead)
    lm = _LABEL_RE.match(t, i)
    if lm:
        return Label(lead=lead, line=src.line(i), name=lm.group(1), text=t[i:lm.end()],
                     _orig=lm.group(1)), lm.end()
    if c == "@" or c.isalpha() or c == "_":
        end = src.until(i, ";", "instruction")
        ins = _instruction(t[i:end], src, i)
        ins.lead, ins.line, ins.text = lead, src.line(i), t[i:end + 1]
        ins._orig = ins._key()
        return ins, end + 1
    raise src.err(i, f"unexpected '{c}': expected an instruction, label or directive")


def _check_text(src: _Src) -> None:
    bad = re.search(r"[\x00-\x08\x0e-\x1f\x7f]", src.t)
    if bad:
        raise src.err(bad.start(), f"not PTX text (control byte {ord(bad.group(0)):#04x})")


def _header(mod: Module, d: Directive, src: _Src, i: int) -> None:
    args = _strip_comments(d.text[len(d.name):]).strip()
    if d.name == ".version":
        if not re.fullmatch(r"\d+\.\d+", args):
            raise src.err(i, f"malformed .version '{args}' (expected MAJOR.MINOR)")
        if mod.version:
            raise src.err(i, "second .version directive")
        mod.version = args
    elif d.name == ".target":
        parts = [p.strip() for p in args.split(",")]
        if not parts[0] or not all(re.fullmatch(r"\w+", p) for p in parts):
            raise src.err(i, f"malformed .target '{args}'")
        if mod.target:
            raise src.err(i, "second .target directive")
        mod.target, mod.target_options = parts[0], tuple(parts[1:])
    elif d.name == ".address_size":
        if args not in ("32", "64"):
            raise src.err(i, f"malformed .address_size '{args}' (expected 32 or 64)")
        mod.address_size = int(args)


def supported_target(target: str) -> str | None:
    """The isa/nvidia target whose facts apply to a PTX .target (sm_90a -> sm_90), or None."""
    from ..isa import known_nvidia_targets
    known = known_nvidia_targets()
    if target in known:
        return target
    base = re.sub(r"[af]$", "", target)
    return base if base != target and base in known else None


class UnsupportedPtx(InputError):
    """Well-formed PTX whose .version or .target shflx does not know (the ptxas wrapper passes it
    through: the real ptxas may well accept it)."""


def check_supported(mod: Module, where: dict[str, Location] | None = None) -> None:
    """Raise UnsupportedPtx unless .version and .target are ones shflx knows (`where`: directive -> place)."""
    from ..isa import known_nvidia_targets
    where = where or {}
    top = Location(mod.filename, 1)
    lo, hi = SUPPORTED_VERSIONS
    if not mod.version:
        raise InputError("no .version directive (every PTX module starts with one)", top)
    if not lo <= mod.version_tuple <= hi:
        raise UnsupportedPtx(f"unsupported PTX .version {mod.version}; supported: "
                         f"{lo[0]}.{lo[1]} to {hi[0]}.{hi[1]}", where.get(".version", top))
    if not mod.target:
        raise InputError("no .target directive", top)
    if supported_target(mod.target) is None:
        raise UnsupportedPtx(f"unsupported .target {mod.target}; supported: "
                         f"{', '.join(known_nvidia_targets())} (sm_XXa variants use their base's facts)",
                         where.get(".target", top))


def parse(text: str, filename: str = "<ptx>", check: bool = True) -> Module:
    """Parse a PTX module; InputError (file:line: reason) when it is not well-formed PTX."""
    src = _Src(text, filename)
    _check_text(src)
    mod = Module(filename=filename, items=[])
    i, where = 0, {}
    while True:
        j = src.trivia(i)
        lead = text[i:j]
        if j >= src.n:
            mod.trailer = lead
            break
        c = text[j]
        if c != ".":
            raise src.err(j, f"unexpected '{text[j:j + 30].splitlines()[0]}' at top level "
                             "(expected a directive, .entry or .func)")
        dm = _DIRWORDS_RE.match(text, j)
        if not dm:
            raise src.err(j, f"malformed directive '{text[j:j + 20].splitlines()[0]}'")
        words = dm.group(0).split()
        if ".entry" in words or ".func" in words:
            item, i = _function(src, j, lead)
        else:
            item, i = _directive(src, j, lead)
            if item.name in (".version", ".target", ".address_size"):
                _header(mod, item, src, j)
                where[item.name] = src.loc(j)
            if isinstance(item, RegDecl):
                raise src.err(j, ".reg outside a function")
        mod.items.append(item)
    if check:
        check_supported(mod, where)
    return mod
