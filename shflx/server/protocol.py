"""What client and server say over the socket: one framed request, answered by lines.

A request is a 4-byte big-endian length and that many bytes of a dict in marshal's format
(built in, so the client imports no json; both sides are the same Python: address.py keys the
server by it, and only this user's processes connect); a compile request carries
the client's stdin, stdout and stderr as file descriptors (SCM_RIGHTS) with its first bytes. The
server answers a compile with `pid N` (the worker, whose process group the client signals) and
then `exit N`, or `signal N` when the worker was killed; a status request with one JSON line."""
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
    sock.sendall(frame)


def receive_request(sock: socket.socket) -> tuple[dict, list[int]]:
    """The request and the descriptors that came with it (the caller owns and closes them)."""
    data, fds, _, _ = socket.recv_fds(sock, 65536, 3)
    try:
        while len(data) < HEADER.size:
            more = sock.recv(65536)
            if not more:
                raise ProtocolError("the connection closed inside a request")
            data += more
        (size,) = HEADER.unpack_from(data)
        if size > MAX_REQUEST:
            raise ProtocolError(f"a request of {size} bytes")
        while len(data) < HEADER.size + size:
            more = sock.recv(65536)
            if not more:
                raise ProtocolError("the connection closed inside a request")
            data += more
        if len(data) != HEADER.size + size:
            raise ProtocolError("bytes after a request")
        try:
            request = marshal.loads(data[HEADER.size:])
        except (ValueError, EOFError, TypeError):
            raise ProtocolError("a request that is not marshal data") from None
        if not isinstance(request, dict):
            raise ProtocolError("a request that is not a dict")
        return request, fds
    except (ProtocolError, OSError):
        for fd in fds:
            os.close(fd)
        raise


def read_line(stream) -> tuple[str, str] | None:
    """('pid'|'exit'|'signal'|'status', rest) from the server, or None at the end of the stream."""
    line = stream.readline()
    if not line:
        return None
    word, _, rest = line.decode().rstrip("\n").partition(" ")
    return word, rest
