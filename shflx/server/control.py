"""`shflx server start|status|stop`: the servers of this user, seen from the command line."""
from __future__ import annotations

import json
import os

from ..errors import ShflxError
from .address import AddressError, runtime_dir, socket_path
from .client import Unavailable, connect, start_server
from .protocol import send_request


def _ask(path, op: str) -> str | None:
    """The server's one-line answer to `op`, or None when nothing (of this user) listens at `path`."""
    try:
        sock = connect(path)
    except Unavailable:
        return None
    if sock is None:
        return None
    with sock:
        sock.settimeout(10)
        try:
            send_request(sock, {"op": op})
            return sock.makefile("rb").readline().decode().strip() or None
        except OSError:
            return None


def _sockets() -> list[str]:
    try:
        d = runtime_dir()
        return sorted(os.path.join(d, n) for n in os.listdir(d) if n.endswith(".sock"))
    except (AddressError, OSError) as e:
        raise ShflxError(str(e)) from None


def start() -> int:
    """The server for this environment, started unless it runs; prints its pid and socket."""
    try:
        path = socket_path(dict(os.environ))
        (connect(path) or start_server(path)).close()
    except (AddressError, Unavailable) as e:
        raise ShflxError(str(e)) from None
    said = json.loads(_ask(path, "status") or "{}")
    print(f"shflx compile server: pid {said.get('pid')}, socket {path}")
    return 0


def status() -> int:
    """One line per running server of this user (pid, requests served, compiles running, age)."""
    import time
    rows = []
    for path in _sockets():
        said = _ask(path, "status")
        if said:
            s = json.loads(said)
            rows.append(f"pid {s['pid']}: {s['served']} compile(s) served, {s['running']} running, "
                        f"up {time.time() - s['started']:.0f} s, socket {path}")
    print("\n".join(rows) if rows else "no shflx compile server is running")
    return 0


def stop(every: bool = False) -> int:
    """Ask the server this environment's clients use (every server in this user's socket
    directory with `every`: other projects' and other environments' too) to stop; it stops
    listening at once and exits when the compiles it runs have finished."""
    if every:
        paths = _sockets()
    else:
        try:
            paths = [socket_path(dict(os.environ))]
        except AddressError as e:
            raise ShflxError(str(e)) from None
    stopped = sum(_ask(path, "stop") is not None for path in paths)
    print(f"stopped {stopped} shflx compile server(s)")
    return 0
