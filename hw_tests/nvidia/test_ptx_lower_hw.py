"""`shflx lower --arch sm_90 --ptx` on the GPU: every emitted PTX shuffle gives, on every lane, what
the CUDA model says (skips cleanly without an NVIDIA GPU).

  PYTHONPATH=. python hw_tests/nvidia/test_ptx_lower_hw.py [--json OUT]

Each pattern's PTX `.func` is wrapped in a kernel that reads in[tid], calls it and writes out[tid];
the output of every lane of 64 warps is compared with in[warp*32 + src[lane]]."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_shfl_sync_hw import NoGPU, gpu_device, open_device  # noqa: E402

from shflx.nvidia.ptx import ptx_for_pattern  # noqa: E402
from shflx.pattern import parse_pattern  # noqa: E402

NWARPS = 64
KERNEL = """
.visible .entry shflx_test(.param .u64 in_ptr, .param .u64 out_ptr, .param .u32 nwarps)
{
  .reg .b32 %t<6>;
  .reg .b64 %a<5>;
  .reg .pred %p;
  mov.u32 %t0, %ctaid.x;
  mov.u32 %t1, %ntid.x;
  mov.u32 %t2, %tid.x;
  mad.lo.u32 %t3, %t0, %t1, %t2;
  ld.param.u32 %t4, [nwarps];
  shl.b32 %t4, %t4, 5;
  setp.ge.u32 %p, %t3, %t4;
  @%p bra DONE;
  ld.param.u64 %a0, [in_ptr];
  ld.param.u64 %a1, [out_ptr];
  mul.wide.u32 %a2, %t3, 4;
  add.s64 %a3, %a0, %a2;
  ld.global.u32 %t5, [%a3];
  {
    .param .b32 arg;
    .param .b32 ret;
    st.param.b32 [arg], %t5;
    call.uni (ret), shflx_shuffle, (arg);
    ld.param.b32 %t5, [ret];
  }
  add.s64 %a4, %a1, %a2;
  st.global.u32 [%a4], %t5;
DONE:
  ret;
}
"""


def patterns() -> list[str]:
    out = []
    for kind in ("idx", "up", "down", "xor"):
        for arg in (0, 1, 3, 5, 16, 31, 33, -1):
            for width in (4, 8, 16, 32):
                out.append(f"{kind} {arg} width {width}")
    rot = lambda k: "map " + ",".join(str((i + k) % 32) for i in range(32))  # noqa: E731
    out += [rot(1), rot(7), "map " + ",".join(str((i * 7) % 32) for i in range(32)),
            "map " + ",".join(str((i * 13 + 5) % 32) for i in range(32)),
            "map " + ",".join(str(31 - i) for i in range(32)),
            "shfl.up b=1 c=0x1803", "shfl.down b=2 c=20", "shfl.bfly b=16 c=0x181f"]
    return out


def check(dev) -> dict:
    rng = np.random.default_rng(5)
    checked, bad = 0, []
    for text in patterns():
        ptx = ptx_for_pattern(text, "sm_90") + KERNEL
        fn = dev.function(dev.load(ptx), "shflx_test")
        x = rng.integers(0, 2**32, NWARPS * 32, dtype=np.uint64).astype(np.uint32)
        (out,) = dev.launch(fn, NWARPS, [x], 1)
        src = parse_pattern(text).warp_map().src
        want = x.reshape(NWARPS, 32)[:, src].reshape(-1)
        if not np.array_equal(out, want):
            lanes = np.flatnonzero(out != want)[:4].tolist()
            bad.append({"pattern": text, "lanes": lanes})
        checked += 1
    return {"patterns": checked, "lanes": checked * NWARPS * 32, "mismatches": len(bad), "bad": bad}


def test_emitted_ptx_matches_the_model():
    with gpu_device() as dev:
        res = check(dev)
    assert res["mismatches"] == 0, res["bad"]


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    ns = ap.parse_args()
    try:
        dev = open_device()
    except NoGPU as e:
        print(f"skip: {e}")
        raise SystemExit(0)
    res = check(dev)
    res["device"] = dev.info()
    dev.close()
    print(json.dumps({k: v for k, v in res.items() if k != "bad"}), res["bad"][:3])
    if ns.json:
        Path(ns.json).write_text(json.dumps(res, indent=1) + "\n")
    raise SystemExit(0 if res["mismatches"] == 0 else 1)
