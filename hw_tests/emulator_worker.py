"""Emulator launches in a forked worker process, for the hardware checks and the benchmarks that
run on amdemu. amdemu can take its process down: its DS loads read LDS at the address of every
lane, active or not, so an inactive lane whose address register holds a stale value outside the
LDS allocation is a segmentation fault (tinygrad's emu.py, _compile_mem_op: the load is masked only
when written back). In a worker, a crash is one case's EmulatorCrash, not the end of the test run
or benchmark; the worker keeps the emulator's compiled instructions between launches (a new one
starts cold, ~3-5 s)."""
from __future__ import annotations


class EmulatorCrash(Exception):
    """The emulator's process died during a launch."""


class EmulatorWorker:
    """One forked worker process, started again after a crash."""

    def __init__(self) -> None:
        self.pool = None

    def call(self, what: str, fn, *args):
        """`fn(*args)` in the worker (`fn` and the arguments picklable; the fork carries the rest);
        EmulatorCrash naming `what` if the process dies."""
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor
        from concurrent.futures.process import BrokenProcessPool
        if self.pool is None:
            self.pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork"))
        try:
            return self.pool.submit(fn, *args).result()
        except BrokenProcessPool:
            self.pool = None
            raise EmulatorCrash(f"the emulator's process died running {what} (amdemu crashed: see "
                                "hw_tests/emulator_worker.py)") from None
