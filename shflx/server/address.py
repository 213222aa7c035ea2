"""Where the server for this client lives: one per (shflx code, Python, environment, user).

A worker runs in the environment the server was started in plus the client's variables, and
anything shflx computed once per process (the clang it found, the cache directory) came from the
server's environment, so a server is shared only by clients whose environments agree. Every
variable keys the server except those that differ between the jobs of one build and that shflx
does not read (VOLATILE). The code's fingerprint (every file of the package and its data, by size
and modification time) keys it too: an edited or upgraded shflx gets a new server, and the old
one exits when idle. Standard library only, and the light part of it (os.path strings, no
pathlib or tempfile): every served command imports this before anything else."""
from __future__ import annotations

import hashlib
import os
import stat
import sys

# set per job or per shell by make, ninja, shells and terminals; shflx reads none of them
VOLATILE = frozenset({"MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "MAKE_TERMOUT", "MAKE_TERMERR",
                      "_", "OLDPWD", "PWD", "SHLVL", "COLUMNS", "LINES", "PYTEST_CURRENT_TEST",
                      "SHFLX_SERVER", "SHFLX_SERVER_DIR", "SHFLX_SERVER_IDLE"})
UNIX_PATH_MAX = 107                     # sun_path holds 108 bytes with the terminating NUL (unix(7))
PACKAGE = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
DATA = tuple(os.path.join(os.path.dirname(PACKAGE), d) for d in ("isa", "patterns"))   # a checkout's; installed: inside


class AddressError(Exception):
    """No usable place for the server's socket (the message says why, in plain words)."""


def runtime_dir() -> str:
    """$SHFLX_SERVER_DIR, else $XDG_RUNTIME_DIR/shflx, else <tmp>/shflx-<uid>: created 0700, and
    refused unless this user owns it and nobody else may write to it (another user's socket there
    would receive this user's sources)."""
    d = os.environ.get("SHFLX_SERVER_DIR")
    if not d and os.environ.get("XDG_RUNTIME_DIR"):
        d = os.path.join(os.environ["XDG_RUNTIME_DIR"], "shflx")
    elif not d:
        import tempfile
        d = os.path.join(tempfile.gettempdir(), f"shflx-{os.getuid()}")
    try:
        os.makedirs(d, mode=0o700, exist_ok=True)
        st = os.stat(d)
    except OSError as e:
        raise AddressError(f"cannot use {d} for the compile server: {e.strerror or e}") from None
    if not stat.S_ISDIR(st.st_mode):
        raise AddressError(f"{d} is not a directory")
    if st.st_uid != os.getuid() or st.st_mode & 0o022:
        raise AddressError(f"{d} is not this user's private directory (owner uid {st.st_uid}, "
                           f"mode {stat.S_IMODE(st.st_mode):o})")
    return d


def code_fingerprint() -> list[tuple[str, int, int]]:
    """(path, size, mtime_ns) of every file of the package and its data (byte-compiled files
    aside), so that a server never runs code other than the client's."""
    out = []
    stack = [os.fspath(d) for d in (PACKAGE, *DATA) if os.path.isdir(d)]
    while stack:
        try:
            entries = list(os.scandir(stack.pop()))
        except OSError:
            continue
        for e in entries:
            if e.is_dir(follow_symlinks=False):
                if e.name != "__pycache__":
                    stack.append(e.path)
            elif e.is_file():
                st = e.stat()
                out.append((e.path, st.st_size, st.st_mtime_ns))
    return sorted(out)


def server_key(env: dict[str, str]) -> str:
    """16 hex digits naming the server for this code, this Python and `env` (VOLATILE aside)."""
    h = hashlib.blake2b(digest_size=8)
    for part in (sys.executable, sys.version, str(os.getuid()), repr(code_fingerprint()),
                 repr(sorted((k, v) for k, v in env.items() if k not in VOLATILE))):
        h.update(part.encode("utf-8", "surrogateescape") + b"\0")
    return h.hexdigest()


def socket_path(env: dict[str, str]) -> str:
    """The socket of the server for `env` (AddressError when the directory cannot hold one)."""
    path = os.path.join(runtime_dir(), f"{server_key(env)}.sock")
    if len(os.fsencode(path)) > UNIX_PATH_MAX:
        raise AddressError(f"the socket path {path} is longer than {UNIX_PATH_MAX} bytes; set "
                           "SHFLX_SERVER_DIR to a shorter directory")
    return path
