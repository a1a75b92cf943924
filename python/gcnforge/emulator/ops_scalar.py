"""Scalar ALU, branches and program control (SOP1/SOP2/SOPK/SOPC/SOPP); SMEM is ops_smem.py.

Semantics from the AMD Instinct MI300 ISA Reference Guide, chapters "Scalar ALU
Operations" and "Scalar Memory Operations" (instruction pseudo-code in the SOP* and SMEM
microcode-format sections). Every handler runs once for all waves at one PC.
"""

from __future__ import annotations

import numpy as np

from gcnforge.emulator.core import WaveFault, registrar
from gcnforge.emulator.program import EXEC, M0, VCC
from gcnforge.isa.target import target

SGPRS = target().sgprs  # s0..s101 on every emulated target (gfx942, gfx950)

U64 = np.uint64
M32 = U64(0xFFFFFFFF)
HANDLERS: dict = {}
op = registrar(HANDLERS)


def _w64(base: str) -> bool:
    return base.endswith("64")


def _sd(ins):
    return ins.ops[0]


# ---- SOP2 / SOP1 generic binary/unary ops -------------------------------------------

def _u(x):
    return x.astype(U64)


def _i(x, bits=32):
    return x.astype(np.int64) if bits == 64 else x.astype(np.uint32).view(np.int32).astype(np.int64)


def _binop(fn, scc_rule="nz"):
    def h(x, ins, w):
        b = ins.base
        wide = _w64(b) and not b.startswith(("s_lshl_b64", "s_lshr_b64", "s_ashr_i64", "s_bfe_", "s_bfm"))
        d, a, c = ins.ops
        n = 2 if _w64(b) else 1
        sa = _u(x.sread(a, w, n if not b.startswith("s_bfm") else 1))
        sb = _u(x.sread(c, w, 2 if (wide or b.startswith("s_cselect_b64")) else 1))
        r = fn(x, w, sa, sb) if scc_rule != "custom" else None
        if scc_rule == "custom":
            r, scc = fn(x, w, sa, sb)
            x.SCC[w] = scc
        mask = U64(0xFFFFFFFFFFFFFFFF) if n == 2 else M32
        r = r & mask
        if scc_rule == "nz":
            x.SCC[w] = (r != 0).astype(np.uint32)
        x.swrite(d, w, r, n)

    return h


def _sx32(v):  # uint64 holding a 32-bit pattern -> signed int64
    return (v & M32).astype(np.uint32).view(np.int32).astype(np.int64)


for _nm, _fn in {
    "s_and": lambda x, w, a, b: a & b, "s_or": lambda x, w, a, b: a | b, "s_xor": lambda x, w, a, b: a ^ b,
    "s_andn2": lambda x, w, a, b: a & ~b, "s_orn2": lambda x, w, a, b: a | ~b,
    "s_nand": lambda x, w, a, b: ~(a & b), "s_nor": lambda x, w, a, b: ~(a | b), "s_xnor": lambda x, w, a, b: ~(a ^ b),
}.items():
    HANDLERS[_nm + "_b32"] = _binop(_fn)
    HANDLERS[_nm + "_b64"] = _binop(_fn)

