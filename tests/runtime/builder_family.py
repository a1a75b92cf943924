"""A kernel family written with gcnforge's own authoring API: y[i] = a * x[i] + y[i], each
work-item handling U consecutive elements (U = 1, 2, 4). Each variant is compiled by the
gcnforge pipeline to assembly text; the tuning engine assembles it with the built-in
assembler. Shapes are (n, 1, 1) with n a multiple of 64 * U. Variants ``saxpy_uU_xS`` launch the
same kernel S times, each over a 1/S slice (as an operation split into passes would): slower by
S - 1 launch overheads, and their roofline bound (``work``) says so before they run."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

from gcnforge.runtime.tune_search import Work
from gcnforge.runtime.tuning import KernelFamily, Variant

TEMPLATE = '''
from gcnforge.builder import Arg, Module

U = {U}


def build():
    m = Module("saxpy_u{U}")
    args = [Arg.ptr("x", access="read_only"), Arg.ptr("y"), Arg.value("a")]
    with m.kernel("saxpy", args, workgroup_size=(64, 1, 1)) as k:
        x, y, a = k.args()
        first = k.s_lshl_b32(k.block_id("x"), 6)
        gid = k.v_add_u32(first, k.thread_id("x"))
        off = k.v_lshlrev_b32((4 * U).bit_length() - 1, gid)  # byte offset of element gid * U
        loads = []
        for j in range(U):
            xv, tx = k.global_load_dword(off, x, offset=4 * j)
            yv, ty = k.global_load_dword(off, y, offset=4 * j)
            loads.append((xv, yv, tx, ty))
        for j, (xv, yv, tx, ty) in enumerate(loads):
            k.wait(tx, ty)
            k.global_store_dword(off, k.v_fma_f32(a, xv, yv), y, offset=4 * j)
        k.s_endpgm()
    m.verify()
    return m
'''


def compile_to_asm(u: int) -> str:
    from gcnforge.cli.cmd_compile import DEFAULT, compile_file

    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / f"saxpy_u{u}.py"
        p.write_text(TEMPLATE.format(U=u))
        return compile_file(p, DEFAULT, None, "builtin", True)


class SaxpyFamily(KernelFamily):
    name = "saxpy_builder"
    dtype = "f32"
    rtol = 0.0
    atol = 0.0

    def __init__(self, unrolls=(1, 2, 4), splits=(1,)):
        self.unrolls, self.splits = unrolls, splits

    def variants(self):
        return [Variant(f"saxpy_u{u}" + (f"_x{s}" if s > 1 else ""), "saxpy",
                        {"tile_m": 64 * u, "tile_n": 1, "tile_k": 1, "unroll": u, "block": 64, "split": s})
                for s in self.splits for u in self.unrolls]

    def work(self, v, shape):
        n = shape[0]
        return Work(flops=2 * n, bytes=12 * n, launches=v.params["split"])  # read x, y; write y (f32)

    def build(self, v):
        return compile_to_asm(v.params["unroll"])  # assembly text

    def supports(self, v, shape):
        return shape[0] % (64 * v.params["unroll"] * v.params["split"]) == 0

    def make_inputs(self, shape, rng):
        n = shape[0]
        return {"x": rng.standard_normal(n).astype(np.float32), "y": rng.standard_normal(n).astype(np.float32)}

    def reference(self, shape, inputs):
        return 2 * inputs["x"] + inputs["y"]  # exact: 2*x is exact, so fma == mul + add

    def call(self, kernel, v, shape, inputs, device):
        n, u, s = shape[0], v.params["unroll"], v.params["split"]
        part = n // s
        for i in range(s):  # the same kernel over each slice: slices of the caller's arrays, written in place
            kernel(inputs["x"][i * part:(i + 1) * part], inputs["y"][i * part:(i + 1) * part], np.float32(2.0),
                   grid=(part // (64 * u), 1, 1), block=(64, 1, 1), device=device)
        return inputs["y"]


family = SaxpyFamily()
