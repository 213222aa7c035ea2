"""NVVM shuffle intrinsics as shuffle markers: NVPTX IR compiled against NVIDIA's real headers.

With the real CUDA headers, clang's `__clang_cuda_intrinsics.h` defines `__shfl_*_sync` as
`llvm.nvvm.shfl.sync.<mode>.{i32,f32}` calls (64-bit and half types split into 32-bit ones by the
header), where the shflx prelude would have written `__shflx_shfl_sync` markers. Turning each call
into the marker (with bitcasts around the f32 form) lets one site finder, one chain recogniser and
one lowering serve both front ends; `driver.nvidia.lower_shuffles` writes every marker back as an
`llvm.nvvm.shfl.sync.<mode>.i32` call, so a shuffle that shflx does not change comes out as the
header wrote it. The predicate forms (`...i32p`/`f32p`, `{value, in-range}`) are left alone: they
are not analysed, and stay exactly as written."""
from __future__ import annotations

import re

from .sites import MARKER, MODE_NAMES
from .text import operand_token, split_args

_MODE_NUMBER = {name: num for num, name in MODE_NAMES.items()}
_CALL = re.compile(r"^(?P<indent>\s*)(?P<res>%[\w.\-]+) = (?:tail |musttail |notail )?call [^@]*"
                   r"@llvm\.nvvm\.shfl\.sync\.(?P<mode>up|down|bfly|idx)\.(?P<ty>i32|f32)\((?P<args>.*)\)"
                   r"(?P<rest>[^()]*)$")
_DECL = f"declare i32 @{MARKER}(i32, i32, i32, i32, i32) convergent nounwind"   # as the prelude declares it


def as_markers(ir: str) -> tuple[str, int]:
    """`ir` with every `llvm.nvvm.shfl.sync.<mode>.{i32,f32}` call replaced by the marker, and the
    number replaced. Values keep their names, so every use of a result is unchanged."""
    out: list[str] = []
    count = 0
    for line in ir.splitlines():
        m = _CALL.match(line)
        if m is None:
            out.append(line)
            continue
        args = [operand_token(a) for a in split_args(m.group("args"))]
        if len(args) != 4:
            out.append(line)
            continue
        mask, value, b, c = args
        ind, res, rest, mode = m.group("indent"), m.group("res"), m.group("rest"), _MODE_NUMBER[m.group("mode")]
        tag = f"%__shflx_nvvm.{count}"
        if m.group("ty") == "i32":
            out.append(f"{ind}{res} = call i32 @{MARKER}(i32 {mode}, i32 {mask}, i32 {value}, i32 {b}, i32 {c}){rest}")
        else:
            out += [f"{ind}{tag}.in = bitcast float {value} to i32",
                    f"{ind}{tag} = call i32 @{MARKER}(i32 {mode}, i32 {mask}, i32 {tag}.in, i32 {b}, i32 {c}){rest}",
                    f"{ind}{res} = bitcast i32 {tag} to float"]
        count += 1
    if count:
        out.append(_DECL)
    return "\n".join(out) + "\n", count
