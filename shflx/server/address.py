"""Where the server for this client lives: one per (shflx code, its dependencies, Python,
environment, user), and how a client reaches it without trusting anything another user controls.

A worker runs in the environment the server was started in plus the client's variables, and
anything shflx computed once per process (the clang it found, the cache directory) came from the
server's environment, so a server is shared only by clients whose environments agree. Every
variable keys the server except those that differ between the jobs of one build and that shflx
does not read (VOLATILE). The code keys it too: the directory the client imports shflx from and
every file of it and its data (by size and modification time), and where each of shflx's
dependencies is imported from with its installed version (the .dist-info beside it): an edited,
moved or upgraded shflx or dependency gets a new server, and the old one exits when idle. (A
dependency's file changed in place is the server's to notice: it compares every file it has in
memory before each compile, shflx.daemon.)

The socket directory is $SHFLX_SERVER_DIR, $XDG_RUNTIME_DIR/shflx or <tmp>/shflx-<uid>. It is
opened without following a link (O_NOFOLLOW on its last component; a planted symlink in /tmp is
refused) and must be a directory of this user with mode 0700; the socket, its lock and the
server's log are reached through that open descriptor (/proc/self/fd/N/NAME, openat), so the
directory cannot be swapped between the check and the use. Standard library only, and the light
part of it (os.path strings, no pathlib or tempfile): every served command imports this before
anything else."""
from __future__ import annotations

import errno
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
# shflx's dependencies (pyproject.toml): the module imported -> the distribution's .dist-info prefix
DEPENDENCIES = {"numpy": "numpy", "z3": "z3_solver", "elftools": "pyelftools", "llvmlite": "llvmlite",
                "ziglang": "ziglang", "hip": "hip_python", "tomli": "tomli"}
PROC_FD = os.path.isdir("/proc/self/fd")   # Linux: a path through an open directory descriptor


class AddressError(Exception):
    """No usable place for the server's socket (the message says why, in plain words)."""


def open_lock(dfd: int, name: str) -> int:
    """The lock file of the server `name`, inside the checked directory `dfd` (never through a link)."""
    return os.open(f"{name}.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=dfd)


def open_dir(d: str) -> int:
    """A descriptor of directory `d` (its last component not followed if it is a link), checked:
    a directory, owned by this user, no access for anyone else (another user's socket there would
    receive this user's sources, environment and terminal)."""
    try:
        fd = os.open(d, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as e:
        if e.errno in (errno.ELOOP, errno.ENOTDIR) and os.path.islink(d):
            raise AddressError(f"{d} is a symbolic link, not this user's private directory; "
                               "not using it for the compile server") from None
        if e.errno == errno.ENOTDIR:
            raise AddressError(f"{d} is not a directory") from None
        raise AddressError(f"cannot use {d} for the compile server: {e.strerror or e}") from None
    st = os.fstat(fd)
    if st.st_uid != os.getuid() or st.st_mode & 0o077:
        os.close(fd)
        raise AddressError(f"{d} is not this user's private directory (owner uid {st.st_uid}, mode "
                           f"{stat.S_IMODE(st.st_mode):o}; the compile server needs mode 700)")
    return fd


def same_dir(d: str, fd: int) -> None:
    """`d` still names the directory open at `fd`, still this user's and private (checked again
    after connecting: AddressError otherwise)."""
    try:
        now = os.lstat(d)
    except OSError as e:
        raise AddressError(f"{d} changed while connecting to the compile server: {e.strerror or e}") from None
    held = os.fstat(fd)
    if (now.st_dev, now.st_ino) != (held.st_dev, held.st_ino) or held.st_uid != os.getuid() or held.st_mode & 0o077:
        raise AddressError(f"{d} changed while connecting to the compile server; not using it")


def through(fd: int, name: str, path: str) -> str:
    """The path that reaches `name` inside the directory open at `fd` (`path` where no /proc)."""
    return f"/proc/self/fd/{fd}/{name}" if PROC_FD else path


def runtime_dir() -> str:
    """$SHFLX_SERVER_DIR, else $XDG_RUNTIME_DIR/shflx, else <tmp>/shflx-<uid>: created 0700, and
    refused unless it is a directory (not a link to one) of this user that nobody else may use."""
    d = os.environ.get("SHFLX_SERVER_DIR")
    if not d and os.environ.get("XDG_RUNTIME_DIR"):
        d = os.path.join(os.environ["XDG_RUNTIME_DIR"], "shflx")
    elif not d:
        import tempfile
        d = os.path.join(tempfile.gettempdir(), f"shflx-{os.getuid()}")
    d = os.path.abspath(d)
    try:
        os.makedirs(os.path.dirname(d), exist_ok=True)
        os.mkdir(d, 0o700)
    except FileExistsError:
        pass                                 # checked below, whatever it is (a link is refused)
    except OSError as e:
        raise AddressError(f"cannot use {d} for the compile server: {e.strerror or e}") from None
    os.close(open_dir(d))
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


def dependency_fingerprint(path: list[str] | None = None) -> list[tuple]:
    """For each dependency: the sys.path entry it is imported from (the first that has it, as
    import finds it), and the .dist-info there that names its version, with that directory's
    inode and modification time (a reinstall makes a new one)."""
    out: list[tuple] = []
    listings: dict[str, list[str]] = {}
    for module, dist in DEPENDENCIES.items():
        for entry in path if path is not None else sys.path:
            entry = entry or os.getcwd()
            if not (os.path.isdir(os.path.join(entry, module)) or os.path.isfile(os.path.join(entry, module + ".py"))):
                continue
            if entry not in listings:
                try:
                    listings[entry] = os.listdir(entry)
                except OSError:
                    listings[entry] = []
            infos = []
            for name in listings[entry]:
                if name.endswith(".dist-info") and name.lower().replace("-", "_").startswith(dist.lower() + "_"):
                    try:
                        st = os.stat(os.path.join(entry, name))
                        infos.append((name, st.st_ino, st.st_mtime_ns))
                    except OSError:
                        pass
            out.append((module, entry, sorted(infos)))
            break
        else:
            out.append((module, None, []))
    return out


def server_key(env: dict[str, str]) -> str:
    """16 hex digits naming the server for this code, its dependencies, this Python and `env`
    (VOLATILE aside)."""
    h = hashlib.blake2b(digest_size=8)
    for part in (sys.executable, sys.version, str(os.getuid()), os.fspath(PACKAGE), repr(code_fingerprint()),
                 repr(dependency_fingerprint()), repr(sorted((k, v) for k, v in env.items() if k not in VOLATILE))):
        h.update(part.encode("utf-8", "surrogateescape") + b"\0")
    return h.hexdigest()


def socket_path(env: dict[str, str]) -> str:
    """The socket of the server for `env` (AddressError when the directory cannot hold one)."""
    path = os.path.join(runtime_dir(), f"{server_key(env)}.sock")
    if len(os.fsencode(path)) > UNIX_PATH_MAX:
        raise AddressError(f"the socket path {path} is longer than {UNIX_PATH_MAX} bytes; set "
                           "SHFLX_SERVER_DIR to a shorter directory")
    return path
