"""Inline asm operand constraints that name nvcc's PTX register classes ("=f", "l", "d", "h"),
written as the generic "r": AMDGPU's clang rejects those letters in every asm statement it parses,
and "r" keeps each operand's own LLVM type, which ir.inline_ptx reads. Text in, text out, line for
line: used on a file's preprocessed text (frontend.ptx_operands) and on NVIDIA's own headers that
the layer reads (frontend.cuda_sdk)."""
from __future__ import annotations

import re

# PTX register classes (PTX ISA, "Inline PTX Assembly" / nvcc constraints) -> the generic "r"
PTX_LETTERS = "fldh"
_ASM_START = re.compile(r"\b(?:asm|__asm__|__asm)\b(?:\s+(?:volatile|__volatile__|inline|goto))*\s*\(")
_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')


def rewrite_constraints(text: str) -> str:
    """`text` with every operand constraint of an asm statement that names a PTX register class
    (f, l, d, h, with its = + & modifiers) written with "r"; templates, clobbers and all other
    text unchanged. A constraint is a string literal directly followed by `(` in the operand
    part (after the first top-level ':') of `asm(...)`."""
    out, pos = [], 0
    for m in _ASM_START.finditer(text):
        if m.start() < pos:
            continue
        end = _closing_paren(text, m.end() - 1)
        if end is None:
            continue
        body = text[m.end():end]
        colon = _first_top_level_colon(body)
        if colon is None:
            continue
        out.append(text[pos:m.end() + colon])
        out.append(_rewrite_operands(body[colon:]))
        pos = end
    out.append(text[pos:])
    return "".join(out)


def _rewrite_operands(part: str) -> str:
    def one(m: re.Match) -> str:
        lit = m.group(0)
        follow = part[m.end():].lstrip()
        inner = lit[1:-1]
        mods = inner.rstrip(PTX_LETTERS + "r")
        letters = inner[len(mods):]
        if not follow.startswith("(") or not letters or set(mods) - set("=+&") or \
                not set(letters) & set(PTX_LETTERS):
            return lit
        return f'"{mods}r"'
    return _STRING.sub(one, part)


_RAW_STRING = re.compile(r'(?:u8|[uUL])?R"([^()\\\s]{0,16})\(')


def _literal_end(text: str, k: int) -> int | None:
    """The index after the string, raw string (R"d(...)d") or character literal starting at k
    (None if none starts there)."""
    raw = _RAW_STRING.match(text, k)
    if raw and (k == 0 or not (text[k - 1].isalnum() or text[k - 1] == "_")):
        end = text.find(")" + raw.group(1) + '"', raw.end())
        return None if end < 0 else end + len(raw.group(1)) + 2
    c = text[k]
    if c in "\"'":
        m = re.compile(rf"{c}(?:[^{c}\\\n]|\\.)*{c}").match(text, k)
        return m.end() if m else None
    return None


def _closing_paren(text: str, open_at: int) -> int | None:
    """Index of the ')' matching text[open_at] == '(', skipping string and char literals."""
    depth, k = 0, open_at
    while k < len(text):
        end = _literal_end(text, k)
        if end is not None:
            k = end
            continue
        c = text[k]
        depth += c == "("
        depth -= c == ")"
        if depth == 0:
            return k
        k += 1
    return None


def _first_top_level_colon(body: str) -> int | None:
    depth, k = 0, 0
    while k < len(body):
        end = _literal_end(body, k)
        if end is not None:
            k = end
            continue
        c = body[k]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == ":" and depth == 0:        # the template is string literals: the first ':' is asm's
            return k
        k += 1
    return None
