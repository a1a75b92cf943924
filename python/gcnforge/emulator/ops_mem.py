"""Vector memory: DS (LDS), FLAT / GLOBAL / SCRATCH, and MUBUF buffer instructions.

Address calculations follow the MI300 ISA guide chapters "Flat Memory Instructions",
"Vector Memory Buffer Instructions" and "Data Share Operations". Atomics whose lanes hit
the same address are applied one lane after another (wave order, then lane order), which
is one of the orders hardware may produce.
"""

from __future__ import annotations

import numpy as np

from gcnforge.asm.families import swizzle
from gcnforge.emulator import buffer_format as bf
from gcnforge.emulator.core import WAVE, Unsupported, WaveFault
from gcnforge.emulator.program import M0, XOp
from gcnforge.isa import buffer_rsrc

U64 = np.uint64
HANDLERS: dict = {}

_SIZES = {"ubyte": 1, "sbyte": 1, "byte": 1, "ushort": 2, "sshort": 2, "short": 2, "dword": 4,
          "dwordx2": 8, "dwordx3": 12, "dwordx4": 16, "b8": 1, "u8": 1, "i8": 1, "b16": 2, "u16": 2,
          "i16": 2, "b32": 4, "b64": 8, "b96": 12, "b128": 16}


def _size_kind(base: str):
    """-> (bytes, signed, d16 ('', 'lo', 'hi'))"""
    d16 = ""
    b = base
    if b.endswith("_d16_hi"):
        d16, b = "hi", b[: -len("_d16_hi")]
    elif b.endswith("_d16"):
        d16, b = "lo", b[: -len("_d16")]
    last = b.split("_")[-1]
    n = _SIZES.get(last)
    if n is None:
        raise Unsupported(f"cannot size memory instruction {base}")
    return n, last in ("sbyte", "sshort", "i8", "i16"), d16


