"""Files at the edges: outputs written without ever leaving a partial one behind and never over an
input, inputs read only when they are regular files, and where shflx keeps what it remembers
between runs (a directory checked like any other input it did not write itself)."""
from __future__ import annotations

import os
import stat
import sys
import tempfile
from pathlib import Path
from typing import Iterable


# ------------------------------------------------------------------------------ outputs

def written_in_place(path: Path) -> bool:
    """Whether `path` is written in place rather than replaced by a rename: an existing target that
    is not a regular file (a device such as /dev/null or /dev/full, a FIFO, a socket), or one named
    through /dev or /proc (/dev/stdout, /dev/fd/N: a descriptor's file, whatever it is), as clang
    writes them. Only a regular file is replaced by a rename."""
    try:
        st = os.stat(path)
    except OSError:
        return False
    return not stat.S_ISREG(st.st_mode) or _descriptor_name(path)


def _descriptor_name(path: Path) -> bool:
    """Whether `path` names an open descriptor's file (/dev/stdout -> /proc/self/fd/1, /dev/fd/N,
    /proc/PID/fd/N): its link chain passes through /proc or /dev/fd. Renaming over such a name would
    replace the link (as root, /dev/stdout itself), not write to the descriptor."""
    p = os.path.abspath(path)
    for _ in range(40):
        if p.startswith(("/proc/", "/dev/fd/")):
            return True
        if not os.path.islink(p):
            return False
        p = os.path.normpath(os.path.join(os.path.dirname(p), os.readlink(p)))
    return False


def write_atomically(path: Path, data: str | bytes) -> None:
    """Write beside the target, then os.replace: readers see the old file or the whole new one. A
    target that is not a regular file (written_in_place) is opened and written as it is."""
    raw = data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data
    if written_in_place(path):
        with open(path, "wb") as f:           # no O_CREAT race: it exists; a FIFO waits for its reader
            f.write(raw)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)          # mkstemp makes 0600; outputs get the usual mode
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _identity(path: str | os.PathLike) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return (st.st_dev, st.st_ino) if stat.S_ISREG(st.st_mode) else None


def check_outputs(inputs: Iterable[str | os.PathLike], outputs: Iterable[tuple[str, str | os.PathLike]]) -> None:
    """The one check of every output a command will write (`outputs`: (what, path), e.g. ("-o",
    "k.hsaco"), ("-MF", "k.d"), ("--report-file", "r.txt")) against every file it reads (`inputs`):
    no output may be an input, in any spelling (relative, absolute, `./`, `..`, through a symlink or
    as a hard link: the same file is the same device and inode), and the directory of each new
    output must be one this process can write. A UsageError naming the flag and the file, before
    anything is written."""
    from .errors import UsageError
    read: dict[tuple[int, int], str] = {}
    for p in inputs:
        ident = _identity(p)
        if ident is not None:
            read.setdefault(ident, str(p))
    written: dict[str, str] = {}
    for what, out in outputs:
        ident = _identity(out)
        if ident is not None and ident in read:
            raise UsageError(f"{what} {out} would overwrite the input {read[ident]}; choose another output name")
        real = os.path.realpath(out)
        if real in written and not written_in_place(Path(out)):
            raise UsageError(f"{what} {out} and {written[real]} name the same file; give each output its own name")
        written[real] = f"{what} {out}"
        _check_writable(what, Path(out))


def _check_writable(what: str, out: Path) -> None:
    """An output that does not exist yet needs a directory this process can write (checked by its
    own access rights, so also for root); where it cannot, the error names the directory."""
    from .errors import UsageError
    if os.path.lexists(out):
        return
    parent = out.parent
    while not parent.exists() and parent != parent.parent:   # written by mkdir -p: the first that exists
        parent = parent.parent
    if parent.is_dir() and not os.access(parent, os.W_OK | os.X_OK, effective_ids=os.access in os.supports_effective_ids):
        raise UsageError(f"cannot write {what} {out}: the directory {parent} is not writable")


# ------------------------------------------------------------------------------ inputs