HANDLERS["s_lshl_b32"] = _binop(lambda x, w, a, b: a << (b & U64(31)))
HANDLERS["s_lshl_b64"] = _binop(lambda x, w, a, b: a << (b & U64(63)))
HANDLERS["s_lshr_b32"] = _binop(lambda x, w, a, b: (a & M32) >> (b & U64(31)))
HANDLERS["s_lshr_b64"] = _binop(lambda x, w, a, b: a >> (b & U64(63)))
HANDLERS["s_ashr_i32"] = _binop(lambda x, w, a, b: (_sx32(a) >> (b & U64(31)).astype(np.int64)).astype(U64))
HANDLERS["s_ashr_i64"] = _binop(lambda x, w, a, b: (a.astype(np.int64) >> (b & U64(63)).astype(np.int64)).astype(U64))
HANDLERS["s_bfm_b32"] = _binop(lambda x, w, a, b: ((U64(1) << (a & U64(31))) - U64(1)) << (b & U64(31)), "none")
HANDLERS["s_bfm_b64"] = _binop(lambda x, w, a, b: ((U64(1) << (a & U64(63))) - U64(1)) << (b & U64(63)), "none")
HANDLERS["s_mul_i32"] = _binop(lambda x, w, a, b: (_sx32(a) * _sx32(b)).astype(U64), "none")
HANDLERS["s_mul_hi_u32"] = _binop(lambda x, w, a, b: ((a & M32) * (b & M32)) >> U64(32), "none")
HANDLERS["s_mul_hi_i32"] = _binop(lambda x, w, a, b: ((_sx32(a) * _sx32(b)) >> 32).astype(U64), "none")
HANDLERS["s_pack_ll_b32_b16"] = _binop(lambda x, w, a, b: (a & U64(0xFFFF)) | ((b & U64(0xFFFF)) << U64(16)), "none")
HANDLERS["s_pack_lh_b32_b16"] = _binop(lambda x, w, a, b: (a & U64(0xFFFF)) | (b & U64(0xFFFF0000)), "none")
HANDLERS["s_pack_hh_b32_b16"] = _binop(lambda x, w, a, b: ((a >> U64(16)) & U64(0xFFFF)) | (b & U64(0xFFFF0000)), "none")


def _bfe(signed, bits):
    def f(x, w, a, b):
        off = b & U64(bits - 1)
        width = (b >> U64(16)) & U64(0x7F)
        width = np.minimum(width, U64(bits))
        m = np.where(width >= U64(64), U64(0xFFFFFFFFFFFFFFFF), (U64(1) << (width & U64(63))) - U64(1))
        r = (a >> off) & m
        if signed:
            sh = (U64(64) - width).astype(np.int64)
            r = np.where(width == 0, U64(0), ((r << sh.astype(U64)).astype(np.int64) >> sh).astype(U64))
        return r

    return f


HANDLERS["s_bfe_u32"] = _binop(_bfe(False, 32))
HANDLERS["s_bfe_i32"] = _binop(_bfe(True, 32))
HANDLERS["s_bfe_u64"] = _binop(_bfe(False, 64))
HANDLERS["s_bfe_i64"] = _binop(_bfe(True, 64))


def _carry(fn):
    return _binop(fn, "custom")


HANDLERS["s_add_u32"] = _carry(lambda x, w, a, b: (a + b, ((a + b) >> U64(32)).astype(np.uint32)))
HANDLERS["s_sub_u32"] = _carry(lambda x, w, a, b: (a - b, (b > a).astype(np.uint32)))
HANDLERS["s_addc_u32"] = _carry(lambda x, w, a, b: (a + b + x.SCC[w].astype(U64),
                                                     ((a + b + x.SCC[w].astype(U64)) >> U64(32)).astype(np.uint32)))
HANDLERS["s_subb_u32"] = _carry(lambda x, w, a, b: (a - b - x.SCC[w].astype(U64),
                                                     (b + x.SCC[w].astype(U64) > a).astype(np.uint32)))


def _sadd(x, w, a, b):
    r = _sx32(a) + _sx32(b)
    return r.astype(U64), ((r > 0x7FFFFFFF) | (r < -0x80000000)).astype(np.uint32)


def _ssub(x, w, a, b):
    r = _sx32(a) - _sx32(b)
    return r.astype(U64), ((r > 0x7FFFFFFF) | (r < -0x80000000)).astype(np.uint32)


HANDLERS["s_add_i32"] = _carry(_sadd)
HANDLERS["s_sub_i32"] = _carry(_ssub)
HANDLERS["s_min_i32"] = _carry(lambda x, w, a, b: (np.where(_sx32(a) < _sx32(b), a, b), (_sx32(a) < _sx32(b)).astype(np.uint32)))
HANDLERS["s_max_i32"] = _carry(lambda x, w, a, b: (np.where(_sx32(a) > _sx32(b), a, b), (_sx32(a) > _sx32(b)).astype(np.uint32)))
HANDLERS["s_min_u32"] = _carry(lambda x, w, a, b: (np.where(a < b, a, b), (a < b).astype(np.uint32)))
HANDLERS["s_max_u32"] = _carry(lambda x, w, a, b: (np.where(a > b, a, b), (a > b).astype(np.uint32)))
HANDLERS["s_absdiff_i32"] = _binop(lambda x, w, a, b: np.abs(_sx32(a) - _sx32(b)).astype(U64))
def _lshl_add(k):
    def f(x, w, a, b):
        sh = (a << U64(k)) & M32
        r = sh + b
        return r, (((r >> U64(32)) | ((a & M32) >> U64(32 - k))) != 0).astype(np.uint32)

    return f


