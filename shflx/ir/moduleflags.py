"""The code object version a module asks for (`amdhsa_code_object_version`, clang >= 17 writes it).

Bitcode from an older clang (ROCm 5.x, Debian's clang-15) has no such flag; LLVM's own default
would then apply, which is newer than that toolchain's runtime loads. The launcher sets the
version the user's compiler uses (its -mcode-object-version, else 4, the pre-17 default)."""
from __future__ import annotations

import re

FLAG = "amdhsa_code_object_version"


def code_object_version(ir: str) -> int | None:
    """The version the module flag names (4, 5, 6), or None without one."""
    m = re.search(rf'!\{{i32 \d+, !"{FLAG}", i32 (\d+)\}}', ir)
    return int(m.group(1)) // 100 if m else None


def with_code_object_version(ir: str, version: int) -> str:
    """`ir` with the module flag set to `version` (replaced if present, else added)."""
    if code_object_version(ir) is not None:
        return re.sub(rf'(!\{{i32 \d+, !"{FLAG}", i32 )\d+\}}', rf"\g<1>{version * 100}}}", ir)
    ids = [int(n) for n in re.findall(r"^!(\d+) = ", ir, re.M)]
    node = f"!{max(ids, default=-1) + 1}"
    text = ir.rstrip("\n") + f'\n{node} = !{{i32 1, !"{FLAG}", i32 {version * 100}}}\n'
    if re.search(r"^!llvm\.module\.flags = !\{", text, re.M):
        return re.sub(r"^(!llvm\.module\.flags = !\{)(.*)\}$", lambda m: f"{m.group(1)}{m.group(2)}"
                      + (", " if m.group(2).strip() else "") + f"{node}}}", text, count=1, flags=re.M)
    return text + f"!llvm.module.flags = !{{{node}}}\n"
