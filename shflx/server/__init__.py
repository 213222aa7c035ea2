"""The compile server: `shflx compile` and `shflx launch` without a Python start-up per file.

make, ninja and CMake start one compiler process per file, so every file pays Python's start-up,
shflx's imports and its warm-up again (issue 14: a fresh process was 2x clang + ld.lld where one
process compiling many files is 1.1x). With SHFLX_SERVER=on, the `shflx` command is a thin client
(client.py, standard library only): it hands its arguments, working directory, environment,
umask and its own stdin/stdout/stderr (passed as file descriptors) to a server for this code and
this environment (address.py), starting one when none runs. The server (shflx.daemon) has imported
everything once and forks a worker per compile; the worker runs `shflx.cli.main` exactly as the
command line would, writing to the client's own descriptors, and the client exits with its code.
Signals the client gets (Ctrl-C, make's SIGTERM) reach the worker and its clang; a client that
dies without a word (SIGKILL) takes its worker with it. Nothing another local user controls is
trusted: the socket directory is opened without following links and must be this user's, mode
700, and the client checks the server's user before it sends anything (address.py, client.py).
Where no server can be reached, started or trusted, or the server is stopping or out of date, the
client says so on one line and compiles in its own process: the server only ever costs speed,
never a result."""