for _k in (1, 2, 3, 4):
    HANDLERS[f"s_lshl{_k}_add_u32"] = _carry(_lshl_add(_k))


@op("s_cselect_b32", "s_cselect_b64")
def s_cselect(x, ins, w):
    n = 2 if ins.base.endswith("64") else 1
    a, b = x.sread(ins.ops[1], w, n), x.sread(ins.ops[2], w, n)
    x.swrite(ins.ops[0], w, np.where(x.SCC[w] != 0, a, b), n)


# ---- SOP1 -----------------------------------------------------------------------------

def _unop(fn, scc=False, n_in=None, n_out=None):
    def h(x, ins, w):
        b = ins.base
        n = 2 if b.endswith("64") else 1
        ni = n if n_in is None else n_in
        no = n if n_out is None else n_out
        a = _u(x.sread(ins.ops[1], w, ni))
        r = fn(x, w, a)
        r = r & (U64(0xFFFFFFFFFFFFFFFF) if no == 2 else M32)
        if scc:
            x.SCC[w] = (r != 0).astype(np.uint32)
        x.swrite(ins.ops[0], w, r, no)

    return h


def _popcount(a):
    a = a.astype(U64)
    c = np.zeros(a.shape, dtype=U64)
    for i in range(64):
        c += (a >> U64(i)) & U64(1)
    return c


HANDLERS["s_mov_b32"] = _unop(lambda x, w, a: a)
HANDLERS["s_mov_b64"] = _unop(lambda x, w, a: a)
HANDLERS["s_not_b32"] = _unop(lambda x, w, a: ~a, True)
HANDLERS["s_not_b64"] = _unop(lambda x, w, a: ~a, True)
HANDLERS["s_brev_b32"] = _unop(lambda x, w, a: _brev(a, 32))
HANDLERS["s_brev_b64"] = _unop(lambda x, w, a: _brev(a, 64))
HANDLERS["s_bcnt1_i32_b32"] = _unop(lambda x, w, a: _popcount(a & M32), True)
HANDLERS["s_bcnt1_i32_b64"] = _unop(lambda x, w, a: _popcount(a), True, 2, 1)
HANDLERS["s_bcnt0_i32_b32"] = _unop(lambda x, w, a: U64(32) - _popcount(a & M32), True)
HANDLERS["s_bcnt0_i32_b64"] = _unop(lambda x, w, a: U64(64) - _popcount(a), True, 2, 1)
HANDLERS["s_sext_i32_i8"] = _unop(lambda x, w, a: (a & U64(0xFF)).astype(np.uint8).view(np.int8).astype(np.int64).astype(U64))
HANDLERS["s_sext_i32_i16"] = _unop(lambda x, w, a: (a & U64(0xFFFF)).astype(np.uint16).view(np.int16).astype(np.int64).astype(U64))
HANDLERS["s_abs_i32"] = _unop(lambda x, w, a: np.abs(_sx32(a)).astype(U64), True)


def _brev(a, bits):
    r = np.zeros(a.shape, dtype=U64)
    for i in range(bits):
        r |= ((a >> U64(i)) & U64(1)) << U64(bits - 1 - i)
    return r


def _ff1(a, bits):  # first 1 from LSB, -1 if none
    r = np.full(a.shape, -1, dtype=np.int64)
    for i in range(bits - 1, -1, -1):
        r = np.where((a >> U64(i)) & U64(1) != 0, i, r)
    return r.astype(U64)


