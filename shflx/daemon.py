"""The server: imports shflx once, then forks a worker per request that runs `shflx.cli.main`.

  python -c shflx.server.client.BOOT SYS_PATH SOCKET IDLE_SECONDS PACKAGE   (started by the client, detached)

The client starts it with its own sys.path, and the server refuses to run unless it imported
shflx from the client's PACKAGE: it runs the code the client would have run. One server per
socket: it holds an exclusive lock on SOCKET.lock while it accepts, so of two clients that start
one at the same moment, one server serves and the other exits. The socket directory is opened
without following links and checked (shflx.server.address), and the lock, the socket and its
removal go through that descriptor. The socket is bound only after the imports, so a client that
connects is served at once.

No connection can hold up another: the loop never waits on a read. It accepts, reads each
request as its bytes arrive (one selector over every connection), and drops a connection whose
request is not whole within REQUEST_S of its accept. Before each compile it checks that no file
of the code it has in memory (every imported module, every mapped library) changed on disk since
it started; if one did it answers `stale` (the client compiles in its own process, as a plain
command would, with the files now on disk) and stops.

A worker is a fork of the warm server with the client's working directory, environment, umask,
argv and descriptors; it closes every other descriptor the server had (the lock, the listening
socket, other clients' connections), runs in its own process group (the client forwards Ctrl-C
and SIGTERM there, reaching clang as a terminal would) and never returns into the server's loop.
The server watches each worker's connection: a client that goes away (killed by SIGKILL, so it
could forward nothing) takes its worker's process group with it (SIGTERM, then SIGKILL after
KILL_S). The server stops after IDLE_SECONDS without a request or a running worker, on SIGTERM,
or on a `stop` request: it then stops listening at once (the socket removed, the lock released,
connections not yet served closed, so their clients compile in their own processes and a new
server can start), and exits when its last worker has."""
from __future__ import annotations

import fcntl
import importlib
import io
import json
import os
import selectors
import signal
import socket
import sys
import time

from .server.address import PACKAGE, AddressError, open_dir, open_lock, through
from .server.protocol import ProtocolError, RequestReader, peer_uid

# what `shflx compile` and `shflx launch` import, for AMD and NVIDIA targets
WARM = ("shflx.cli", "shflx.driver.amd", "shflx.driver.nvidia", "shflx.driver.launch", "shflx.driver.flags",
        "shflx.driver.report", "shflx.frontend.clang", "numpy")
REQUEST_S = 10.0            # a request must be whole this long after its connection was accepted
KILL_S = 5.0                # a worker whose client went away: SIGTERM, then SIGKILL this much later


