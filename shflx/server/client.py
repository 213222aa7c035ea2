"""The client side of the compile server: find or start the server, hand it a command, relay.

`served(argv)` sends the command with this process's working directory, environment, umask and
stdin/stdout/stderr to the server for this code and environment (address.py), starting it when
none answers, and returns the worker's exit code. It sends nothing before it has checked that the
server runs as this user (SO_PEERCRED) in this user's private directory (connect). Ctrl-C, SIGTERM,
SIGHUP and SIGQUIT sent to the client go on to the worker's process group. A server that closes the
connection or says `stale` before it names a worker (it is stopping, or out of date) is
Unavailable: the command then runs in this process. Standard library only: it runs before shflx's
imports."""
from __future__ import annotations

import os
import signal
import socket
import sys
import time

from .address import PACKAGE, AddressError, open_dir, open_lock, same_dir, socket_path, through
from .protocol import peer_uid, read_line, send_request

FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)
START_S = 60.0                  # the server's imports, on a loaded machine
IDLE_S = 600.0                  # as sccache: a server exits ten minutes after its last request


class Unavailable(Exception):
    """Why this client cannot be served (it then compiles in its own process)."""


def server_wanted() -> bool:
    """SHFLX_SERVER: on/1/yes/true or off/0/no/false/unset (anything else is a usage error)."""
    value = os.environ.get("SHFLX_SERVER", "").strip().lower()
    if value in ("", "off", "0", "no", "false"):
        return False
    if value in ("on", "1", "yes", "true"):
        return True
    raise ValueError(f"SHFLX_SERVER={os.environ['SHFLX_SERVER']!r}: expected on or off")


def idle_seconds() -> float:
    text = os.environ.get("SHFLX_SERVER_IDLE", "")
    try:
        value = float(text) if text else IDLE_S
    except ValueError:
        raise ValueError(f"SHFLX_SERVER_IDLE={text!r}: expected seconds") from None
    if not value > 0:
        raise ValueError(f"SHFLX_SERVER_IDLE={text!r}: expected a positive number of seconds")
    return value


def connect(path: str | os.PathLike) -> socket.socket | None:
    """A connection to the server at `path`, or None when nothing listens there. The directory is
    opened without following a link and checked (address.open_dir), the socket is reached through
    that descriptor, the server's user is checked before anything is sent (SO_PEERCRED), and the
    directory is checked again; another user's server, or a directory that fails a check, is
    Unavailable (the client then compiles in its own process)."""
    d, name = os.path.split(os.fspath(path))
    try:
        dfd = open_dir(d)
    except AddressError as e:
        raise Unavailable(str(e)) from None
    try:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(through(dfd, name, os.fspath(path)))
        except OSError:
            sock.close()
            return None
        try:
            uid = peer_uid(sock)
            if uid != os.getuid():
                raise Unavailable(f"the compile server at {os.fspath(path)} belongs to uid {uid}, not to this "
                                  f"user (uid {os.getuid()}); not using it")
            same_dir(d, dfd)
        except AddressError as e:
            sock.close()
            raise Unavailable(str(e)) from None
        except OSError as e:
            sock.close()
            raise Unavailable(f"cannot tell who runs the compile server at {os.fspath(path)} "
                              f"({e.strerror or e})") from None
        except BaseException:
            sock.close()
            raise
        return sock
    finally:
        os.close(dfd)