def _flbit(a, bits):  # count of leading zeros from MSB, -1 if none
    r = np.full(a.shape, -1, dtype=np.int64)
    for i in range(bits):
        r = np.where((a >> U64(i)) & U64(1) != 0, bits - 1 - i, r)
    return r.astype(U64)


HANDLERS["s_ff1_i32_b32"] = _unop(lambda x, w, a: _ff1(a & M32, 32))
HANDLERS["s_ff1_i32_b64"] = _unop(lambda x, w, a: _ff1(a, 64), False, 2, 1)
HANDLERS["s_ff0_i32_b32"] = _unop(lambda x, w, a: _ff1(~a & M32, 32))
HANDLERS["s_ff0_i32_b64"] = _unop(lambda x, w, a: _ff1(~a, 64), False, 2, 1)
HANDLERS["s_flbit_i32_b32"] = _unop(lambda x, w, a: _flbit(a & M32, 32))
HANDLERS["s_flbit_i32_b64"] = _unop(lambda x, w, a: _flbit(a, 64), False, 2, 1)
HANDLERS["s_flbit_i32"] = _unop(lambda x, w, a: _flbit(np.where(_sx32(a) < 0, ~a & M32, a), 32).astype(np.int64).clip(-1, 31).astype(U64)
                                - np.where((a == 0) | (a == M32), U64(0), U64(1)))


@op("s_cmov_b32", "s_cmov_b64", "s_cmovk_i32")
def s_cmov(x, ins, w):
    n = 2 if ins.base.endswith("64") else 1
    a = x.sread(ins.ops[1], w, n) if ins.base != "s_cmovk_i32" else _simm_sext(ins, w)
    old = x.sread(ins.ops[0], w, n)
    x.swrite(ins.ops[0], w, np.where(x.SCC[w] != 0, a, old), n)


@op("s_bitset0_b32", "s_bitset1_b32", "s_bitset0_b64", "s_bitset1_b64")
def s_bitset(x, ins, w):
    n = 2 if ins.base.endswith("64") else 1
    bit = _u(x.sread(ins.ops[1], w, 1)) & U64(63 if n == 2 else 31)
    old = _u(x.sread(ins.ops[0], w, n))
    r = old | (U64(1) << bit) if "bitset1" in ins.base else old & ~(U64(1) << bit)
    x.swrite(ins.ops[0], w, r, n)


_SAVEEXEC = {
    "and": lambda s, e: s & e, "or": lambda s, e: s | e, "xor": lambda s, e: s ^ e,
    "andn2": lambda s, e: s & ~e, "orn2": lambda s, e: s | ~e, "nand": lambda s, e: ~(s & e),
    "nor": lambda s, e: ~(s | e), "xnor": lambda s, e: ~(s ^ e), "andn1": lambda s, e: ~s & e,
    "orn1": lambda s, e: ~s | e,
}


def _saveexec(kind, wr=False):
    fn = _SAVEEXEC[kind]

    def h(x, ins, w):
        old = x.exec_mask(w)
        s = x.sread(ins.ops[1], w, 2)
        new = fn(s, old)
        x.swrite64(EXEC, w, new)
        x.SCC[w] = (new != 0).astype(np.uint32)
        x.swrite(ins.ops[0], w, new if wr else old, 2)

    return h


for _k in _SAVEEXEC:
    HANDLERS[f"s_{_k}_saveexec_b64"] = _saveexec(_k)
for _k in ("andn1", "andn2"):
    HANDLERS[f"s_{_k}_wrexec_b64"] = _saveexec(_k, True)


@op("s_getpc_b64")
def s_getpc(x, ins, w):
    x.swrite(ins.ops[0], w, np.full(len(w), ins.pc + ins.size, dtype=U64), 2)


@op("s_setpc_b64")
def s_setpc(x, ins, w):
    x.PC[w] = x.sread(ins.ops[0], w, 2).astype(np.int64)


@op("s_swappc_b64")
def s_swappc(x, ins, w):
    tgt = x.sread(ins.ops[1], w, 2).astype(np.int64)
    x.swrite(ins.ops[0], w, np.full(len(w), ins.pc + ins.size, dtype=U64), 2)
    x.PC[w] = tgt