def warm_up() -> None:
    """Import what a compile imports; computes nothing that depends on the environment. numpy's
    BLAS starts no thread pool (shflx does no linear algebra): the server forks with one thread."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from .driver.amd import BACK_END
    for name in (*WARM, *BACK_END):
        importlib.import_module(name)


def _identity(path: str) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns


def code_in_memory() -> dict[str, tuple[int, int, int] | None]:
    """(inode, size, mtime) of every file this process runs code from: each imported module's
    file and each mapped file (shared libraries such as llvmlite's, which ctypes loads)."""
    files = {f for m in list(sys.modules.values()) if isinstance(f := getattr(m, "__file__", None), str)}
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                fields = line.split(None, 5)
                if len(fields) == 6 and fields[5].startswith("/"):
                    files.add(fields[5].rstrip("\n").removesuffix(" (deleted)"))
    except OSError:
        pass
    return {f: _identity(f) for f in files}


def changed_on_disk(snapshot: dict[str, tuple[int, int, int] | None]) -> str | None:
    """The first file of `snapshot` that is no longer what was loaded, or None."""
    for path, was in snapshot.items():
        if _identity(path) != was:
            return path
    return None


def _text_stream(fd: int, encoding: str, errors: str, line_buffering: bool) -> io.TextIOWrapper:
    """sys.stdin/stdout/stderr over the client's descriptor, buffered as Python buffers its own
    (stdout line-buffered on a terminal, stderr always line-buffered)."""
    raw = io.FileIO(fd, "r" if fd == 0 else "w", closefd=False)
    buffered = io.BufferedReader(raw) if fd == 0 else io.BufferedWriter(raw)
    return io.TextIOWrapper(buffered, encoding=encoding, errors=errors, line_buffering=line_buffering)


def _close_all_but(keep: set[int]) -> None:
    """Close every descriptor of this process not in `keep` (what the server's objects held is
    closed through them first, so nothing left refers to a closed number)."""
    try:
        open_fds = [int(n) for n in os.listdir("/proc/self/fd")]
    except OSError:
        open_fds = list(range(3, os.sysconf("SC_OPEN_MAX") if hasattr(os, "sysconf") else 1024))
    for fd in open_fds:
        if fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass


def run_worker(conn: socket.socket, request: dict, fds: list[int]) -> None:
    """In the forked child, the server's own descriptors already closed: become the client's
    compile, report its exit code, never return."""
    code = 2
    try:
        os.setpgid(0, 0)
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD):
            signal.signal(sig, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        conn.sendall(f"pid {os.getpid()}\n".encode())
        for target, fd in zip((0, 1, 2), fds):
            os.dup2(fd, target)
            os.close(fd)
        _close_all_but({0, 1, 2, conn.fileno()})    # the daemon's log, anything an import opened
        enc = request.get("encoding") or "utf-8"
        sys.stdin = _text_stream(0, enc, "strict", False)
        sys.stdout = _text_stream(1, enc, "strict", os.isatty(1))
        sys.stderr = _text_stream(2, enc, "backslashreplace", True)
        os.environ.clear()
        os.environ.update(request["env"])
        os.umask(int(request["umask"]))
        try:
            os.chdir(request["cwd"])
        except OSError as e:
            print(f"shflx: error: cannot enter the working directory {request['cwd']}: {e.strerror or e}",
                  file=sys.stderr)
            code = 2
            return
        sys.argv = [request["argv0"], *request["argv"]]
        from .cli import main
        code = main(request["argv"])
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except KeyboardInterrupt:
        print("shflx: interrupted", file=sys.stderr)
        code = 130
    except BaseException as e:  # noqa: BLE001 - a worker must always answer its client
        try:
            print(f"shflx: internal error in the compile server: {type(e).__name__}: {e}", file=sys.stderr)
        except BaseException:  # noqa: BLE001
            pass
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:  # noqa: BLE001 - the code still goes back
                pass
        try:
            conn.sendall(f"exit {code}\n".encode())
        except OSError:
            pass
        os._exit(code & 0xFF)


class Server:
    """The loop: accepts, reads requests without waiting on any one connection, answers status
    and stop itself, forks a worker per compile, reports the death of a worker killed by a signal
    (a worker that exits reports its own code), and ends a worker whose client went away."""

    def __init__(self, dfd: int, name: str, path: str, lock_fd: int, idle_s: float,
                 snapshot: dict[str, tuple[int, int, int] | None]):
        self.dfd, self.name, self.path, self.lock_fd, self.idle_s = dfd, name, path, lock_fd, idle_s
        self.snapshot = snapshot
        self.workers: dict[int, socket.socket] = {}
        self.watched: set[int] = set()                     # workers whose connection the selector watches
        self.doomed: dict[int, float] = {}                 # worker -> when SIGKILL follows the SIGTERM
        self.pending: dict[socket.socket, tuple[float, RequestReader]] = {}
        self.served, self.started, self.last = 0, time.time(), time.monotonic()
        self.stopping = False
        self.listener: socket.socket | None = None

    def serve(self, listener: socket.socket) -> None:
        self.listener = listener
        listener.setblocking(False)
        self.sel = selectors.DefaultSelector()
        self.wake_r, self.wake_w = os.pipe()
        os.set_blocking(self.wake_r, False)
        os.set_blocking(self.wake_w, False)
        signal.set_wakeup_fd(self.wake_w)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        signal.signal(signal.SIGTERM, lambda *_: setattr(self, "stopping", True))
        self.sel.register(listener, selectors.EVENT_READ, ("listen", None))
        self.sel.register(self.wake_r, selectors.EVENT_READ, ("wake", None))
        while True:
            if self.stopping and self.listener is not None:
                self._close_door()
            if self.listener is None and not self.workers:
                break
            events = self.sel.select(self._timeout())
            for key, _ in events:
                kind, obj = key.data
                if kind == "wake":
                    try:
                        while os.read(self.wake_r, 512):
                            pass
                    except BlockingIOError:
                        pass
                elif kind == "worker":
                    self._client_gone(obj, key.fileobj)
                elif self.stopping:
                    continue                        # accept nothing more, read nothing more
                elif kind == "listen":
                    self._accept()
                elif kind == "request":
                    self._read(key.fileobj)
            self._reap()
            self._expire()

    def _timeout(self) -> float | None:
        times = [deadline for deadline, _ in self.pending.values()] + list(self.doomed.values())
        if self.listener is not None and not self.workers and not self.pending:
            times.append(self.last + self.idle_s)
        return max(0.0, min(times) - time.monotonic()) if times else None

    def _close_door(self) -> None:
        """Stop listening: the socket removed, the lock released (a new server may start), every
        connection not yet served closed (its client compiles in its own process)."""
        self.sel.unregister(self.listener)
        self.listener.close()
        self.listener = None
        try:
            os.unlink(self.name, dir_fd=self.dfd)
        except OSError:
            pass
        os.close(self.lock_fd)
        for conn in list(self.pending):
            self._drop(conn)

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:                      # none waiting (BlockingIOError), or gone
                return
            try:
                ours = peer_uid(conn) == os.getuid()
            except OSError:
                ours = False
            if not ours:
                conn.close()
                continue
            conn.setblocking(False)
            self.last = time.monotonic()
            self.pending[conn] = (self.last + REQUEST_S, RequestReader())
            self.sel.register(conn, selectors.EVENT_READ, ("request", None))

    def _drop(self, conn: socket.socket) -> None:
        _, reader = self.pending.pop(conn)
        self.sel.unregister(conn)
        reader.close()
        conn.close()

    def _expire(self) -> None:
        now = time.monotonic()
        for conn, (deadline, _) in list(self.pending.items()):
            if now >= deadline:                     # silent or trickling: it holds up nobody, and not for long
                self._drop(conn)
        for pid, deadline in list(self.doomed.items()):
            if now >= deadline:
                try:
                    os.killpg(pid, signal.SIGKILL)
                except OSError:
                    pass
                del self.doomed[pid]
        if self.listener is not None and not self.workers and not self.pending and now >= self.last + self.idle_s:
            self.stopping = True

    def _read(self, conn: socket.socket) -> None:
        _, reader = self.pending[conn]
        try:
            request = reader.feed(conn)
        except BlockingIOError:
            return
        except (ProtocolError, OSError):
            self._drop(conn)
            return
        if request is None:
            return
        fds, reader.fds = reader.fds, []
        self.pending.pop(conn)
        self.sel.unregister(conn)
        self.last = time.monotonic()
        try:
            self._answer(conn, request, fds)
        finally:
            for fd in fds:
                try:
                    os.close(fd)
                except OSError:
                    pass

    def _answer(self, conn: socket.socket, request: dict, fds: list[int]) -> None:
        keep = False
        try:
            conn.setblocking(True)
            conn.settimeout(REQUEST_S)
            op = request.get("op")
            if op == "status":
                conn.sendall((json.dumps({"pid": os.getpid(), "served": self.served, "started": self.started,
                                          "running": len(self.workers), "workers": sorted(self.workers),
                                          "socket": self.path, "code": PACKAGE}) + "\n").encode())
            elif op == "stop":
                self.stopping = True
                conn.sendall(b"stopping\n")
            elif op == "run" and len(fds) == 3:
                stale = changed_on_disk(self.snapshot)
                if stale is not None:
                    conn.sendall(f"stale {stale} changed on disk since the server started\n".encode())
                    self.stopping = True
                    return
                conn.settimeout(None)
                pid = os.fork()
                if pid == 0:
                    self._become_worker(conn)
                    run_worker(conn, request, fds)
                self.served += 1
                self.workers[pid] = conn
                self.sel.register(conn, selectors.EVENT_READ, ("worker", pid))
                self.watched.add(pid)
                keep = True
        except (KeyError, ValueError, TypeError, OSError):    # a request shflx did not send
            pass
        finally:
            if not keep:
                conn.close()

    def _become_worker(self, conn: socket.socket) -> None:
        """In the forked child: close the server's and other clients' objects (their plain
        descriptors, the wake pipe, lock, directory and pending requests' ones, go with every other
        descriptor in run_worker's _close_all_but)."""
        signal.set_wakeup_fd(-1)
        self.sel.close()
        if self.listener is not None:
            self.listener.close()
        for other in (*self.pending, *self.workers.values()):
            other.close()

    def _client_gone(self, pid: int, conn: socket.socket) -> None:
        """The connection of worker `pid` is readable: its client closed it (the client never
        writes after its request), so the compile has nobody to answer: end it."""
        try:
            data = conn.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        self.sel.unregister(conn)
        self.watched.discard(pid)
        if data:
            return
        try:
            os.killpg(pid, signal.SIGTERM)
        except OSError:
            return
        self.doomed[pid] = time.monotonic() + KILL_S

    def _reap(self) -> None:
        while self.workers:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            conn = self.workers.pop(pid, None)
            self.doomed.pop(pid, None)
            if conn is None:
                continue
            if pid in self.watched:
                self.sel.unregister(conn)
                self.watched.discard(pid)
            if os.WIFSIGNALED(status):
                try:
                    conn.sendall(f"signal {os.WTERMSIG(status)}\n".encode())
                except OSError:
                    pass
            conn.close()
            self.last = time.monotonic()


def main(argv: list[str]) -> int:
    path, idle_s = argv[0], float(argv[1])
    if len(argv) > 2 and argv[2] != PACKAGE:
        print(f"shflx: error: this server imported shflx from {PACKAGE}, not from the client's {argv[2]}",
              file=sys.stderr)
        return 1
    d, name = os.path.split(path)
    try:
        dfd = open_dir(d)
    except AddressError as e:
        print(f"shflx: error: {e}", file=sys.stderr)
        return 1
    lock_fd = open_lock(dfd, name)
    try:
        fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return 0                                   # another server holds this socket
    warm_up()
    snapshot = code_in_memory()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        os.unlink(name, dir_fd=dfd)                # a socket left by a server that was killed
    except FileNotFoundError:
        pass
    old = os.umask(0o177)
    try:
        listener.bind(through(dfd, name, path))
    finally:
        os.umask(old)
    listener.listen(64)
    me = os.getpid()
    server = Server(dfd, name, path, lock_fd, idle_s, snapshot)
    try:
        server.serve(listener)
    finally:
        if os.getpid() == me and server.listener is not None:
            server.listener.close()
            try:
                os.unlink(name, dir_fd=dfd)
            except OSError:
                pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
