"""The `shflx` console script: through the compile server when SHFLX_SERVER=on, else shflx.cli.

make and CMake start one `shflx compile` per file; with SHFLX_SERVER=on, compile and launch go to
a warm server (shflx.server) and this process imports nothing else. When the server cannot serve,
one line on stderr says why and the command runs here as it would have without it: the server
costs speed, never a result."""
from __future__ import annotations

import os
import sys


def main(argv: list[str] | None = None) -> int:
    """`shflx ARGS`: compile and launch through the server when SHFLX_SERVER=on, else shflx.cli."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] in (["compile"], ["launch"]) and "SHFLX_SERVER" in os.environ:   # else no client import
        from .server.client import Unavailable, idle_seconds, server_wanted, served
        try:
            wanted = server_wanted() and idle_seconds() > 0
        except ValueError as e:                  # a bad SHFLX_SERVER or SHFLX_SERVER_IDLE
            print(f"shflx: error: {e}", file=sys.stderr)
            return 2
        if wanted:
            try:
                return served(argv)
            except Unavailable as e:
                print(f"shflx: warning: {e}; compiling without the server", file=sys.stderr)
            except KeyboardInterrupt:            # Ctrl-C while the server was starting
                print("shflx: interrupted", file=sys.stderr)
                return 130
    from .cli import main as cli_main
    return cli_main(argv)