@op("s_call_b64")
def s_call(x, ins, w):
    x.swrite(ins.ops[0], w, np.full(len(w), ins.pc + ins.size, dtype=U64), 2)
    x.PC[w] = ins.target


@op("s_movrels_b32", "s_movrels_b64", "s_movreld_b32", "s_movreld_b64")
def s_movrel(x, ins, w):
    n = 2 if ins.base.endswith("64") else 1
    for wi in w:
        off = int(x.S[wi, M0])
        d, s = ins.ops
        if "movrels" in ins.base:
            s = type(s)(s.kind, s.index + off, s.dwords)
        else:
            d = type(d)(d.kind, d.index + off, d.dwords)
        if d.index + n > SGPRS or (s.kind == "s" and s.index + n > SGPRS):
            raise WaveFault(f"{ins.base}: M0 offset {off} moves the operand outside s0-s101")
        x.swrite(d, np.array([wi]), x.sread(s, np.array([wi]), n), n)


# ---- SOPK -----------------------------------------------------------------------------

def _simm(ins) -> int:
    for o in reversed(ins.ops):
        if o.kind == "imm":
            return o.value & 0xFFFF
    raise WaveFault("missing 16-bit immediate")


def _simm_sext(ins, w):
    v = _simm(ins)
    v = v - 0x10000 if v & 0x8000 else v
    return np.full(len(w), v & 0xFFFFFFFF, dtype=U64)


@op("s_movk_i32")
def s_movk(x, ins, w):
    x.swrite(ins.ops[0], w, _simm_sext(ins, w))


@op("s_addk_i32")
def s_addk(x, ins, w):
    r, scc = _sadd(x, w, _u(x.sread(ins.ops[0], w)), _simm_sext(ins, w))
    x.SCC[w] = scc
    x.swrite(ins.ops[0], w, r & M32)


@op("s_mulk_i32")
def s_mulk(x, ins, w):
    r = _sx32(_u(x.sread(ins.ops[0], w))) * _sx32(_simm_sext(ins, w))
    x.swrite(ins.ops[0], w, r.astype(U64) & M32)


_CMP = {"eq": np.equal, "lg": np.not_equal, "gt": np.greater, "ge": np.greater_equal,
        "lt": np.less, "le": np.less_equal}


def _scmp(x, ins, w):
    parts = ins.base.split("_")  # s_cmp_eq_u32 / s_cmpk_lg_i32
    cmp, ty = _CMP[parts[2]], parts[3]
    n = 2 if ty.endswith("64") else 1
    a = _u(x.sread(ins.ops[0], w, n))
    if parts[1] == "cmpk":
        v = _simm(ins)
        b = np.full(len(w), (v - 0x10000 if (v & 0x8000 and ty == "i32") else v) & 0xFFFFFFFF, dtype=U64)
    else:
        b = _u(x.sread(ins.ops[1], w, n))
    if ty == "i32":
        a, b = _sx32(a), _sx32(b)
    x.SCC[w] = cmp(a, b).astype(np.uint32)


for _c in _CMP:
    for _t in ("i32", "u32"):
        HANDLERS[f"s_cmp_{_c}_{_t}"] = _scmp
        HANDLERS[f"s_cmpk_{_c}_{_t}"] = _scmp
    HANDLERS[f"s_cmp_{_c}_u64"] = _scmp


@op("s_bitcmp0_b32", "s_bitcmp1_b32", "s_bitcmp0_b64", "s_bitcmp1_b64")
def s_bitcmp(x, ins, w):
    n = 2 if ins.base.endswith("64") else 1
    a = _u(x.sread(ins.ops[0], w, n))
    bit = _u(x.sread(ins.ops[1], w, 1)) & U64(63 if n == 2 else 31)
    v = (a >> bit) & U64(1)
    x.SCC[w] = (v == (1 if "bitcmp1" in ins.base else 0)).astype(np.uint32)


