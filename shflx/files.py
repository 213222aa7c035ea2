"""Writing output files without ever leaving a partial one behind (STYLE.md, Errors)."""
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
