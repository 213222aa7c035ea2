"""NVIDIA headers that shflx's CUDA layer does not provide, and why: the table that turns clang's
"'X' file not found" for one of them into shflx's own one-line error, `file:line:col: error: shflx
does not support 'X' on AMD targets (why)`, at the `#include` that asked for it.

CCCL's headers (CUB, Thrust, libcu++), cooperative groups and cuda_fp16.h/cuda_bf16.h are NVIDIA's own, searched beneath the
layer where shflx's dependencies installed them (clang.cccl_missing names CCCL's otherwise). Host-only library headers (cuBLAS, NCCL,
...) are host_only.py's: a device pass goes on without
them when nothing needs them. cuda-samples' helper_*.h (SAMPLES) are named as what they are, on both
vendors' targets. A project's own missing header keeps clang's message."""
from __future__ import annotations

import re

# header name pattern -> what it is, for the AMD targets (the CUDA layer replaces NVIDIA's device
# headers there); on NVIDIA targets a missing one means NVIDIA's wheels are not installed.
CURAND_MISSING = "cuRAND's headers are not installed: pip install nvidia-curand-cu12"
UNPROVIDED = {
    # NVIDIA's own, read as they are where shflx's nvidia-cuda-runtime-cu12 dependency is installed
    r"(?:cooperative_groups(?:/[\w/]+)?|cuda_(?:awbarrier|pipeline)(?:_primitives|_helpers)?|cuda_(?:fp16|bf16))\.h(?:pp)?":
        "NVIDIA's CUDA runtime headers are not installed: reinstall shflx (pip install . in the shflx "
        "checkout), which depends on nvidia-cuda-runtime-cu12",
    r"curand_\w+\.h": CURAND_MISSING,
    r"(?:sm_\d+_\w+|texture_\w+|surface_\w+|cuda_(?:texture|surface)_types|crt/[\w/]+|cudaEGL\w*|cudaGL\w*|"
    r"cudaVDPAU\w*|cuda_\w+_interop|cudaTypedefs|cudaProfilerTypedefs|cuda_occupancy|"
    r"device_double_functions|host_(?:config|defines)|common_functions)\.hp?p?":
        "an NVIDIA CUDA toolkit header that the CUDA layer for AMD does not provide",
}
# on NVIDIA targets: a library's device headers come with its own wheel, not with shflx's cuda extra
# (cuda_sdk.library_includes reads the include directory of every NVIDIA wheel installed)
NVIDIA_WHEELS = {r"curand(?:_\w+)?\.h": CURAND_MISSING}
NVIDIA_MISSING = "NVIDIA's CUDA headers are not installed: install shflx's cuda extra, pip install '.[cuda]' in the shflx checkout"
# cuda-samples' Common/ headers (helper_cuda.h's checkCudaErrors, helper_math.h's float3 operators),
# which Rodinia's and many teaching projects' Makefiles find through -I$(CUDA_SDK_PATH)/common/inc:
# not part of any CUDA toolkit (NVIDIA/cuda-samples, Common/), on either vendor's targets
SAMPLES = r"helper_(?:cuda|cuda_drvapi|functions|math|string|timer|image|multiprocess|gl)\.h"
SAMPLES_WHY = ("a header of NVIDIA's cuda-samples (Common/), not of the CUDA toolkit: nvcc needs that directory "
               "on the include path too, -I <cuda-samples>/Common")
_NOT_FOUND = re.compile(r"^(?P<where>.+?:\d+:\d+): fatal error: '(?P<name>[^']+)' file not found$")


def why_unprovided(header: str) -> str | None:
    return next((why for pat, why in UNPROVIDED.items() if re.fullmatch(pat, header)), None)


def named_missing_header(line: str, vendor: str) -> str | None:
    """clang's "'X' file not found" for an NVIDIA header shflx does not provide, as shflx's error."""
    m = _NOT_FOUND.match(line.strip())
    if m and re.fullmatch(SAMPLES, m["name"]):
        return f"{m['where']}: error: shflx does not support '{m['name']}' on {vendor} targets ({SAMPLES_WHY})"
    if not m or why_unprovided(m["name"]) is None:
        return None
    why = why_unprovided(m["name"]) if vendor == "AMD" else \
        next((why for pat, why in NVIDIA_WHEELS.items() if re.fullmatch(pat, m["name"])), NVIDIA_MISSING)
    return f"{m['where']}: error: shflx does not support '{m['name']}' on {vendor} targets ({why})"
