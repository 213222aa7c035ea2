"""cooperative_groups::grid_group::sync() (a grid-wide barrier in the code object, shflx's CUDA
layer) on each AMD device (the GPU, else the emulator of shared/amdemu), against numpy.

Each round every thread writes a value that depends on the previous round's reads, syncs the grid,
reads the value another block's thread wrote, and syncs again before the next write: a barrier
that let any thread through early, or that did not reset for the next round, changes the result.

On a GPU a grid of 4 blocks of 64 is resident at once, as a cooperative launch guarantees; the
emulator makes the next workgroup resident beside one that spins (shared/amdemu/README.md, up to
64), and its cache instructions are no-ops, so the same cases run there. tests/test_cuda_layer.py
also checks the barrier's atomics and fences in the IR.

  pytest hw_tests/amd/test_cuda_grid_sync_hw.py"""
from __future__ import annotations

import numpy as np
import pytest

from hw_devices import assert_bit_exact, code_object, device_params, require

SOURCE = r"""
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void rounds(const int *in, int *scratch, int *out, int n_rounds) {
  cg::grid_group grid = cg::this_grid();
  unsigned long long r = grid.thread_rank(), n = grid.size();
  int v = in[r];
  for (int k = 0; k < n_rounds; ++k) {
    scratch[r] = v * 3 + k;
    grid.sync();
    v = scratch[(r + blockDim.x + 1) % n] ^ v;     // another block's thread, where there is one
    cg::sync(grid);
  }
  out[r] = v;
}
"""
BLOCK = 64
ROUNDS = 5


def _want(v: np.ndarray, rounds: int) -> np.ndarray:
    v = v.astype(np.int64)
    n = v.size
    for k in range(rounds):
        scratch = v * 3 + k
        v = scratch[(np.arange(n) + BLOCK + 1) % n] ^ v
    return v.astype(np.int32)


def _cases(device):
    yield "1-block", 1, ()
    yield "4-blocks", 4, ()


@pytest.mark.parametrize("device,blocks", device_params(_cases))
def test_grid_sync_orders_every_block(device, blocks, tmp_path_factory):
    require(device)
    hsaco = code_object(SOURCE, "grid_sync.cu", device.arch, str(tmp_path_factory.getbasetemp()))
    n = blocks * BLOCK
    v = np.random.default_rng(blocks).integers(-1000, 1000, n).astype(np.int32)
    got = device.run_kernel(hsaco, "rounds", [v, np.zeros(n, np.int32)], n, np.int32, block=(BLOCK, 1, 1),
                            grid=(blocks, 1, 1), scalars=[ROUNDS])
    assert_bit_exact(np.asarray(got), _want(v, ROUNDS), f"grid.sync() x{2 * ROUNDS}, {blocks} block(s) ({device.arch})")
