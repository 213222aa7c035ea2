"""Files at the edges: outputs written without ever leaving a partial one behind, inputs checked
to be text (STYLE.md, Errors), and where shflx keeps what it remembers between runs."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomically(path: Path, data: str | bytes) -> None:
    """Write beside the target, then os.replace: readers see the old file or the whole new one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = "wb" if isinstance(data, bytes) else "w"
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, mode) as f:
            f.write(data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)          # mkstemp makes 0600; outputs get the usual mode
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def check_source_text(source: Path, what: str) -> None:
    """InputError naming `source` unless it is a readable text file (`what`: the expected kind)."""
    from .errors import InputError, Location
    try:
        source.read_text()
    except UnicodeDecodeError:
        raise InputError(f"not a text file (expected {what})", Location(str(source))) from None
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror}", Location(str(source))) from None


def cache_dir() -> Path:
    """Where shflx keeps its caches (solved plans, toolchain answers): $SHFLX_CACHE_DIR, else the
    XDG cache directory's shflx/."""
    env = os.environ.get("SHFLX_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "shflx"


def caching_enabled() -> bool:
    """SHFLX_CACHE=off (or 0, no) turns every cache off."""
    return os.environ.get("SHFLX_CACHE", "on").lower() not in ("off", "0", "no")
