"""The back end's imports, run in a background thread while the clang front end runs in its own
process: numpy, llvmlite and the lowering passes cost a third of a second of a one-file compile,
which the front end's process hides on a second core (a compile costs the longer of the two,
not their sum).

Only imports run there, and errors are left to the main thread: a module that fails to import in
the background is imported again where it is used, and fails there as it always did. The thread
is joined before the caller goes on, so two threads never import the same modules at once."""
from __future__ import annotations

import importlib
import threading
from contextlib import contextmanager
from typing import Iterator


def _import_all(modules: tuple[str, ...]) -> None:
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception:          # noqa: BLE001 - reported by the main thread's own import
            pass


@contextmanager
def imports_in_background(modules: tuple[str, ...]) -> Iterator[None]:
    """Import `modules` in a thread for the duration of the block (which should wait on another
    process and import nothing that `modules` import), joined when the block ends."""
    thread = threading.Thread(target=_import_all, args=(modules,), name="shflx-prefetch", daemon=True)
    thread.start()
    try:
        yield
    finally:
        thread.join()