# hwreg ids (ISA guide "Hardware Registers"): MODE=1, STATUS=2, TRAPSTS=3, HW_ID=4, SH_MEM_BASES=15
def _hwreg(ins):
    """(id, bit offset, size) of the instruction's hwreg operand."""
    return ins.mods.get("hwreg", (1, 0, 32))


@op("s_getreg_b32")
def s_getreg(x, ins, w):
    rid, off, size = _hwreg(ins)
    if rid == 1:
        v = x.hwreg_mode[w].astype(U64)
    elif rid == 3:
        v = x.trap_sts[w].astype(U64)
    elif rid == 4:  # HW_ID: wave id in bits 3:0, simd 5:4, cu 11:8 (modeled)
        v = (x.wave_slot[w].astype(U64) & U64(0xF))
    elif rid == 15:  # SH_MEM_BASES: private base [15:0], shared base [31:16] (aperture >> 48)
        from gcnforge.emulator.memory import PRIVATE_BASE, SHARED_BASE

        v = np.full(len(w), ((SHARED_BASE >> 48) << 16) | (PRIVATE_BASE >> 48), dtype=U64)
    else:
        v = np.zeros(len(w), dtype=U64)
    x.swrite(ins.ops[0], w, (v >> U64(off)) & U64((1 << size) - 1))


@op("s_setreg_b32", "s_setreg_imm32_b32")
def s_setreg(x, ins, w):
    rid, off, size = _hwreg(ins)
    src = ins.ops[-1]
    v = _u(x.sread(src, w))
    m = U64(((1 << size) - 1) << off)
    if rid == 1:
        x.hwreg_mode[w] = ((x.hwreg_mode[w].astype(U64) & ~m) | ((v << U64(off)) & m)).astype(np.uint32)
        x.ftz32 = bool(np.all(((x.hwreg_mode >> 4) & 3) == 0))
    elif rid == 3:
        x.trap_sts[w] = ((x.trap_sts[w].astype(U64) & ~m) | ((v << U64(off)) & m)).astype(np.uint32)


# ---- SOPP: branches and control ---------------------------------------------------------

def _branch(cond):
    def h(x, ins, w):
        take = cond(x, w)
        x.PC[w] = np.where(take, ins.target, ins.pc + ins.size)

    return h


HANDLERS["s_branch"] = _branch(lambda x, w: np.ones(len(w), dtype=bool))
HANDLERS["s_cbranch_scc0"] = _branch(lambda x, w: x.SCC[w] == 0)
HANDLERS["s_cbranch_scc1"] = _branch(lambda x, w: x.SCC[w] != 0)
HANDLERS["s_cbranch_vccz"] = _branch(lambda x, w: x.sread64(VCC, w) == 0)
HANDLERS["s_cbranch_vccnz"] = _branch(lambda x, w: x.sread64(VCC, w) != 0)
HANDLERS["s_cbranch_execz"] = _branch(lambda x, w: x.exec_mask(w) == 0)
HANDLERS["s_cbranch_execnz"] = _branch(lambda x, w: x.exec_mask(w) != 0)


@op("s_nop", "s_sethalt", "s_setprio", "s_sleep", "s_icache_inv", "s_dcache_inv", "s_dcache_wb",
    "s_dcache_inv_vol", "s_dcache_wb_vol", "s_incperflevel", "s_decperflevel", "s_ttracedata",
    "s_ttracedata_imm", "buffer_wbl2", "buffer_inv", "buffer_wbinvl1", "buffer_wbinvl1_vol", "s_waitcnt_depctr",
    "s_setkill", "s_cbranch_cdbgsys", "s_cbranch_cdbguser", "s_set_gpr_idx_mode", "s_denorm_mode", "s_round_mode",
    "s_cbranch_cdbgsys_and_user", "s_cbranch_cdbgsys_or_user", "s_dcache_discard", "s_dcache_discard_x2",
    "s_atc_probe", "s_atc_probe_buffer", "s_wakeup")
def s_nop(x, ins, w):
    pass


@op("s_endpgm", "s_endpgm_saved", "s_endpgm_ordered_ps_done")
def s_endpgm(x, ins, w):
    x.end_waves(w)


