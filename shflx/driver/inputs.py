"""Compile inputs that are not CUDA: LLVM IR from other front ends, and the check that a device
module calls nothing it does not define; the one check of a compile's input and output files."""
from __future__ import annotations

import os
import re
from pathlib import Path

from ..errors import InputError, Location
from ..files import check_outputs, check_regular
from ..frontend.clang import device_gap
from ..ir.text import declared_names, locations


def check_resolved(ir: str, source: Path, vendor: str = "AMD", provided: tuple[str, ...] = ()) -> None:
    """No call may be left to a function the code object does not define (ld.lld would accept it
    in a shared object and the kernel would fail only when loaded), nor a device variable. A CUDA function shflx's device
    side lacks (printf, malloc, ...) is named with the line of its first call in compiled code;
    `provided`: functions the target's loader supplies (vprintf on NVIDIA)."""
    declared = declared_names(ir)
    called = set(re.findall(r"\bcall [^@]*@([\w.$]+)\(", ir))
    missing = sorted(n for n in declared & called if not n.startswith("llvm.") and n not in provided)
    for name in missing:
        gap = device_gap(name)
        if gap:
            what, why = gap
            raise InputError(f"shflx does not support '{what}' in device code on {vendor} targets ({why})",
                             first_call(ir, name, source))
    how = (SEPARATE_AMD if vendor == "AMD" else
           "or compile with -fgpu-rdc for a relocatable object the device link resolves")
    if missing:
        raise InputError(f"call to undefined device function(s) {', '.join(missing)}: define them in "
                         f"the translation unit ({how})", Location(str(source)))
    names = _EXTERN_VARIABLE.findall(ir)
    if names:
        raise InputError(f"undefined device variable(s) {', '.join(sorted(names))}: define them in the translation "
                         f"unit ({how})", Location(str(source)))


# AMD: each file's device code is linked into its own code object, with or without -rdc=true
SEPARATE_AMD = "separate compilation of device code is not supported on AMD targets"
# an `extern __device__` / `extern __constant__` variable no file defines: global (1) and constant (4)
# memory; an `extern __shared__` array (3) is the launch's dynamic shared memory. nvcc's whole-program
# mode refuses it; ptxas and ld.lld would accept or fail it without naming the variable.
_EXTERN_VARIABLE = re.compile(r"^@([\w.$]+) = external\b[^=]*\baddrspace\((?:1|4)\) (?:externally_initialized )?global",
                              re.M)


def first_call(ir: str, name: str, source: Path) -> Location:
    """The source location of the first call to `name` (its !dbg line), else the file."""
    lines = ir.splitlines()
    for line in lines:
        m = re.search(rf"\bcall [^@]*@{re.escape(name)}\(.*!dbg (![0-9]+)", line)
        if m:
            where = locations(lines).get(m.group(1), "")
            parts = where.rsplit(":", 2)
            if len(parts) == 3 and parts[1].isdigit():
                return Location(parts[0], int(parts[1]), int(parts[2]) if parts[2].isdigit() else None)
    return Location(str(source))


def read_ir(source: Path, triple: str = "amdgcn") -> str:
    """LLVM IR from another front end (hipcc, Triton, clang): text, or bitcode through llvmlite;
    its target triple must start with `triple`."""
    try:
        if source.suffix == ".bc":
            import llvmlite.binding as llvm
            ir = str(llvm.parse_bitcode(source.read_bytes()))
        else:
            ir = source.read_text()
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror}", Location(str(source))) from None
    except Exception as e:  # noqa: BLE001 - llvmlite raises plain RuntimeError for bad bitcode
        raise InputError(f"not LLVM bitcode: {e}", Location(str(source))) from None
    m = re.search(r'^target triple = "([^"]*)"', ir, flags=re.M)
    if not m or not m.group(1).startswith(triple):
        what, full = ("AMDGPU", "amdgcn-amd-amdhsa") if triple == "amdgcn" else ("NVPTX", triple)
        raise InputError(f"not {what} LLVM IR (target triple {m.group(1) if m else 'missing'}); "
                         f"compile the device code for {full}", Location(str(source)))
    return ir


def source_location(text: str, source: Path) -> Location:
    parts = text.rsplit(":", 2)
    if len(parts) == 3 and parts[1].isdigit():
        return Location(parts[0], int(parts[1]), int(parts[2]) if parts[2].isdigit() else None)
    return Location(str(source))


def check_compile_files(f, sources: list[Path], outputs: list[tuple[str, str]]) -> None:
    """Every input of the compile flags `f` is a regular file (a FIFO is an error, not a hang), and
    the one check of every output (-o, the depfile, --report-file: (flag, path) pairs) against every
    input (the sources, -include files, response files): files.check_outputs."""
    for src in (s for s in sources if str(s) != "-"):
        check_regular(src, "a CUDA or HIP source" if src.suffix not in (".ll", ".bc") else "LLVM IR")
    included = [f.preprocessor[k + 1] for k, w in enumerate(f.preprocessor) if w == "-include"]
    for inc in included:          # one that is not here is searched for on the include path by clang
        if os.path.lexists(inc):
            check_regular(Path(inc), "a header (-include)")
    check_outputs([*sources, *included, *f.response_files], outputs)
