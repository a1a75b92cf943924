"""Host-side cost of the runtime per launch, as ratios against anchors run in this script.

1. Kernarg packing: ``ArgLayout.pack`` for a vendor-style 16-byte-slot layout (8 pointers,
   16 scalars) against one ``struct.pack`` of the same bytes (the least any packer can do).
2. Full launch preparation (``Kernel.pack``: naming, validation, staging of device buffers,
   hidden arguments) on a no-op backend, against the same anchor.
3. Registry dispatch (heuristic over 64 config rows) against a dict lookup.

    python benchmarks/bench_runtime.py
"""

from __future__ import annotations

import struct
import timeit

import numpy as np

from gcnforge.runtime import load
from gcnforge.runtime.backend import LaunchResult
from gcnforge.runtime.buffers import DeviceBuffer
from gcnforge.runtime.kernargs import ArgLayout, LaunchDims
from gcnforge.runtime.registry import Entry, Registry

N = 20000


class NullBackend:
    name = "null"
    arch = "gfx942"

    def __init__(self):
        self._next = 0x1000

    def available(self):
        return True

    def alloc(self, n):
        self._next += (n + 255) // 256 * 256
        return self._next

    def free(self, a):
        pass

    def copy_to(self, a, d):
        pass

    def copy_from(self, a, n):
        return bytes(n)

    def launch(self, *a, **k):
        return LaunchResult("null")


class _CO:
    target = "gfx942"

    def __init__(self):
        self.kernels = {"k": type("KI", (), {"metadata": {}, "descriptor": None})()}


def per_call(stmt, number=N):
    return min(timeit.repeat(stmt, number=number, repeat=3)) / number


def main() -> None:
    specs = [f"p{i}:f32*" for i in range(8)] + [f"s{i}:u32" for i in range(16)]
    lay = ArgLayout.slots16(specs)
    vals = {f"p{i}": 0x10000 * (i + 1) for i in range(8)} | {f"s{i}": i for i in range(16)}
    dims = LaunchDims((64, 1, 1), (256, 1, 1))
    fmt = "<" + "Q8x" * 8 + "I12x" * 16
    args = [vals[f"p{i}"] for i in range(8)] + [vals[f"s{i}"] for i in range(16)]
    assert struct.pack(fmt, *args) == lay.pack(vals, dims)

    anchor = per_call(lambda: struct.pack(fmt, *args))
    pack = per_call(lambda: lay.pack(vals, dims))
    print(f"anchor struct.pack: {anchor * 1e6:.2f} us")
    print(f"ArgLayout.pack:     {pack * 1e6:.2f} us  ratio {pack / anchor:.1f}x")

    be = NullBackend()
    k = load(_CO()).kernel("k", layout=lay)
    bufs = {f"p{i}": DeviceBuffer(be, (16,), np.float32) for i in range(8)}
    kw = bufs | {f"s{i}": i for i in range(16)}

    def prep():
        data, bound, *_ = k.pack((), kw, be, (64, 1, 1), (256, 1, 1))
        bound.finish(True)

    full = per_call(prep, N // 4)
    print(f"Kernel.pack:        {full * 1e6:.2f} us  ratio {full / anchor:.1f}x")

    entries = [Entry(f"k{i}", __import__("pathlib").Path("x.co"), "gfx942", "bf16", 32 * (1 + i % 8),
                     32 * (1 + i // 8), 64, splitk=4 * (i % 2)) for i in range(64)]
    reg = Registry(entries)
    table = {(e.tile_m, e.tile_n): e for e in entries}
    dict_anchor = per_call(lambda: table.get((128, 128)))
    disp = per_call(lambda: reg.select("gfx942", "bf16", 1000, 3000, 4096), 500)
    print(f"registry.select:    {disp * 1e6:.1f} us  ratio {disp / dict_anchor:.0f}x a dict lookup")


if __name__ == "__main__":
    main()
