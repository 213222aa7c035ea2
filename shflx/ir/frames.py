"""Where a site is, in the user's words: one location convention for reports and remarks.

A site's debug location is a chain of frames, innermost first (the shuffle itself), then each call
site it was inlined into. Frames in shflx's own CUDA layer, HIP's warp-function headers and the
CUDA/CCCL/clang headers (installed in site-packages, a CUDA toolkit, clang's resource directory)
are not the user's: a site is placed at its innermost frame in the user's files, and the header
frames inside it are listed with it (the `inlined` chain). The function called from that user
frame, when it is not the user's, is the intrinsic as written (`__match_any_sync`,
`cub::WarpReduce::Sum`, `cooperative_groups::reduce`).

Pure string work on "file:line:col" frames (the core reads no files)."""
from __future__ import annotations

import re
from dataclasses import dataclass

LAYER_PREFIX = "<shflx>/include"      # shflx's CUDA layer, as -fdebug-prefix-map names it (frontend.clang)

# Path parts of files that are not the user's: shflx's layer, HIP's headers, installed Python
# packages (NVIDIA's CUDA/CCCL wheels), a CUDA toolkit, clang's resource directory, system headers.
_HEADER_PARTS = ("/hip/amd_detail/", "/site-packages/", "/dist-packages/", "/lib/clang/", "/cuda/include/",
                 "/usr/include/", "/usr/local/cuda", "/targets/x86_64-linux/include/", "/cuda_cccl/include/")
_HEADER_NAMES = re.compile(r"(?:^|/)(?:__clang_cuda_[\w.]+\.h|cuda_runtime[\w.]*\.h|sm_\d+_intrinsics\.hpp|"
                           r"device_functions\.hpp|cooperative_groups(?:\.h|/[\w./]+))$")


@dataclass(frozen=True)
class Frame:
    where: str                 # "file:line:col"
    function: str = ""         # the DISubprogram's name ("Sum", "__match_any_sync", "reduce<int, ...>")

    @property
    def path(self) -> str:
        return self.where.rsplit(":", 2)[0] if self.where.count(":") >= 2 else self.where


def is_layer(path: str) -> bool:
    """shflx's own CUDA layer (never shown: its frames are an implementation detail)."""
    return path.startswith(LAYER_PREFIX)


def is_header(path: str) -> bool:
    """A frame in a file that is not the user's: shflx's layer, HIP's, CUDA's, CCCL's or clang's headers."""
    return (is_layer(path) or path.startswith("?") or any(p in path for p in _HEADER_PARTS)
            or bool(_HEADER_NAMES.search(path)))


def user_index(frames: list[Frame]) -> int | None:
    """The index of the innermost frame in the user's files; the outermost frame when every frame is
    a header's; None without frames."""
    if not frames:
        return None
    return next((k for k, f in enumerate(frames) if not is_header(f.path)), len(frames) - 1)


def _camel(stem: str) -> str:
    return "".join(part.capitalize() for part in stem.split("_"))


def _bare(name: str) -> str:
    """A function name without its template arguments (`ReduceStep<float, ...>` -> `ReduceStep`)."""
    return name.split("<", 1)[0].strip() if not name.startswith("operator") else name


def qualified(frame: Frame) -> str:
    """The function of a header frame as a user writes it: CUB's methods with their class (CUB names
    each public class after its header: cub/warp/warp_reduce.cuh holds cub::WarpReduce), cooperative
    groups' functions with their namespace, the CUDA layer's intrinsics as they are."""
    name, path = _bare(frame.function), frame.path
    if not name:
        return ""
    if "/cub/" in path:
        stem = path.rsplit("/", 1)[-1].split(".", 1)[0]
        cls = _camel(stem)
        return f"cub::{cls}" if name == cls else (f"cub::{cls}::{name}" if name[:1].isupper() else f"cub::{name}")
    if "cooperative_groups" in path:
        return f"cooperative_groups::{name}"
    if "/thrust/" in path:
        return f"thrust::{name}"
    return name


def place(frames: list[Frame]) -> tuple[str | None, list[str], str | None]:
    """(location, inlined chain, intrinsic) of a site: its innermost user frame; every frame innermost
    first without shflx's layer (header frames kept: they say where in CUB the shuffle is); the
    function the user's frame calls, when that is a header's (None when the user wrote the shuffle
    in their own code or nothing is known)."""
    k = user_index(frames)
    if k is None:
        return None, [], None
    shown = [f.where for f in frames if not is_layer(f.path)] or [f.where for f in frames]
    called = frames[k - 1] if k > 0 and is_header(frames[k - 1].path) else None
    return frames[k].where, shown, (qualified(called) or None) if called is not None else None