def _bytes_to_dwords(raw: np.ndarray, n: int, signed: bool) -> np.ndarray:
    """(k,64,n) bytes -> (k, dwords, 64) uint32, zero/sign-extending sub-dword values."""
    k = raw.shape[0]
    if n >= 4:
        d = np.ascontiguousarray(raw).view(np.uint32).reshape(k, WAVE, n // 4)
        return np.transpose(d, (0, 2, 1))
    if n == 1:
        v = raw[:, :, 0].astype(np.int8 if signed else np.uint8)
    else:
        v = np.ascontiguousarray(raw).view(np.int16 if signed else np.uint16).reshape(k, WAVE)
    return v.astype(np.int64).astype(np.uint32)[:, None, :]


def _dwords_to_bytes(vals: np.ndarray, n: int) -> np.ndarray:
    """(k, dwords, 64) uint32 -> (k,64,n) bytes (low bytes for sub-dword stores)."""
    k = vals.shape[0]
    b = np.ascontiguousarray(np.transpose(vals, (0, 2, 1))).view(np.uint8).reshape(k, WAVE, -1)
    return b[:, :, :n]


def _put_load(x, ins, w, dst: XOp, raw, n, signed, d16, mask):
    if d16:
        v = _bytes_to_dwords(raw, n, signed)[:, 0, :] & np.uint32(0xFFFF)
        old = x.vread(dst, w, 1)
        r = (old & np.uint32(0xFFFF0000)) | v if d16 == "lo" else (old & np.uint32(0xFFFF)) | (v << np.uint32(16))
        x.vwrite(dst, w, r, mask, 1)
        return
    vals = _bytes_to_dwords(raw, n, signed)
    x.vwrite_n(dst, w, vals, mask)


def _store_bytes(x, ins, w, src: XOp, n, d16):
    vals = x.vread_n(src, w, max(n // 4, 1))
    if d16 == "hi":
        vals = vals >> np.uint32(16)
    return _dwords_to_bytes(vals, n)


def _mods_offset(ins, key="offset"):
    v = ins.mods.get(key, 0)
    return v if isinstance(v, int) else 0


# ---- FLAT / GLOBAL / SCRATCH ------------------------------------------------------------------
def _flat_addr(x, ins, w, vaddr: XOp, saddr: XOp | None, space: str):
    off = _mods_offset(ins)
    if space == "scratch":
        a = np.zeros((len(w), WAVE), dtype=np.int64)
        if vaddr.kind == "v":
            a = a + x.vread(vaddr, w, 1).astype(np.int64)
        if saddr is not None and saddr.kind == "s":
            a = a + x.sread(saddr, w, 1).astype(np.int64)[:, None]
        return (a + off).astype(U64)
    if saddr is not None and saddr.kind == "s":  # saddr (64-bit) + vaddr (32-bit unsigned offset)
        base = x.sread(saddr, w, 2)[:, None]
        return base + x.vread(vaddr, w, 1).astype(U64) + U64(off & 0xFFFFFFFFFFFFFFFF)
    return x.vread(vaddr, w, 2) + U64(off & 0xFFFFFFFFFFFFFFFF)


def _to_lds(x, ins, w, lanes, raw, n, signed):
    """Loads to LDS (LDS DMA): LDS_ADDR = M0[17:0] + inst_offset + TID*4, a byte or short
    extended to a dword; gfx950's 3 and 4 dwords go to TID*16, x3 leaving the 4th dword alone
    (CDNA4 ISA guide 9.1.9 "Memory Buffer Load to LDS", 10.2)."""
    base = (x.S[w, M0].astype(np.int64) & 0x3FFFF)[:, None] + _mods_offset(ins)
    if n <= 4:
        vals = _bytes_to_dwords(raw, n, signed)[:, 0, :]
        ldsa = base + 4 * np.arange(WAVE)[None, :]
        x.lane_access("lds", ldsa.astype(U64), 4, lanes, w, ins, vals.view(np.uint8).reshape(len(w), WAVE, 4))
        return
    ldsa = base + 16 * np.arange(WAVE)[None, :]
    x.lane_access("lds", ldsa.astype(U64), n, lanes, w, ins, np.ascontiguousarray(raw).reshape(len(w), WAVE, n))


def _space(base):
    return "global" if base.startswith("global_") else "scratch" if base.startswith("scratch_") else "flat"


def flat_load(x, ins, w):
    space = _space(ins.base)
    n, signed, d16 = _size_kind(ins.base.replace("_lds_", "_"))
    lanes = x.exec_lanes(w)
    if "_lds_" in ins.base:  # global_load_lds_dword vaddr, saddr: data -> LDS[M0 + offset + lane*4]
        vaddr, saddr = ins.ops[0], ins.ops[1] if len(ins.ops) > 1 else None
        addr = _flat_addr(x, ins, w, vaddr, saddr, space)
        raw = x.lane_access(space, addr, n, lanes, w, ins)
        _to_lds(x, ins, w, lanes, raw, n, signed)
        return
    dst, vaddr = ins.ops[0], ins.ops[1]
    saddr = ins.ops[2] if len(ins.ops) > 2 else None
    addr = _flat_addr(x, ins, w, vaddr, saddr, space)
    raw = x.lane_access(space, addr, n, lanes, w, ins)
    _put_load(x, ins, w, dst, raw, n, signed, d16, lanes)


def flat_store(x, ins, w):
    space = _space(ins.base)
    n, _, d16 = _size_kind(ins.base)
    vaddr, data = ins.ops[0], ins.ops[1]
    saddr = ins.ops[2] if len(ins.ops) > 2 else None
    lanes = x.exec_lanes(w)
    addr = _flat_addr(x, ins, w, vaddr, saddr, space)
    x.lane_access(space, addr, n, lanes, w, ins, _store_bytes(x, ins, w, data, n, d16))


# ---- atomics -------------------------------------------------------------------------------------
# The operation is the instruction's name (ISA guide ch. 9-11 atomic tables); its data type and
# so its width and signedness are the table's facts (``Operand.optype`` of the data operand,
# tools/isa_gen/facts.atomic_optype), never read from the mnemonic here.
_ATOMIC_PREFIX = ("s_atomic_", "s_buffer_atomic_", "flat_atomic_", "global_atomic_", "buffer_atomic_", "ds_")
_DTYPES = {"u32": np.uint32, "i32": np.int32, "b32": np.uint32, "f32": np.float32, "u64": np.uint64,
           "i64": np.int64, "b64": np.uint64, "f64": np.float64, "v2f16": np.uint32, "v2bf16": np.uint32}


def _min(o, s, c):
    return np.fmin(o, s) if o.dtype.kind == "f" else np.minimum(o, s)


def _max(o, s, c):
    return np.fmax(o, s) if o.dtype.kind == "f" else np.maximum(o, s)


def _pk_add(bf: bool):
    from gcnforge.emulator.numerics import bf16_to_f32, f32_to_bf16_rne

    def pk(o, s, c):
        res = np.zeros_like(o)
        for sh in (0, 16):
            a = ((o >> np.uint32(sh)) & np.uint32(0xFFFF)).astype(np.uint16)
            b = ((s >> np.uint32(sh)) & np.uint32(0xFFFF)).astype(np.uint16)
            if bf:
                r = f32_to_bf16_rne(bf16_to_f32(a) + bf16_to_f32(b))
            else:
                r = (a.view(np.float16) + b.view(np.float16)).view(np.uint16)
            res |= r.astype(np.uint32) << np.uint32(sh)
        return res

    return pk


# operation -> function(old, src, cmp) -> new, on values of the instruction's data type
# (smin/umin are min on a signed/unsigned type; DS says min_i32 / min_u32)
_ATOMIC_OPS = {
    "add": lambda o, s, c: o + s, "sub": lambda o, s, c: o - s, "rsub": lambda o, s, c: s - o,
    "swap": lambda o, s, c: s, "wrxchg": lambda o, s, c: s, "and": lambda o, s, c: o & s,
    "or": lambda o, s, c: o | s, "xor": lambda o, s, c: o ^ s,
    "min": _min, "smin": _min, "umin": _min, "max": _max, "smax": _max, "umax": _max,
    "inc": lambda o, s, c: np.where(o >= s, 0, o + 1).astype(o.dtype),
    "dec": lambda o, s, c: np.where((o == 0) | (o > s), s, o - 1).astype(o.dtype),
    "cmpswap": lambda o, s, c: np.where(o == c, s, o), "cmpst": lambda o, s, c: np.where(o == c, s, o),
    "mskor": lambda o, s, c: (o & ~c) | s,
}


def atomic_operation(base: str) -> str | None:
    """The operation an atomic's name says (``add``, ``smin``, ``cmpswap``, ``pk_add`` ...), or
    None for a name that is not an atomic the emulator implements."""
    prefix = next((p for p in _ATOMIC_PREFIX if base.startswith(p)), None)
    if prefix is None:
        return None
    op = base[len(prefix):].split("_", 1)[0]
    if op == "pk":
        return "pk_add"
    return op if op in _ATOMIC_OPS else None


_ATOMIC_FNS: dict = {}  # id(Instruction) -> (instruction, (fn, dtype, bytes))


def record_of(ins):
    di = ins._di  # noqa: SLF001  (the decoded instruction and its table record)
    if di is not None and di.inst is not None:
        return di.inst
    from gcnforge.isa import table

    return table.by_mnemonic(ins.mnemonic)


def atomic_fn(inst):
    """(function(old, src, cmp) -> new, dtype, bytes per value) of atomic table record ``inst``:
    the operation from its name, the type from its data operand's ``optype``."""
    got = _ATOMIC_FNS.get(id(inst))
    if got is not None and got[0] is inst:
        return got[1]
    op = atomic_operation(inst.base)
    t = next((o.optype for o in inst.operands if o.name in ("vdata", "data0", "sdata")), "")
    if op is None or t not in _DTYPES:
        raise Unsupported(f"atomic '{inst.mnemonic}' is not implemented by the emulator")
    fn = _pk_add(t == "v2bf16") if op == "pk_add" else _ATOMIC_OPS[op]
    dt = _DTYPES[t]
    res = (fn, dt, np.dtype(dt).itemsize)
    _ATOMIC_FNS[id(inst)] = (inst, res)
    return res


def _atomic(x, ins, w, space, addr, src_vals, cmp_vals, mask, fn, dt, n):
    """Apply an atomic at addr (k,64); returns old values (k,64) of dt. Lanes in order."""
    old_raw = x.lane_access(space, addr, n, mask, w, ins)
    old = np.ascontiguousarray(old_raw).view(dt).reshape(len(w), WAVE)
    # LDS offsets name one location per work-group: the waves of a batch may belong to several
    key = addr if space != "lds" else addr.astype(np.uint64) + (x.wg_of[w].astype(np.uint64)[:, None] << np.uint64(32))
    flat_addr = key[mask]
    if len(np.unique(flat_addr)) == len(flat_addr):
        with np.errstate(all="ignore"):
            new = fn(old, src_vals, cmp_vals).astype(dt)
        x.lane_access(space, addr, n, mask, w, ins, np.ascontiguousarray(new).view(np.uint8).reshape(len(w), WAVE, n))
        return old
    # lanes sharing an address: apply them one after another (wave order, then lane order),
    # reading each address once and writing its final value once
    olds = old.copy()
    groups: dict[int, list] = {}
    for wi, li in np.argwhere(mask):
        groups.setdefault(int(key[wi, li]), []).append((int(wi), int(li)))
    for lanes_ in groups.values():
        wi0, li0 = lanes_[0]
        cur = old[wi0, li0:li0 + 1].copy()
        for wi, li in lanes_:
            olds[wi, li] = cur[0]
            cur = np.asarray(fn(cur, src_vals[wi, li:li + 1], cmp_vals[wi, li:li + 1])).astype(dt)
        one = np.zeros((len(w), WAVE), bool)
        one[wi0, li0] = True
        buf = np.zeros((len(w), WAVE), dt)
        buf[wi0, li0] = cur[0]
        x.lane_access(space, addr, n, one, w, ins, np.ascontiguousarray(buf).view(np.uint8).reshape(len(w), WAVE, n))
    return olds


def _vals(x, op, w, dt, n):
    if n == 8:
        return x.vread(op, w, 2).view(dt)
    return x.vread(op, w, 1).view(dt)


def flat_atomic(x, ins, w):
    space = _space(ins.base)
    fn, dt, n = atomic_fn(record_of(ins))
    rtn = "sc0" in ins.mods or "glc" in ins.mods
    ops = list(ins.ops)
    dst = ops.pop(0) if rtn else None
    vaddr, data = ops[0], ops[1]
    saddr = ops[2] if len(ops) > 2 else None
    lanes = x.exec_lanes(w)
    addr = _flat_addr(x, ins, w, vaddr, saddr, space)
    cmpswap = atomic_operation(ins.base) == "cmpswap"
    src = _vals(x, data, w, dt, n)
    cmpv = np.zeros_like(src)
    if cmpswap:  # vdata = {src, cmp}
        hi = XOp(data.kind, data.index + n // 4, n // 4)
        cmpv = _vals(x, hi, w, dt, n)
    old = _atomic(x, ins, w, space, addr, src, cmpv, lanes, fn, dt, n)
    if dst is not None:
        x.vwrite(dst, w, np.ascontiguousarray(old).view(np.uint64 if n == 8 else np.uint32), lanes, n // 4)


# ---- MUBUF ---------------------------------------------------------------------------------------
# Buffer addressing and range checking follow the AMD Instinct MI300 (CDNA3) ISA guide,
# "Buffer Addressing" (Tables 44-46), "Range Checking", "Swizzled Buffer Addressing" and
# "Buffer Resource" (Table 48). On gfx9 it is the instruction's IDXEN bit, not the resource's
# stride, that says how num_records is read (LLVM review D44401: "On GFX9 IDXEN matters for
# interpretation of buffer sizes"):
#   private (scratch): ADD_TID_EN=1, IDXEN=0  -> no range check
#   raw:               ADD_TID_EN=0, IDXEN=0  -> out of range if offset >= num_records (bytes)
#   structured:        IDXEN=1                -> out of range if index >= num_records (records)
# where offset = (OFFEN ? vgpr_offset : 0) + inst_offset. On CDNA the SOFFSET value counts
# toward the raw check as well (issue 19; the MLIR amdgpu dialect documents the SGPR offset as
# "may or may not be considered in bounds checks" by chipset, review D129320, which corrected
# its earlier "added after bounds checks"), so a raw access is out of range when
# soffset + offset >= num_records. The guide's own table (CDNA3/CDNA4 9.1.5.1: "Out of Range
# if: (InstOffset + (OffEN ? vgpr_offset : 0)) >= NumRecords"; "the sgpr_offset is not a part of
# the offset term") and LLVM's older intrinsic comments (IntrinsicsAMDGPU.td, D50306: soffset
# "excluded from bounds checking and swizzling") leave it out; measured gfx942 behaviour (the
# triton fix below) has it in, pinned by test_buffer_bounds.
#
# 32-bit offsets. The guide's Table 46 makes SGPR_offset and VGPR_offset unsigned 32-bit values
# and num_records is 32 bits; the sum is 32 bits and wraps before the range check and before it
# is added to the 48-bit base (which carries normally):
#   - triton-lang/triton PR 10673 (AMD, "Compensate split soffset in masked buffer OOB
#     sentinel", tested on gfx942): a masked lane's OOB voffset sentinel plus an SOFFSET "can
#     carry the address back in range (32-bit wrap)", so the lane read real data; the fix pins
#     voffset + soffset to 0xFFFFFFFF, which is then out of range;
#   - LLVM AMDGPUISelDAGToDAG.cpp SelectMUBUFScratchOffen (review D40585): from gfx9 any VGPR
#     offset, negative ones included, is folded into vaddr with a positive instruction offset,
#     because "the overall address computation would compute a valid address";
#   - aiter's shipped int8 GEMM (I8gemm_bf16_perTokenI8_BpreShuffle_*) steps its VGPR offsets by
#     K - 260 and adds the rows back with the instruction offset: at K <= 256 its output matches
#     NumPy only with this wrap (integration_test/examples/test_gemm_i8.py).
# So a raw access's offset is (soffset + offset) mod 2^32, range-checked and addressed as that
# value; other accesses wrap the VGPR + instruction offset and add SOFFSET to the 64-bit address
# (the guide's "Final Address = const_base + sgpr_offset + buffer_offset"; no source here says
# more for them; a swizzled raw access, which the guide does not list, is checked as raw and
# addressed as swizzled). The pieces of a dword x2/x3/x4 access step from the wrapped start without a
# second wrap (a piece past 2^32 is out of range). Out-of-range loads return 0, stores and
# atomics are dropped; dword x2/x3/x4 loads and stores are checked per dword, format loads and
# atomics all or nothing (guide notes 3-4). The guide lists neither IDXEN with a stride of 0
# nor IDXEN with ADD_TID_EN: both are checked as structured (index, thread id included).
# Out-of-range lanes are defined behaviour that kernels rely on (prefetching past the end), so
# the sanitizer does not report them: only in-range lanes reach memory and its checks.
# V# field positions: gcnforge.isa.buffer_rsrc
_RSRC_SWIZZLE_EN = buffer_rsrc.SWIZZLE_EN
_RSRC_ELEMENT_SIZE = buffer_rsrc.ELEMENT_SIZE
_RSRC_INDEX_STRIDE = buffer_rsrc.INDEX_STRIDE
_RSRC_ADD_TID = buffer_rsrc.ADD_TID
_RSRC_DFMT = buffer_rsrc.DATA_FORMAT


class _Rsrc:
    """The fields of a V# (four SGPRs) that addressing reads, one value per wave."""

    def __init__(self, x, w, srsrc: XOp, fmt: bool):
        r = x.S[w, srsrc.index : srsrc.index + 4].astype(U64)
        self.base = r[:, 0] | ((r[:, 1] & U64(0xFFFF)) << U64(32))
        self.num = r[:, 2]
        self.add_tid = ((r[:, 3] >> U64(_RSRC_ADD_TID)) & U64(1)) != 0
        self.swizzle = ((r[:, 1] >> U64(_RSRC_SWIZZLE_EN)) & U64(1)) != 0
        stride = (r[:, 1] >> U64(16)) & U64(0x3FFF)
        if not fmt:  # 18-bit stride for scratch-style resources (guide Table 45)
            hi = (r[:, 3] >> U64(_RSRC_DFMT)) & U64(0xF)
            stride = np.where(self.add_tid, stride | (hi << U64(14)), stride)
        self.stride = stride
        self.elem = U64(2) << ((r[:, 3] >> U64(_RSRC_ELEMENT_SIZE)) & U64(3))
        self.index_stride = U64(8) << ((r[:, 3] >> U64(_RSRC_INDEX_STRIDE)) & U64(3))


_U32 = U64(0xFFFFFFFF)


def _buffer_addr(x, ins, w, vaddr: XOp, srsrc: XOp, soffset: XOp, n, parts=1, fmt=False):
    """-> (addr, inb, base): byte addresses (k, 64, parts) of the ``parts`` pieces of an
    ``n``-byte access (a dwordx4 is checked as 4 dwords), whether each is in range, and the
    resource's base address per wave (the allocation the access belongs to). The one place
    MUBUF/MTBUF addresses are computed (the 32-bit offset wrap: the comment above)."""
    rs = _Rsrc(x, w, srsrc, fmt)
    soff = x.sread(soffset, w, 1).astype(U64) if soffset.kind != "off" else np.zeros(len(w), U64)
    idxen, offen = "idxen" in ins.mods, "offen" in ins.mods
    zero = np.zeros((len(w), WAVE), U64)
    vidx = x.vread(vaddr, w, 1).astype(U64) if idxen else zero
    if offen:
        voff = x.vread(XOp(vaddr.kind, vaddr.index + 1) if idxen else vaddr, w, 1).astype(U64)
    else:
        voff = zero
    lane = np.arange(WAVE, dtype=U64)[None, :]
    index = vidx + np.where(rs.add_tid[:, None], lane, U64(0))
    pieces = U64(n // parts) * np.arange(parts, dtype=U64)
    off32 = (voff + U64(_mods_offset(ins))) & _U32
    offset = off32[:, :, None] + pieces
    raw_off = ((off32 + soff[:, None]) & _U32)[:, :, None] + pieces  # SOFFSET inside the 32-bit sum
    raw = np.logical_and(not idxen, ~rs.add_tid)[:, None, None]
    index3 = index[:, :, None]
    sw = rs.swizzle[:, None, None]
    if sw.any():
        ist, el, st = rs.index_stride[:, None, None], rs.elem[:, None, None], rs.stride[:, None, None]
        swz = ((index3 // ist) * st + (offset // el) * el) * ist + (index3 % ist) * el + offset % el
    else:
        swz = U64(0)
    lin = np.where(raw, raw_off, soff[:, None, None] + index3 * rs.stride[:, None, None] + offset)
    addr = rs.base[:, None, None] + np.where(sw, soff[:, None, None] + swz, lin)
    num = rs.num[:, None, None]
    if idxen:
        inb = np.broadcast_to(index3 < num, addr.shape)
    else:
        inb = ~raw | (raw_off < num)
    return addr, np.ascontiguousarray(inb), rs.base


def _buffer_atomic(x, ins, w, lanes):
    fn, dt, n = atomic_fn(record_of(ins))
    data, vaddr, srsrc, soff = ins.ops[:4]
    addr, inb, _ = _buffer_addr(x, ins, w, vaddr, srsrc, soff, n)  # atomics: all or nothing
    m = lanes & inb[:, :, 0]
    src = _vals(x, data, w, dt, n)
    cmpv = np.zeros_like(src)
    if atomic_operation(ins.base) == "cmpswap":
        cmpv = _vals(x, XOp(data.kind, data.index + n // 4, n // 4), w, dt, n)
    old = _atomic(x, ins, w, "global", addr[:, :, 0], src, cmpv, m, fn, dt, n)
    if "sc0" in ins.mods or "glc" in ins.mods:  # dropped lanes return 0
        x.vwrite(data, w, np.ascontiguousarray(np.where(m, old, 0).astype(dt)).view(np.uint64 if n == 8 else np.uint32),
                 lanes, n // 4)


def _buffer_move(x, ins, w, addr, inb, lanes, n, data=None, base=None):
    """Load (data None -> (k,64,n) bytes, 0 where out of range) or store the pieces of an
    access; one memory access when every piece of a lane agrees and the pieces are contiguous.
    ``base`` (k,): the resource's base address (the allocation the access belongs to)."""
    parts = addr.shape[2]
    step = n // parts
    contiguous = parts == 1 or bool(np.all(addr[:, :, 1:] - addr[:, :, :-1] == U64(step)))
    if contiguous and bool(np.all(inb == inb[:, :, :1])):
        return x.lane_access("global", addr[:, :, 0], n, lanes & inb[:, :, 0], w, ins, data, base=base)
    out = np.zeros((len(w), WAVE, n), np.uint8) if data is None else None
    for i in range(parts):
        sl = slice(i * step, (i + 1) * step)
        r = x.lane_access("global", addr[:, :, i], step, lanes & inb[:, :, i], w, ins,
                          None if data is None else np.ascontiguousarray(data[:, :, sl]), base=base)
        if out is not None:
            out[:, :, sl] = r
    return out


def _format_op(x, ins, w, lanes):
    """buffer_{load,store}_format_* and tbuffer_*: one element of the data format per lane,
    range-checked all or nothing (guide note 3); out-of-range lanes read 0 (1 where the V#
    selects the constant 1)."""
    b = ins.base
    mtbuf = b.startswith("tbuffer_")
    load = "_load_" in b
    lds = load and "lds" in ins.mods
    if lds:
        data, (vaddr, srsrc, soff) = None, ins.ops[:3]
    else:
        data, vaddr, srsrc, soff = ins.ops[:4]
    if not mtbuf:  # the format lives in each wave's V#: take the waves with one format together
        w3 = x.S[w, srsrc.index + 3]
        if len(w) > 1 and np.any(w3 != w3[0]):
            for i in range(len(w)):
                _format_op(x, ins, w[i:i + 1], lanes[i:i + 1])
            return
        dfmt, nfmt, sel = bf.rsrc_format(w3[0])
        fmt = bf.Format(dfmt, nfmt, None if not load else sel)
    else:
        f = int(ins.mods.get("format", 0))
        fmt = bf.Format(f & 0xF, (f >> 4) & 7, None)
    comps = b.rsplit("_", 1)[1]
    count = len(comps)  # x, xy, xyz, xyzw
    d16 = "_d16" in b
    floaty = fmt.nfmt in bf._FLOATY
    addr, inb, base = _buffer_addr(x, ins, w, vaddr, srsrc, soff, fmt.nbytes, 1, fmt=True)
    if not load:
        if count != len(fmt.bits):
            raise Unsupported(f"storing {count} component(s) to a {len(fmt.bits)}-component format is not modelled")
        regs = x.vread_n(data, w, (count + 1) // 2 if d16 else count)
        vals = bf.d16_unpack(regs, count, floaty) if d16 else regs
        _buffer_move(x, ins, w, addr, inb, lanes, fmt.nbytes, fmt.store(vals), base=base)
        return
    vals = fmt.load(_buffer_move(x, ins, w, addr, inb, lanes, fmt.nbytes, base=base), count)
    if lds:
        ldsa = (x.S[w, M0].astype(np.int64) & 0x3FFFF)[:, None] + _mods_offset(ins) + 4 * np.arange(WAVE)[None, :]
        x.lane_access("lds", ldsa.astype(U64), 4, lanes, w, ins,
                      np.ascontiguousarray(vals[:, 0, :]).view(np.uint8).reshape(len(w), WAVE, 4))
        return
    if not d16:
        x.vwrite_n(data, w, vals, lanes)
        return
    packed = bf.d16_pack(vals, floaty)
    if b.endswith("_d16_hi_x"):  # the value goes to the high half, the low half stays
        old = x.vread(data, w, 1)
        packed = ((old & np.uint32(0xFFFF)) | (packed[:, 0, :] << np.uint32(16)))[:, None, :]
    x.vwrite_n(data, w, packed, lanes)


def buffer_op(x, ins, w):
    b = ins.base
    lanes = x.exec_lanes(w)
    if b.startswith("buffer_atomic_"):
        _buffer_atomic(x, ins, w, lanes)
        return
    if b.startswith("tbuffer_") or "_format_" in b:
        _format_op(x, ins, w, lanes)
        return
    load = b.startswith("buffer_load_")
    n, signed, d16 = _size_kind(b.replace("buffer_load_", "x_").replace("buffer_store_", "x_").replace("format_", ""))
    if load and "lds" in ins.mods:  # LDS DMA form: no vdata (ISA guide "Memory Buffer Load to LDS")
        data, (vaddr, srsrc, soff) = None, ins.ops[:3]
    else:
        data, vaddr, srsrc, soff = ins.ops[:4]
    parts = n // 4 if n > 4 else 1  # dword x2/x3/x4: range-checked per dword
    addr, inb, base = _buffer_addr(x, ins, w, vaddr, srsrc, soff, n, parts)
    if not load:
        _buffer_move(x, ins, w, addr, inb, lanes, n, _store_bytes(x, ins, w, data, n, d16), base=base)
        return
    raw = _buffer_move(x, ins, w, addr, inb, lanes, n, base=base)
    if "lds" in ins.mods:  # out-of-range lanes write 0 (the guide's "Clamping Rules": the memory
        _to_lds(x, ins, w, lanes, raw, n, signed)  # side follows any other buffer fetch)
        return
    _put_load(x, ins, w, data, raw, n, signed, d16, lanes)


# ---- DS ------------------------------------------------------------------------------------------
def ds_swizzle(x, ins, w):
    """DS_SWIZZLE_B32 offset modes (ISA guide; encodings in ``asm.families.swizzle``)."""
    off = ins.mods.get("offset", 0)
    if off >= swizzle.ROTATE_LO:
        raise Unsupported(f"ds_swizzle_b32 offset 0x{off:x} (rotate/FFT mode) is not supported by the emulator")
    lanes = x.exec_lanes(w)
    src = x.vread(ins.ops[2] if len(ins.ops) > 2 else ins.ops[1], w, 1)
    lane = np.arange(WAVE)
    if off & swizzle.QUAD_PERM_ENC:  # offset[15]: quad-permute mode
        sel = [(off >> (2 * i)) & 3 for i in range(4)]
        s = (lane & ~3) + np.array(sel)[lane & 3]
    else:
        and_m, or_m, xor_m = off & 0x1F, (off >> 5) & 0x1F, (off >> 10) & 0x1F
        s = (lane & ~0x1F) | ((((lane & 0x1F) & and_m) | or_m) ^ xor_m)
    vals = src[:, s]
    vals = np.where(lanes[:, s], vals, 0)  # reading a disabled lane returns 0
    x.vwrite(ins.ops[0], w, vals, lanes, 1)


def ds_permute(x, ins, w):
    """ds_permute_b32 (push to lane addr/4) and ds_bpermute_b32 (pull from lane addr/4)."""
    lanes = x.exec_lanes(w)
    addr = (x.vread(ins.ops[1], w, 1).astype(np.int64) + _mods_offset(ins))
    lane_sel = (addr >> 2) & (WAVE - 1)
    data = x.vread(ins.ops[2], w, 1)
    k = len(w)
    if ins.base == "ds_bpermute_b32":
        vals = np.take_along_axis(data, lane_sel, axis=1)
        vals = np.where(np.take_along_axis(lanes, lane_sel, axis=1), vals, 0)
    else:
        vals = np.zeros((k, WAVE), np.uint32)
        for wi in range(k):
            for li in np.nonzero(lanes[wi])[0]:
                vals[wi, lane_sel[wi, li]] = data[wi, li]
    x.vwrite(ins.ops[0], w, vals, lanes, 1)


def _ds_addr(x, ins, w, vaddr, key="offset"):
    # LDS addresses are 32-bit: vaddr + offset wraps (compilers fold negative bases into offset)
    a = x.vview(vaddr, w).astype(np.int64)
    a += _mods_offset(ins, key)
    a &= 0xFFFFFFFF
    return a.view(U64)


_TR = {"ds_read_b64_tr_b16": (8, 16), "ds_read_b64_tr_b8": (8, 8), "ds_read_b64_tr_b4": (8, 4),
       "ds_read_b96_tr_b6": (12, 6)}  # bytes per lane, element bits


def ds_read_tr(x, ins, w, lanes):
    """gfx950 transposing LDS reads (CDNA4 ISA guide 11.4 "MFMA Transpose Load from LDS"): each
    lane reads ``nbytes`` at its address, E = nbytes*8/bits elements; in every block of 16 lanes
    the loads form an E x 16 tile, row r made of lanes 16/E*r .. 16/E*(r+1)-1 in order, and
    lane i of the block receives column i (element r of its result = row r's element i). So
    tr_b16 lane i gets element i%4 of lanes 4r + i//4 (r = 0..3): one M (or N) index, 4 K
    values, the MFMA operand layout from an M-contiguous tile."""
    nbytes, bits = _TR[ins.base]
    e = nbytes * 8 // bits
    dst, vaddr = ins.ops[0], ins.ops[1]
    san = x.sanitizer
    if san is not None:  # 11.4: "the EXEC mask must be set to all 1's", the address aligned to the data size
        if not lanes.all():
            wi, li = np.argwhere(~lanes)[0]
            san.report("exec", f"{ins.base} needs EXEC all ones (lane {li} is off)", ins, int(w[wi]), int(li))
        # b96: 128-bit alignment (AMD rocRoller pads 6-bit blocks to it: extraLDSBytesPerElementBlock)
        align = 8 if nbytes == 8 else 16
        bad = lanes & ((_ds_addr(x, ins, w, vaddr) % U64(align)) != 0)
        if bad.any():
            wi, li = np.argwhere(bad)[0]
            san.report("misaligned", f"{ins.base} address is not {align}-byte aligned", ins, int(w[wi]), int(li))
    raw = x.lane_access("lds", _ds_addr(x, ins, w, vaddr), nbytes, lanes, w, ins)  # (k, 64, nbytes)
    # the elements of each lane's load, as integers (little-endian bit order)
    bitsv = np.unpackbits(raw, axis=2, bitorder="little").reshape(len(w), WAVE, e, bits)
    lane = np.arange(WAVE)
    blk, i = lane // 16 * 16, lane % 16
    r = np.arange(e)[None, :]
    src_lane = blk[:, None] + (16 // e) * r + (i // e)[:, None]  # (64, e)
    src_elem = np.broadcast_to((i % e)[:, None], src_lane.shape)
    out_bits = bitsv[:, src_lane, src_elem, :]  # (k, 64, e, bits)
    out = np.packbits(out_bits.reshape(len(w), WAVE, nbytes * 8), axis=2, bitorder="little")
    x.vwrite_n(dst, w, np.ascontiguousarray(out).view(np.uint32).reshape(len(w), WAVE, nbytes // 4).transpose(0, 2, 1),
               lanes)


def ds_op(x, ins, w):
    b = ins.base
    lanes = x.exec_lanes(w)
    name = b[3:]
    if name.startswith(("read2", "write2")):
        st64 = "st64" in name
        n = 8 if name.endswith("b64") else 4
        stride = n * (64 if st64 else 1)
        if name.startswith("read2"):
            dst, vaddr = ins.ops[0], ins.ops[1]
            a0 = _ds_addr(x, ins, w, vaddr, "__none") + U64(ins.mods.get("offset0", 0) * stride)
            a1 = _ds_addr(x, ins, w, vaddr, "__none") + U64(ins.mods.get("offset1", 0) * stride)
            r0 = x.lane_access("lds", a0, n, lanes, w, ins)
            r1 = x.lane_access("lds", a1, n, lanes, w, ins)
            vals = np.concatenate([_bytes_to_dwords(r0, n, False), _bytes_to_dwords(r1, n, False)], axis=1)
            x.vwrite_n(dst, w, vals, lanes)
        else:
            vaddr, d0, d1 = ins.ops[0], ins.ops[1], ins.ops[2]
            a0 = _ds_addr(x, ins, w, vaddr, "__none") + U64(ins.mods.get("offset0", 0) * stride)
            a1 = _ds_addr(x, ins, w, vaddr, "__none") + U64(ins.mods.get("offset1", 0) * stride)
            x.lane_access("lds", a0, n, lanes, w, ins, _store_bytes(x, ins, w, d0, n, ""))
            x.lane_access("lds", a1, n, lanes, w, ins, _store_bytes(x, ins, w, d1, n, ""))
        return
    if "_tr_b" in name:
        ds_read_tr(x, ins, w, lanes)
        return
    if name.startswith("read_") or name.startswith("read"):
        n, signed, d16 = _size_kind("x_" + name[len("read_"):] if name.startswith("read_") else name)
        dst, vaddr = ins.ops[0], ins.ops[1]
        raw = x.lane_access("lds", _ds_addr(x, ins, w, vaddr), n, lanes, w, ins)
        _put_load(x, ins, w, dst, raw, n, signed, d16, lanes)
        return
    if name.startswith("write_") and not name.startswith("write_addtid"):
        n, _, d16 = _size_kind("x_" + name[len("write_"):])
        vaddr, data = ins.ops[0], ins.ops[1]
        x.lane_access("lds", _ds_addr(x, ins, w, vaddr), n, lanes, w, ins, _store_bytes(x, ins, w, data, n, d16))
        return
    # atomics: ds_<op>[_rtn]_<type> vdst?, vaddr, data0[, data1]
    fn, dt, n = atomic_fn(record_of(ins))
    ops = list(ins.ops)
    dst = ops.pop(0) if "_rtn_" in name else None
    vaddr = ops[0]
    two = atomic_operation(b) in ("cmpst", "mskor")
    src = _vals(x, ops[1], w, dt, n)
    cmpv = np.zeros_like(src)
    if two:  # DS: data0 = cmp (or mask), data1 = new value (ISA guide DS_CMPST_B32, DS_MSKOR_B32)
        cmpv = src
        src = _vals(x, ops[2], w, dt, n)
    old = _atomic(x, ins, w, "lds", _ds_addr(x, ins, w, vaddr), src, cmpv, lanes, fn, dt, n)
    if dst is not None:
        x.vwrite(dst, w, np.ascontiguousarray(old).view(np.uint64 if n == 8 else np.uint32), lanes, n // 4)


def ds_nop(x, ins, w):
    pass


def lookup_mem(base: str):
    if base.startswith(("global_load", "flat_load", "scratch_load")):
        return flat_load
    if base.startswith(("global_store", "flat_store", "scratch_store")):
        return flat_store
    if base.startswith(("global_atomic", "flat_atomic")):
        return flat_atomic
    if base.startswith(("buffer_load", "buffer_store", "buffer_atomic", "tbuffer_load", "tbuffer_store")):
        return buffer_op
    if base == "ds_swizzle_b32":
        return ds_swizzle
    if base in ("ds_permute_b32", "ds_bpermute_b32"):
        return ds_permute
    if base == "ds_nop":
        return ds_nop
    if base.startswith("ds_"):
        return ds_op if _ds_claims(base) else None
    return None


def _ds_claims(base: str) -> bool:
    """Whether ``ds_op`` implements ``base``: its loads and stores, and the atomics whose
    operation ``_ATOMIC_OPS`` knows (not ds_wrxchg2*, ds_wrap, ds_condxchg32, ds_consume,
    ds_append, ds_read_addtid/ds_write_addtid, GWS: those report "not implemented")."""
    name = base[3:]
    if name.startswith("read_addtid"):  # no address operand (M0-based): not modelled, said so
        return False
    if name.startswith(("read2", "write2", "read")) or "_tr_b" in name:
        return True
    if name.startswith("write_") and not name.startswith("write_addtid"):
        return True
    return atomic_operation(base) is not None


HANDLERS = {}