def _lock_held(dfd: int, name: str, d: str) -> bool:
    """Whether a server (running, starting or exiting) holds SOCKET.lock (shflx.daemon takes it);
    Unavailable when the lock cannot even be opened (an unwritable directory)."""
    import fcntl
    try:
        fd = open_lock(dfd, name)
    except OSError as e:
        raise Unavailable(f"cannot start the compile server in {d}: {e.strerror or e}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return False
    except OSError:
        return True
    finally:
        os.close(fd)


# the server imports shflx from where this client did: it gets the client's sys.path (relative
# entries made absolute, '' the client's directory) before it imports anything of shflx, and checks
# that it found this PACKAGE
BOOT = ("import sys, marshal; sys.path[:] = marshal.loads(bytes.fromhex(sys.argv[1])); "
        "from shflx.daemon import main; raise SystemExit(main(sys.argv[2:]))")


def start_server(path: str) -> socket.socket:
    """Start the server for `path` (detached: its own session, no terminal) and connect to it. A
    server that exits at once found another holding the lock: wait for that one to listen, or, if
    it was exiting, start another. A directory where no lock or log can be written is Unavailable
    at once."""
    import marshal
    import subprocess
    idle = idle_seconds()
    d, name = os.path.split(path)
    stem = name.removesuffix(".sock")
    log = os.path.join(d, f"{stem}.log")
    try:
        dfd = open_dir(d)
    except AddressError as e:
        raise Unavailable(str(e)) from None
    try:
        search = marshal.dumps([os.path.abspath(p) for p in sys.path]).hex()   # '' is this directory
        deadline = time.monotonic() + START_S
        proc = None
        while time.monotonic() < deadline:
            sock = connect(path)
            if sock is not None:
                return sock
            if proc is not None and proc.poll() is not None and proc.returncode:
                raise Unavailable(f"the compile server did not start (exit {proc.returncode}; see {log})")
            if (proc is None or proc.poll() is not None) and not _lock_held(dfd, name, d):
                try:
                    out = os.open(f"{stem}.log", os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC,
                                  0o600, dir_fd=dfd)
                except OSError as e:
                    raise Unavailable(f"cannot start the compile server in {d}: {e.strerror or e}") from None
                try:
                    proc = subprocess.Popen([sys.executable, "-c", BOOT, search, path, repr(idle), PACKAGE],
                                            stdin=subprocess.DEVNULL, stdout=out, stderr=out, cwd="/",
                                            start_new_session=True, close_fds=True)
                except OSError as e:
                    raise Unavailable(f"cannot start the compile server ({e.strerror or e})") from None
                finally:
                    os.close(out)
            time.sleep(0.02)
        if proc is not None and proc.poll() is None:
            proc.kill()
        raise Unavailable(f"the compile server did not answer within {START_S:.0f} s (see {log})")
    finally:
        os.close(dfd)


def served(argv: list[str]) -> int:
    """Run `shflx ARGV` in a worker of the server; its exit code (Unavailable before it starts)."""
    try:
        path = socket_path(dict(os.environ))
    except AddressError as e:
        raise Unavailable(str(e)) from None
    umask = os.umask(0)
    os.umask(umask)
    try:
        cwd = os.getcwd()
    except OSError as e:
        raise Unavailable(f"the working directory cannot be named ({e.strerror or e})") from None
    request = {"op": "run", "argv": argv, "argv0": sys.argv[0], "cwd": cwd, "env": dict(os.environ),
               "umask": umask, "encoding": getattr(sys.stdout, "encoding", None) or "utf-8"}
    sock = connect(path) or start_server(path)
    worker: list[int] = []
    pending: list[int] = []

    def forward(sig, _frame):
        if worker:
            try:
                os.killpg(worker[0], sig)
            except ProcessLookupError:
                pass
        else:
            pending.append(sig)

    with sock:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
            send_request(sock, request, [0, 1, 2])
        except OSError as e:
            raise Unavailable(f"the compile server did not take the request ({e.strerror or e})") from None
        previous = {sig: signal.signal(sig, forward) for sig in FORWARDED}
        try:
            stream = sock.makefile("rb")
            while True:
                try:
                    said = read_line(stream)
                except OSError as e:                # a server that stopped with this request queued
                    if not worker:
                        raise Unavailable(f"the compile server stopped before it ran the command "
                                          f"({e.strerror or e})") from None
                    said = None
                if said is None:
                    if not worker:
                        raise Unavailable("the compile server stopped before it ran the command")
                    print("shflx: error: the compile server's worker stopped without an exit code",
                          file=sys.stderr)
                    return 2
                word, rest = said
                if word == "stale" and not worker:
                    raise Unavailable(f"the compile server is out of date ({rest})")
                if word == "pid":
                    worker.append(int(rest))
                    for sig in pending:
                        forward(sig, None)
                elif word == "exit":
                    return int(rest)
                elif word == "signal":
                    sig = int(rest)
                    if sig in FORWARDED:      # what this client was sent: end the way it would have
                        signal.signal(sig, signal.SIG_DFL)
                        os.kill(os.getpid(), sig)
                    print(f"shflx: error: the compile server's worker was killed by {signal.Signals(sig).name}",
                          file=sys.stderr)
                    return 128 + sig
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
