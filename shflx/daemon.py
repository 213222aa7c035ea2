"""The server: imports shflx once, then forks a worker per request that runs `shflx.cli.main`.

  python -m shflx.daemon SOCKET IDLE_SECONDS      (started by shflx.server.client, detached)

One server per socket: it holds an exclusive lock on SOCKET.lock for its whole life, so of two
clients that start one at the same moment, one server serves and the other exits. The socket is
bound only after the imports, so a client that connects is served at once. A worker is a fork of
the warm server with the client's working directory, environment, umask, argv and descriptors; it
runs in its own process group (the client forwards Ctrl-C and SIGTERM there, reaching clang as a
terminal would) and never returns into the server's loop. The server exits after IDLE_SECONDS
without a request or a running worker, on SIGTERM, or on a `stop` request."""
from __future__ import annotations

import fcntl
import importlib
import io
import json
import os
import select
import signal
import socket
import struct
import sys
import time
from pathlib import Path

from .server.protocol import ProtocolError, receive_request

# what `shflx compile` and `shflx launch` import, for AMD and NVIDIA targets
WARM = ("shflx.cli", "shflx.driver.amd", "shflx.driver.nvidia", "shflx.driver.launch", "shflx.driver.flags",
        "shflx.driver.report", "shflx.frontend.clang", "numpy")


def warm_up() -> None:
    """Import what a compile imports; computes nothing that depends on the environment. numpy's
    BLAS starts no thread pool (shflx does no linear algebra): the server forks with one thread."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    from .driver.amd import BACK_END
    for name in (*WARM, *BACK_END):
        importlib.import_module(name)


def _text_stream(fd: int, encoding: str, errors: str, line_buffering: bool) -> io.TextIOWrapper:
    """sys.stdin/stdout/stderr over the client's descriptor, buffered as Python buffers its own
    (stdout line-buffered on a terminal, stderr always line-buffered)."""
    raw = io.FileIO(fd, "r" if fd == 0 else "w", closefd=False)
    buffered = io.BufferedReader(raw) if fd == 0 else io.BufferedWriter(raw)
    return io.TextIOWrapper(buffered, encoding=encoding, errors=errors, line_buffering=line_buffering)


def run_worker(conn: socket.socket, request: dict, fds: list[int], server_fds: list[int]) -> None:
    """In the forked child: become the client's compile, report its exit code, never return."""
    code = 2
    try:
        signal.set_wakeup_fd(-1)
        for fd in server_fds:                       # the listening socket and the wake-up pipe
            os.close(fd)
        os.setpgid(0, 0)
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD):
            signal.signal(sig, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        conn.sendall(f"pid {os.getpid()}\n".encode())
        for target, fd in zip((0, 1, 2), fds):
            os.dup2(fd, target)
            os.close(fd)
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
    """The accept loop: answers status and stop itself, forks a worker per compile, reports the
    death of a worker killed by a signal (a worker that exits reports its own code)."""

    def __init__(self, path: Path, idle_s: float):
        self.path, self.idle_s = path, idle_s
        self.workers: dict[int, socket.socket] = {}
        self.served, self.started, self.last = 0, time.time(), time.time()
        self.stopping = False

    def serve(self, listener: socket.socket) -> None:
        wake_r, wake_w = os.pipe()
        self.server_fds = [listener.fileno(), wake_r, wake_w]
        os.set_blocking(wake_w, False)
        signal.set_wakeup_fd(wake_w)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        signal.signal(signal.SIGTERM, lambda *_: setattr(self, "stopping", True))
        while not self.stopping:
            timeout = None if self.workers else max(0.0, self.last + self.idle_s - time.time())
            if timeout == 0.0:
                break
            ready, _, _ = select.select([listener, wake_r], [], [], timeout)
            if wake_r in ready:
                os.read(wake_r, 512)
            self._reap()
            if listener in ready:
                conn, _ = listener.accept()
                self.last = time.time()
                self._answer(conn)
        for conn in self.workers.values():      # workers still running finish and answer themselves
            conn.close()

    def _answer(self, conn: socket.socket) -> None:
        fds: list[int] = []
        try:
            if peer_uid(conn) != os.getuid():
                return
            conn.settimeout(10)
            request, fds = receive_request(conn)
            op = request.get("op")
            if op == "status":
                conn.sendall((json.dumps({"pid": os.getpid(), "served": self.served, "started": self.started,
                                          "running": len(self.workers), "workers": sorted(self.workers), "socket": str(self.path)}) + "\n").encode())
            elif op == "stop":
                self.stopping = True
                conn.sendall(b"stopping\n")
            elif op == "run" and len(fds) == 3:
                conn.settimeout(None)
                pid = os.fork()
                if pid == 0:
                    run_worker(conn, request, fds, self.server_fds)
                self.served += 1
                self.workers[pid] = conn
                conn = None
        except (ProtocolError, KeyError, ValueError, TypeError, OSError):    # a request shflx did not send
            pass
        finally:
            for fd in fds:
                os.close(fd)
            if conn is not None:
                conn.close()

    def _reap(self) -> None:
        while self.workers:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            conn = self.workers.pop(pid, None)
            if conn is None:
                continue
            if os.WIFSIGNALED(status):
                try:
                    conn.sendall(f"signal {os.WTERMSIG(status)}\n".encode())
                except OSError:
                    pass
            conn.close()
            self.last = time.time()


def peer_uid(conn: socket.socket) -> int:
    """The connecting process's user (SO_PEERCRED: pid, uid, gid as three ints)."""
    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return struct.unpack("3i", creds)[1]


def main(argv: list[str]) -> int:
    path, idle_s = Path(argv[0]), float(argv[1])
    lock = open(f"{path}.lock", "a")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return 0                                   # another server holds this socket
    warm_up()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    path.unlink(missing_ok=True)                  # a socket left by a server that was killed
    old = os.umask(0o177)
    try:
        listener.bind(str(path))
    finally:
        os.umask(old)
    listener.listen(64)
    me = os.getpid()
    try:
        Server(path, idle_s).serve(listener)
    finally:
        if os.getpid() == me:
            listener.close()
            path.unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
