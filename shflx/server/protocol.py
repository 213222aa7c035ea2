"""What client and server say over the socket: one framed request, answered by lines.

A request is a 4-byte big-endian length and that many bytes of a dict in marshal's format
(built in, so the client imports no json; both sides are the same Python: address.py keys the
server by it, and only this user's processes connect); a compile request carries
the client's stdin, stdout and stderr as file descriptors (SCM_RIGHTS) with its first bytes. The
server answers a compile with `pid N` (the worker, whose process group the client signals) and
then `exit N`, or `signal N` when the worker was killed; a status request with one JSON line. A
server that will not run a compile (it is stopping, or a file of its code changed on disk since
it started) says `stale WHY` or closes the connection before `pid`: the client then compiles in
its own process."""
from __future__ import annotations

import marshal
import os
import socket
import struct

MAX_REQUEST = 16 << 20
HEADER = struct.Struct(">I")


class ProtocolError(Exception):
    """The other side sent something that is not this protocol (or closed the connection)."""


def send_request(sock: socket.socket, request: dict, fds: list[int] | None = None) -> None:
    data = marshal.dumps(request)
    frame = HEADER.pack(len(data)) + data
    if fds:
        sent = socket.send_fds(sock, [frame], fds)
        frame = frame[sent:]
    if frame:                       # no empty send: it fails once the server has answered and closed
        sock.sendall(frame)


class RequestReader:
    """One request, read in pieces as they arrive: the server reads every connection this way
    (never waiting on one), so a silent or trickling client delays nobody else."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.fds: list[int] = []

    def feed(self, sock: socket.socket) -> dict | None:
        """Read what `sock` has: the request once it is whole, None while more is to come
        (ProtocolError for anything else; BlockingIOError from a non-blocking socket with nothing)."""
        chunk, fds, _, _ = socket.recv_fds(sock, 65536, 3)
        self.fds += fds
        if len(self.fds) > 3:
            raise ProtocolError("more than three descriptors")
        if not chunk:
            raise ProtocolError("the connection closed inside a request")
        self.data += chunk
        if len(self.data) < HEADER.size:
            return None
        (size,) = HEADER.unpack_from(self.data)
        if size > MAX_REQUEST:
            raise ProtocolError(f"a request of {size} bytes")
        if len(self.data) < HEADER.size + size:
            return None
        if len(self.data) != HEADER.size + size:
            raise ProtocolError("bytes after a request")
        try:
            request = marshal.loads(bytes(self.data[HEADER.size:]))
        except (ValueError, EOFError, TypeError):
            raise ProtocolError("a request that is not marshal data") from None
        if not isinstance(request, dict):
            raise ProtocolError("a request that is not a dict")
        return request

    def close(self) -> None:
        """Close the descriptors that came with an unfinished or refused request."""
        for fd in self.fds:
            os.close(fd)
        self.fds = []


def receive_request(sock: socket.socket) -> tuple[dict, list[int]]:
    """The request and the descriptors that came with it (the caller owns and closes them), read
    from a blocking socket."""
    reader = RequestReader()
    try:
        while (request := reader.feed(sock)) is None:
            pass
        return request, reader.fds
    except (ProtocolError, OSError):
        reader.close()
        raise


def peer_uid(sock: socket.socket) -> int:
    """The user of the process at the other end (SO_PEERCRED: pid, uid, gid as three ints; for a
    listening server, the user that created it)."""
    creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return struct.unpack("3i", creds)[1]


def read_line(stream) -> tuple[str, str] | None:
    """('pid'|'exit'|'signal'|'status', rest) from the server, or None at the end of the stream."""
    line = stream.readline()
    if not line:
        return None
    word, _, rest = line.decode().rstrip("\n").partition(" ")
    return word, rest
