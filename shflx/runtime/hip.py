"""hip-python adapter: find an AMD GPU and run one code-object kernel on numpy buffers.

Follows spec/cuda_ptx_shfl.md §8.3: every binding call returns `(err, results...)`, the HIP
library is dlopened on first call (RuntimeError when it is missing), and "no AMD GPU" is told
apart in four steps so hardware tests can skip with the exact reason."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from ..errors import ToolchainError


class HipError(ToolchainError):
    """A HIP runtime call failed (exit 2: an environment problem, not bad input)."""


@dataclass(frozen=True, eq=False)
class HipDevice:
    index: int
    arch: str               # "gfx942": gcnArchName without its ":sramecc+:xnack-" feature suffix
    arch_full: str          # gcnArchName as the runtime reports it
    name: str
    hip: Any                # the hip-python module (`from hip import hip`)

    def run_kernel(self, hsaco: bytes, name: str, inputs: Sequence[np.ndarray],
                   out_shape: int | tuple[int, ...], out_dtype: Any = np.uint32,
                   block: tuple[int, int, int] = (64, 1, 1),
                   grid: tuple[int, int, int] = (1, 1, 1), scalars: Sequence[int] = ()) -> np.ndarray:
        """Launch `name(in_0, ..., in_k, out, scalar_0, ...)` (pointers, then i32 scalars); return `out`."""
        args = [*inputs, np.zeros(out_shape, dtype=out_dtype), *(np.int32(v) for v in scalars)]
        return self.launch(hsaco, name, args, grid, block)[len(inputs)]

    def launch(self, hsaco: bytes, name: str, args: Sequence[np.ndarray | np.generic],
               grid: tuple[int, int, int] = (1, 1, 1), block: tuple[int, int, int] = (64, 1, 1),
               dynamic_lds: int = 0) -> list[np.ndarray | None]:
        """Launch `name(args...)`: a numpy array is a device buffer (copied in, read back), a numpy
        scalar a by-value argument of its own type; return every buffer after the run (None for
        the scalars). `dynamic_lds`: bytes of dynamic shared memory (CUDA's `extern __shared__`).

        Every call's error code is checked; device memory and the module are released on every
        path, and a release failure is reported unless an earlier error is already on its way."""
        hip = self.hip
        _check(hip, hip.hipSetDevice(self.index), "hipSetDevice")
        host = [np.array(a, order="C", copy=True) if isinstance(a, np.ndarray) else None for a in args]
        image = bytearray(hsaco)                     # stays alive until the module is unloaded
        module = None
        buffers: list[Any] = []
        failed = True
        try:
            (module,) = _check(hip, hip.hipModuleLoadData(image), "hipModuleLoadData")
            (function,) = _check(hip, hip.hipModuleGetFunction(module, name.encode()),
                                 f"hipModuleGetFunction({name!r})")
            params: list[Any] = []
            h2d = hip.hipMemcpyKind.hipMemcpyHostToDevice
            for a, h in zip(args, host):
                if h is None:
                    params.append(by_value(a))
                    continue
                (d,) = _check(hip, hip.hipMalloc(max(h.nbytes, 4)), f"hipMalloc({h.nbytes})")
                buffers.append(d)
                params.append(d)
                _check(hip, hip.hipMemcpy(d, h, h.nbytes, h2d), "hipMemcpy (host to device)")
            _check(hip, hip.hipModuleLaunchKernel(function, *grid, *block, dynamic_lds, None, None, tuple(params)),
                   f"hipModuleLaunchKernel({name!r}, grid={grid}, block={block})")
            _check(hip, hip.hipDeviceSynchronize(), f"hipDeviceSynchronize after {name!r}")
            d2h = hip.hipMemcpyKind.hipMemcpyDeviceToHost
            for d, h in zip(buffers, (h for h in host if h is not None)):
                _check(hip, hip.hipMemcpy(h, d, h.nbytes, d2h), "hipMemcpy (device to host)")
            failed = False
        finally:
            for d in buffers:
                _release(hip, hip.hipFree(d), "hipFree", failed)
            if module is not None:
                _release(hip, hip.hipModuleUnload(module), "hipModuleUnload", failed)
        return host


def by_value(value: Any) -> Any:
    """A numpy scalar as the ctypes value of the same size that hip-python lays out in the kernel
    arguments (a 16-bit float travels as its bits)."""
    import ctypes
    v = np.asarray(value)
    if v.dtype == np.float16:
        v = v.view(np.uint16)
    kinds = {"f4": ctypes.c_float, "f8": ctypes.c_double, "i1": ctypes.c_int8, "u1": ctypes.c_uint8,
             "b1": ctypes.c_uint8, "i2": ctypes.c_int16, "u2": ctypes.c_uint16, "i4": ctypes.c_int32,
             "u4": ctypes.c_uint32, "i8": ctypes.c_int64, "u8": ctypes.c_uint64}
    kind = f"{v.dtype.kind}{v.dtype.itemsize}"
    if kind not in kinds:
        raise TypeError(f"cannot pass a {v.dtype} by value to a kernel")
    return kinds[kind](v.item())


def _error_text(hip: Any, err: Any) -> str:
    name = getattr(err, "name", str(err))
    try:
        text = hip.hipGetErrorString(err)
        text = text[-1] if isinstance(text, tuple) else text
        text = text.decode() if isinstance(text, bytes) else str(text)
    except Exception:  # the message is a courtesy; the code is what matters
        text = ""
    return f"{name}: {text}" if text and text != name else name


def _check(hip: Any, result: Any, what: str) -> tuple[Any, ...]:
    """The results after the error code of a binding call, or HipError naming the call."""
    values = result if isinstance(result, tuple) else (result,)
    err = values[0]
    if err != hip.hipError_t.hipSuccess:
        raise HipError(f"{what} failed: {_error_text(hip, err)}")
    return tuple(values[1:])


def _release(hip: Any, result: Any, what: str, already_failing: bool) -> None:
    if already_failing:
        return
    _check(hip, result, what)


def _arch_name(value: Any) -> str:
    text = value.decode(errors="replace") if isinstance(value, (bytes, bytearray)) else str(value)
    return text.split("\0", 1)[0].strip()


def _plain(e: Exception) -> str:
    """An exception's text without Python's bytes reprs: hip-python says
    "failed to dlopen 'b'libamdhip64.so''" where a person reads "failed to dlopen 'libamdhip64.so'"."""
    import re
    return re.sub(r"'?b'([^']*)''?", r"'\1'", str(e)).replace("''", "'")


def probe_hip(index: int = 0, hip_module: Any = None) -> tuple[HipDevice | None, str]:
    """(device, "") or (None, why not): the §8.3 steps, never raising.

    1. hip-python missing; 2. the HIP runtime library cannot be dlopened (RuntimeError);
    3. hipGetDeviceCount fails or finds none; then the properties of device `index`."""
    hip = hip_module
    if hip is None:
        try:
            from hip import hip  # type: ignore[no-redef]
        except ImportError as e:
            return None, f"hip-python is not installed ({e}); pip install hip-python"
        except Exception as e:  # a broken installation is also "no usable HIP"
            return None, f"hip-python cannot be imported: {type(e).__name__}: {e}"
    try:
        result = hip.hipGetDeviceCount()
    except RuntimeError as e:
        return None, f"the HIP runtime library cannot be loaded ({_plain(e)})"
    except Exception as e:
        return None, f"hipGetDeviceCount raised {type(e).__name__}: {e}"
    try:
        err, count = result
        if err != hip.hipError_t.hipSuccess:
            return None, f"hipGetDeviceCount: {_error_text(hip, err)} (no AMD GPU)"
        if count <= index:
            return None, f"no HIP device {index} (hipGetDeviceCount = {count})"
        err, props = hip.hipGetDeviceProperties(index)
        if err != hip.hipError_t.hipSuccess:
            return None, f"hipGetDeviceProperties({index}): {_error_text(hip, err)}"
        full = _arch_name(props.gcnArchName)
        name = _arch_name(getattr(props, "name", ""))
    except Exception as e:
        return None, f"querying HIP device {index} failed: {type(e).__name__}: {e}"
    if not full:
        return None, f"HIP device {index} reports no gcnArchName"
    return HipDevice(index, full.split(":", 1)[0], full, name, hip), ""


def hip_device(index: int = 0) -> HipDevice | None:
    """The HIP device `index`, or None when hip-python, the HIP runtime or a GPU is missing."""
    return probe_hip(index)[0]
