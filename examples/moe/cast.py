"""f32 -> bf16 (round to nearest even) on the device: the fused MoE layer's last step (stage 2
sums the slots' terms atomically in f32; aiter's layer returns bf16).

``x[n]`` f32 -> ``y[n]`` bf16 bit patterns, n a run-time argument (even). Each work-item
converts two values into one dword: ``moe_gemm.bf16_round`` (finite inputs) leaves each bf16
in its high half; ``v_perm_b32`` takes the two high halves. Lanes past n are clamped by the
buffers' sizes (loads read 0, stores are dropped). grid = ceil(n / 512), block = 256.
"""

from __future__ import annotations

import numpy as np

from gcnforge.builder import Arg, Module
from gcnforge.lib import buffer_load, buffer_store, make_buffer_rsrc

from moe.moe_gemm import bf16_round

THREADS = 256
PER_ITEM = 2  # values per work-item: one dword of bf16 out
# v_perm_b32 selector: bytes 3,2 of src0 (the second value's bf16) above bytes 3,2 of src1
# (the first's): MI300 ISA guide, V_PERM_B32 (byte select 0-3 = src1, 4-7 = src0)
HIGH_HALVES = 0x07060302


def kernel_name() -> str:
    return "moe_cast_f32_bf16"


def grid(n: int) -> tuple[int, int, int]:
    return (-(-n // (THREADS * PER_ITEM)), 1, 1)


def build(name: str | None = None) -> Module:
    name = name or kernel_name()
    m = Module(name)
    args = [Arg.ptr("x", np.float32, access="read_only"), Arg.ptr("y", np.uint16, access="write_only"),
            Arg.value("n", np.int32)]
    with m.kernel(name, args, workgroup_size=(THREADS, 1, 1)) as k:
        x, y, n = k.args()
        rx = make_buffer_rsrc(k, x, k.s_lshl_b32(n, 2))
        ry = make_buffer_rsrc(k, y, k.s_lshl_b32(n, 1))
        item = k.v_add_u32(k.s_mul_i32(k.block_id("x"), k.s_mov_b32(THREADS)), k.thread_id("x"))
        v, t = buffer_load(k, rx, k.v_lshlrev_b32(3, item), dwords=2)
        k.wait(t)
        lo, hi = v.split()
        word = k.v_perm_b32(bf16_round(k, hi), bf16_round(k, lo), k.s_mov_b32(HIGH_HALVES))
        buffer_store(k, word, ry, k.v_lshlrev_b32(2, item))
        k.s_endpgm()
    m.verify()
    return m
