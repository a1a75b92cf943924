"""Scalar memory (SMEM): s_load/s_buffer_load/s_store, scalar atomics, and the modeled
clocks s_memtime/s_memrealtime. MI300 ISA guide, "Scalar Memory Operations": the
offset is a 21-bit signed immediate and/or an SGPR, the two low address bits are ignored,
s_buffer_* loads are bounds-checked against the resource's num_records.
"""

from __future__ import annotations

import numpy as np

from gcnforge.emulator.core import registrar

U64 = np.uint64
HANDLERS: dict = {}
op = registrar(HANDLERS)


# ---- SMEM ------------------------------------------------------------------------------

def _smem_addr(x, ins, w):
    base = x.sread(ins.ops[1], w, 2)
    off = np.zeros(len(w), dtype=U64)
    if len(ins.ops) > 2:
        o = ins.ops[2]
        if o.kind == "imm":
            v = o.value & 0x1FFFFF
            v = v - 0x200000 if v & 0x100000 else v  # 21-bit signed offset (gfx9)
            off = off + U64(v & 0xFFFFFFFFFFFFFFFF)
        else:
            off = off + x.sread(o, w).astype(U64)
    if "offset" in ins.mods:
        off = off + U64(ins.mods["offset"] & 0xFFFFFFFFFFFFFFFF)
    return base, off


@op("s_load_dword", "s_load_dwordx2", "s_load_dwordx4", "s_load_dwordx8", "s_load_dwordx16",
    "s_scratch_load_dword", "s_scratch_load_dwordx2", "s_scratch_load_dwordx4")
def s_load(x, ins, w):
    base, off = _smem_addr(x, ins, w)
    addr = (base + off) & ~U64(3)  # SMEM ignores the two low address bits
    n = ins.ops[0].dwords
    data = x.global_read(addr, 4 * n, ins, w, scalar=True)  # (k, 4n) bytes
    _put_sdata(x, ins, w, np.ascontiguousarray(data).view(np.uint32).reshape(len(w), n))


def _put_sdata(x, ins, w, vals):
    n = vals.shape[1]
    if n == 1:
        x.swrite(ins.ops[0], w, vals[:, 0], 1)
    elif n == 2:
        x.swrite(ins.ops[0], w, np.ascontiguousarray(vals).view(U64)[:, 0], 2)
    else:
        x.swrite(ins.ops[0], w, vals, n)


@op("s_buffer_load_dword", "s_buffer_load_dwordx2", "s_buffer_load_dwordx4", "s_buffer_load_dwordx8",
    "s_buffer_load_dwordx16")
def s_buffer_load(x, ins, w):
    from gcnforge.emulator.ops_mem import _Rsrc

    # the V# fields as the vector buffer ops read them (one decoder of the V# layout); the scalar
    # path adds base + offset in 64 bits, no 32-bit offset wrap (LLVM PR 68302)
    r = _Rsrc(x, w, ins.ops[1], fmt=True)
    base, num = r.base, r.num
    _, off = _smem_addr(x, ins, w)
    n = ins.ops[0].dwords
    off = off & ~U64(3)
    vals = np.zeros((len(w), n), dtype=np.uint32)
    for d in range(n):
        inb = off + U64(4 * d + 4) <= num
        got = x.global_read(base + off + U64(4 * d), 4, ins, w, scalar=True, valid=inb)
        vals[:, d] = np.where(inb, got.view(np.uint32)[:, 0], 0)
    _put_sdata(x, ins, w, vals)


@op("s_store_dword", "s_store_dwordx2", "s_store_dwordx4")
def s_store(x, ins, w):
    base, off = _smem_addr(x, ins, w)
    addr = (base + off) & ~U64(3)
    n = ins.ops[0].dwords
    vals = x.S[w, ins.ops[0].index : ins.ops[0].index + n].copy()
    x.global_write(addr, vals.view(np.uint8).reshape(len(w), 4 * n), np.ones(len(w), bool), ins, w, scalar=True)


@op("s_memtime")
def s_memtime(x, ins, w):
    x.swrite(ins.ops[0], w, x.clock(w), 2)


@op("s_memrealtime")
def s_memrealtime(x, ins, w):
    x.swrite(ins.ops[0], w, x.clock(w) // U64(x.realtime_divider), 2)


# ---- scalar atomics (SMEM): one per wave, old value returned with glc ------------------------------
def s_atomic(x, ins, w):
    from gcnforge.emulator.ops_mem import atomic_fn, atomic_operation, record_of

    fn, dt, n = atomic_fn(record_of(ins))
    cmpswap = atomic_operation(ins.base) == "cmpswap"
    data = ins.ops[0]
    base, off = _smem_addr(x, ins, w)
    if ins.base.startswith("s_buffer_"):
        r = x.S[w, ins.ops[1].index : ins.ops[1].index + 4].astype(U64)
        base = r[:, 0] | ((r[:, 1] & U64(0xFFFF)) << U64(32))
    addr = base + off
    nd = n // 4
    for k, wi in enumerate(w):
        one = np.array([wi])
        a = addr[k : k + 1]
        old = np.ascontiguousarray(x.global_read(a, n, ins, one, scalar=True)).view(dt)
        src = x.S[wi, data.index : data.index + nd].copy().view(dt)
        cmpv = x.S[wi, data.index + nd : data.index + 2 * nd].copy().view(dt) if cmpswap else src
        new = fn(old, src, cmpv).astype(dt)
        x.global_write(a, np.ascontiguousarray(new).view(np.uint8).reshape(1, n), np.ones(1, bool), ins, one)
        if "glc" in ins.mods or "sc0" in ins.mods:
            x.S[wi, data.index : data.index + nd] = np.ascontiguousarray(old).view(np.uint32)


@op("s_buffer_store_dword", "s_buffer_store_dwordx2", "s_buffer_store_dwordx4")
def s_buffer_store(x, ins, w):
    r = x.S[w, ins.ops[1].index : ins.ops[1].index + 4].astype(U64)
    base = r[:, 0] | ((r[:, 1] & U64(0xFFFF)) << U64(32))
    _, off = _smem_addr(x, ins, w)
    n = ins.ops[0].dwords
    vals = x.S[w, ins.ops[0].index : ins.ops[0].index + n].copy()
    inb = (off & ~U64(3)) + U64(4 * n) <= r[:, 2]
    x.global_write((base + off) & ~U64(3), vals.view(np.uint8).reshape(len(w), 4 * n), inb, ins, w, scalar=True)


def lookup_scalar(base: str):
    if base.startswith(("s_atomic_", "s_buffer_atomic_")):
        return s_atomic
    return None