@op("s_barrier")
def s_barrier(x, ins, w):
    x.arrive_barrier(w)


@op("s_waitcnt", "s_waitcnt_vmcnt", "s_waitcnt_lgkmcnt", "s_waitcnt_expcnt", "s_waitcnt_vscnt")
def s_waitcnt(x, ins, w):
    x.waits.wait(ins, w)
    if "vmcnt" in ins.mods:
        x.lds_dma.land(x, w)  # the LDS DMAs vmcnt retired are complete now


@op("s_trap")
def s_trap(x, ins, w):
    code = _simm(ins) if ins.ops else 0
    raise WaveFault(f"s_trap {code}: the kernel trapped (no trap handler in the emulator)", {int(wi): 0 for wi in w})


@op("s_sendmsg", "s_sendmsghalt")
def s_sendmsg(x, ins, w):
    pass  # no message has a visible effect on compute results


@op("s_setvskip")
def s_setvskip(x, ins, w):
    """VSKIP = S0.u32[S1.u32[4:0]] (AMD CDNA ISA guide, SOPC S_SETVSKIP). While it is set the
    executor issues no vector instruction (VALU, MFMA, DS, MUBUF, FLAT) for the wave: they
    write no register, EXEC or VCC, touch no memory and count toward no wait counter."""
    s0 = x.sread(ins.ops[0], w, 1).astype(np.uint64)
    bit = x.sread(ins.ops[1], w, 1).astype(np.uint64) & U64(31)
    x.vskip[w] = ((s0 >> bit) & U64(1)) != 0
    x.modes_used = True


@op("s_set_gpr_idx_on")
def s_set_gpr_idx_on(x, ins, w):
    idx = x.sread(ins.ops[0], w) & np.uint32(0xFF)
    mode = _simm(ins) & 0xF
    x.S[w, M0] = (x.S[w, M0] & np.uint32(0xFFFF0F00)) | idx | np.uint32(mode << 12)
    x.gpr_idx_mode[w] = mode
    x.modes_used = True


@op("s_set_gpr_idx_off")
def s_set_gpr_idx_off(x, ins, w):
    x.gpr_idx_mode[w] = 0


@op("s_set_gpr_idx_idx")
def s_set_gpr_idx_idx(x, ins, w):
    x.S[w, M0] = (x.S[w, M0] & np.uint32(0xFFFFFF00)) | (x.sread(ins.ops[0], w) & np.uint32(0xFF))


# ---- lane-mask utilities (ISA guide SOP1: S_WQM, S_QUADMASK, S_BITREPLICATE) -----------------------
def _wqm(a, bits):
    r = np.zeros(a.shape, dtype=U64)
    for q in range(0, bits, 4):
        any_ = ((a >> U64(q)) & U64(0xF)) != 0
        r |= np.where(any_, U64(0xF) << U64(q), U64(0))
    return r


def _quadmask(a, bits):
    r = np.zeros(a.shape, dtype=U64)
    for q in range(0, bits, 4):
        r |= np.where(((a >> U64(q)) & U64(0xF)) != 0, U64(1) << U64(q // 4), U64(0))
    return r


HANDLERS["s_wqm_b32"] = _unop(lambda x, w, a: _wqm(a, 32), True)
HANDLERS["s_wqm_b64"] = _unop(lambda x, w, a: _wqm(a, 64), True)
HANDLERS["s_quadmask_b32"] = _unop(lambda x, w, a: _quadmask(a, 32), True)
HANDLERS["s_quadmask_b64"] = _unop(lambda x, w, a: _quadmask(a, 64), True)
HANDLERS["s_bitreplicate_b64_b32"] = _unop(
    lambda x, w, a: sum(((a >> U64(i)) & U64(1)) * U64(3 << (2 * i)) for i in range(32)), False, 1, 2)
HANDLERS["s_flbit_i32_i64"] = _unop(
    lambda x, w, a: np.where((a == 0) | (a == U64(0xFFFFFFFFFFFFFFFF)), U64(0xFFFFFFFF),
                             _flbit(np.where(a >> U64(63) != 0, ~a, a), 64) - U64(1)), False, 2, 1)