def _open_regular(path: Path, what: str) -> int:
    """A descriptor of `path`, which must be a regular file: opened without blocking (a FIFO opens at
    once) and checked on the descriptor itself, so a FIFO, device or directory is an InputError,
    never a hang."""
    from .errors import InputError, Location
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror or e}", Location(str(path))) from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        kind = ("a directory" if stat.S_ISDIR(st.st_mode) else "a FIFO" if stat.S_ISFIFO(st.st_mode)
                else "a device" if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode) else "a socket"
                if stat.S_ISSOCK(st.st_mode) else "not a regular file")
        raise InputError(f"cannot read: {kind}, not a regular file (expected {what})", Location(str(path)))
    os.set_blocking(fd, True)
    return fd


def read_input(path: Path, what: str) -> bytes:
    """The bytes of the regular file `path` (InputError naming it otherwise; `what`: its kind)."""
    from .errors import InputError, Location
    fd = _open_regular(Path(path), what)
    try:
        with os.fdopen(fd, "rb") as f:
            return f.read()
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror or e}", Location(str(path))) from None


def read_input_text(path: Path, what: str) -> str:
    """The text of the regular file `path` (UTF-8), or an InputError naming it and the line of the
    first byte that is not text."""
    from .errors import InputError, Location
    data = read_input(path, what)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"not a text file (expected {what})", Location(str(path))) from None


def check_regular(path: Path, what: str) -> None:
    """InputError naming `path` unless it is a regular file this process can open (for inputs
    another program reads: clang reads the sources)."""
    os.close(_open_regular(Path(path), what))


def check_source_text(source: Path, what: str) -> None:
    """InputError naming `source` unless it is a readable text file (`what`: the expected kind)."""
    read_input_text(source, what)


def tool_text(path: Path) -> str:
    """Text a tool wrote (clang's IR, assembly): UTF-8, a byte that is not (a file name clang
    copied into a comment as it is) replaced rather than fatal."""
    return path.read_bytes().decode("utf-8", "replace")


# ------------------------------------------------------------------------------ caches

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


_DISTRUSTED: dict[str, str] = {}           # cache directory -> why it is not used (warned once)


def cache_dir_problem(folder: Path) -> str | None:
    """Why `folder` may not hold this user's caches, None when it may: it must be a directory (links
    followed) owned by this user and writable by no one else (no group or other write bit), as a
    socket directory would be: what another user could write is never read as proven plans or
    toolchain facts. A folder that does not exist yet is fine (trusted_cache_dir makes it 0700)."""
    try:
        st = os.stat(folder)
    except FileNotFoundError:
        return None
    except OSError as e:
        return e.strerror or str(e)
    if not stat.S_ISDIR(st.st_mode):
        return "it is a file, not a directory (SHFLX_CACHE_DIR or XDG_CACHE_HOME)"
    if st.st_uid != os.geteuid():
        return f"it is owned by another user (uid {st.st_uid}; this process runs as uid {os.geteuid()})"
    if st.st_mode & 0o022:
        who = "group and others" if st.st_mode & 0o022 == 0o022 else "its group" if st.st_mode & 0o020 else "others"
        return f"it is writable by {who} (mode {stat.S_IMODE(st.st_mode):04o})"
    return None


def trusted_cache_dir() -> Path | None:
    """cache_dir(), made (0700) where missing, when it passes cache_dir_problem; else None after one
    warning line per process (distrusted() says why): the caches are then neither read nor written
    (a cache only costs speed)."""
    try:
        folder = cache_dir()
    except (RuntimeError, KeyError):          # no home directory to put it in
        folder = Path("~/.cache/shflx")
        _DISTRUSTED.setdefault(str(folder), "there is no home directory")
    key = str(folder)
    if key in _DISTRUSTED:
        return None
    why = cache_dir_problem(folder)
    if why is None and not folder.is_dir():
        try:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as e:
            why = f"it cannot be made: {e.strerror or e}"
        else:
            why = cache_dir_problem(folder)
    if why is None:
        return folder
    _DISTRUSTED[key] = why
    print(f"shflx: warning: the cache directory {folder} cannot be used ({why}); continuing without it "
          "(slower). Set SHFLX_CACHE_DIR to a directory of your own (mode 0700), or fix its owner and mode",
          file=sys.stderr)
    return None


def distrusted(folder: Path) -> str | None:
    """Why trusted_cache_dir() refused `folder` in this process (None: it did not)."""
    return _DISTRUSTED.get(str(folder))
