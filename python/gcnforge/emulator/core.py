"""Wave state of a batch of waves, and operand access vectorized over (waves, lanes).

All waves of the workgroups running together live in NumPy arrays:

* ``S``  (W, 128) uint32 — the scalar operand space, numbered as the SSRC/SDST fields
  number it (s0-s101, flat_scratch, xnack_mask, vcc, ttmp, m0, null, exec);
* ``V``  (W, NV, 64) uint32 — the unified VGPR file of gfx90a+/gfx942: ArchVGPRs
  v0..v[accum_offset-1], then AccVGPRs: ``a[i]`` is ``V[accum_offset + i]``
  (ISA guide "Unified VGPR file", ``.amdhsa_accum_offset``);
* ``SCC`` (W,) uint32, ``PC`` (W,) int64, and per-wave mode bits.

Handlers receive ``w``, the indices of the waves executing one instruction together
(waves at the same PC), and read/write operands for all of them at once.
"""

from __future__ import annotations

import numpy as np

from gcnforge.diagnostics import Diagnostic
from gcnforge.emulator.program import EXEC, M0, NULL, XOp
from gcnforge.isa.target import target

WAVE = target().wave_size  # lanes per wave: wave64 on every emulated target (gfx942, gfx950)

LANE = np.arange(WAVE, dtype=np.uint64)
ONE = np.uint64(1)
U32 = np.uint64(0xFFFFFFFF)


def registrar(table: dict):
    """The ``@op(name, ...)`` decorator of an ops module: files the handler in ``table`` (the
    module's ``HANDLERS``, which ``decode.handlers`` merges) under each mnemonic."""

    def op(*names: str):
        def deco(fn):
            for n in names:
                table[n] = fn
            return fn

        return deco

    return op


class WaveFault(Diagnostic):
    """A fault raised while executing an instruction; the executor adds the location
    (kernel, pc, instruction, workgroup, wave, lane)."""

    def __init__(self, message: str, lanes: dict[int, int] | None = None, notes=()):
        super().__init__(message, None, notes)
        self.lanes = lanes or {}  # wave index -> first faulting lane


class Unsupported(WaveFault):
    """The instruction form is valid but the emulator does not model it (a gap of the emulator,
    not an error of the kernel): the form census (``emulator.forms``) counts these."""


_LAST_ROWS: list = [None, None]  # the last (w, rows(w)): one instruction asks many times


def rows(w):
    """The wave rows ``w`` selects, as a slice when they are consecutive (waves at one PC
    usually are): slices read as views and write in place, index arrays gather/scatter."""
    if w is _LAST_ROWS[0]:
        return _LAST_ROWS[1]
    r = w
    if isinstance(w, np.ndarray) and len(w):
        a, b = w[[0, -1]].tolist()
        if b - a + 1 == len(w):
            r = slice(a, b + 1)
    _LAST_ROWS[0], _LAST_ROWS[1] = w, r
    return r


def mask_to_lanes(m: np.ndarray) -> np.ndarray:
    """(n,) uint64 masks -> (n, 64) bool."""
    m = np.ascontiguousarray(m, dtype=np.uint64)
    return np.unpackbits(m.view(np.uint8), bitorder="little").reshape(len(m), WAVE).view(bool)


def lanes_to_mask(b: np.ndarray) -> np.ndarray:
    """(n, 64) bool -> (n,) uint64."""
    return np.packbits(np.ascontiguousarray(b, dtype=bool), axis=1, bitorder="little").view(np.uint64)[:, 0]


class Machine:
    def __init__(self, nwaves: int, nvgpr: int, accum_offset: int):
        self.W = nwaves
        self.S = np.zeros((nwaves, 128), dtype=np.uint32)
        self.V = np.zeros((nwaves, nvgpr, WAVE), dtype=np.uint32)
        self.nv = nvgpr
        self.accum_offset = accum_offset
        self.SCC = np.zeros(nwaves, dtype=np.uint32)
        self.PC = np.zeros(nwaves, dtype=np.int64)
        self.gpr_idx_mode = np.zeros(nwaves, dtype=np.uint32)  # s_set_gpr_idx_on mode bits, 0 = off
        self.vskip = np.zeros(nwaves, dtype=bool)  # s_setvskip: vector instructions are not issued
        self.modes_used = False  # set by s_setvskip / s_set_gpr_idx_on: the executor checks the modes
        self.trap_sts = np.zeros(nwaves, dtype=np.uint32)
        self.hwreg_mode = np.zeros(nwaves, dtype=np.uint32)
        self.cycles = np.zeros(nwaves, dtype=np.int64)
        self.sanitizer = None

    # ---- masks ------------------------------------------------------------------
    def exec_mask(self, w) -> np.ndarray:
        return self.S[rows(w), EXEC : EXEC + 2].copy().view(np.uint64).reshape(-1)  # a copy: EXEC may change

    def exec_full(self, w) -> bool:
        """Every lane of every wave in ``w`` is enabled."""
        return bool((self.S[rows(w), EXEC : EXEC + 2] == 0xFFFFFFFF).all())

    def exec_lanes(self, w) -> np.ndarray:
        e = np.ascontiguousarray(self.S[rows(w), EXEC : EXEC + 2])
        return np.unpackbits(e.view(np.uint8), bitorder="little").reshape(len(e), WAVE).view(bool)

    def sread64(self, i: int, w) -> np.ndarray:
        return self.S[w, i].astype(np.uint64) | (self.S[w, i + 1].astype(np.uint64) << np.uint64(32))

    def swrite64(self, i: int, w, val) -> None:
        val = np.asarray(val, dtype=np.uint64)
        self.S[w, i] = (val & U32).astype(np.uint32)
        self.S[w, i + 1] = (val >> np.uint64(32)).astype(np.uint32)

    # ---- register index checks ------------------------------------------------------
    def vindex(self, op: XOp) -> int:
        i = op.index + (self.accum_offset if op.kind == "a" else 0)
        if op.index < 0 or i + op.dwords > self.nv:
            raise WaveFault(f"register {op} is outside the {self.nv} VGPRs allocated by the kernel descriptor")
        return i

    # ---- scalar operands ------------------------------------------------------------
    def sread(self, op: XOp, w, dwords: int | None = None) -> np.ndarray:
        """(n,) uint32, or uint64 for 2-dword operands."""
        n = op.dwords if dwords is None else dwords
        if op.kind == "s":
            if n == 2:
                return self.sread64(op.index, w)
            v = self.S[w, op.index]
            return v if not isinstance(w, slice) else v.copy()
        if op.kind == "imm":
            cnt = len(w) if not isinstance(w, slice) else self.W
            if n == 2:
                return np.full(cnt, op.value & 0xFFFFFFFFFFFFFFFF, dtype=np.uint64)
            return np.full(cnt, op.value & 0xFFFFFFFF, dtype=np.uint32)
        if op.kind == "scc":
            return self.SCC[w].astype(np.uint64 if n == 2 else np.uint32)
        if op.kind == "execz":
            return (self.exec_mask(w) == 0).astype(np.uint32)
        if op.kind == "vccz":
            return (self.sread64(106, w) == 0).astype(np.uint32)
        raise WaveFault(f"operand {op} cannot be read as a scalar")

    def swrite(self, op: XOp, w, val, dwords: int | None = None) -> None:
        n = op.dwords if dwords is None else dwords
        if op.kind != "s":
            raise WaveFault(f"operand {op} is not a scalar destination")
        if op.index == NULL:
            return
        if n == 2:
            self.swrite64(op.index, w, val)
        elif n == 1:
            self.S[w, op.index] = np.asarray(val).astype(np.uint64).astype(np.uint32) if np.asarray(val).dtype != np.uint32 else val
        else:  # s_load_dwordxN style multi-dword writes take (n, dwords)
            self.S[w, op.index : op.index + n] = val

    # ---- vector operands ------------------------------------------------------------
    def vread(self, op: XOp, w, dwords: int | None = None) -> np.ndarray:
        """(n, 64) uint32, or uint64 for 2-dword operands; SGPRs and constants broadcast."""
        n = op.dwords if dwords is None else dwords
        if op.kind in ("v", "a"):
            i = self.vindex(op)
            r = rows(w)
            if n == 2:
                return self.V[r, i].astype(np.uint64) | (self.V[r, i + 1].astype(np.uint64) << np.uint64(32))
            v = self.V[r, i]
            return v if not isinstance(r, slice) else v.copy()
        if op.kind == "lds_direct":
            raise WaveFault("lds_direct is not supported on gfx942")
        s = self.sread(op, w, n)
        return np.repeat(s[:, None], WAVE, axis=1)

    def vview(self, op: XOp, w) -> np.ndarray:
        """Like ``vread`` of one dword, but VGPRs of consecutive waves come back as a view of
        the register file (no copy): for callers that consume the value before any write."""
        if op.kind in ("v", "a"):
            return self.V[rows(w), self.vindex(op)]
        return self.vread(op, w, 1)

    def vread_n(self, op: XOp, w, n: int) -> np.ndarray:
        """(k, n, 64) uint32: ``n`` consecutive registers starting at ``op``."""
        if op.kind not in ("v", "a"):
            raise WaveFault(f"operand {op} must be a VGPR range")
        i = self.vindex(op)
        if i + n > self.nv:
            raise WaveFault(f"register range {op} runs past the {self.nv} allocated VGPRs")
        r = rows(w)
        v = self.V[r, i : i + n]
        return v.copy() if isinstance(r, slice) else v

    def vwrite(self, op: XOp, w, val, mask: np.ndarray | None, dwords: int | None = None) -> None:
        """Write (n, 64) values where ``mask`` (n, 64) is set (None: every lane)."""
        n = op.dwords if dwords is None else dwords
        if op.kind not in ("v", "a"):
            raise WaveFault(f"operand {op} is not a vector destination")
        i = self.vindex(op)
        val = np.asarray(val)
        r = rows(w)
        if n == 2:
            v64 = val.astype(np.uint64, copy=False)
            lo = (v64 & U32).astype(np.uint32)
            hi = (v64 >> np.uint64(32)).astype(np.uint32)
            self._put(r, i, lo, mask)
            self._put(r, i + 1, hi, mask)
            return
        if val.dtype != np.uint32:
            val = val.astype(np.uint64).astype(np.uint32) if val.dtype.kind in "iu" else val.view(np.uint32)
        self._put(r, i, val, mask)

    def vwrite_f32(self, op: XOp, w, val, mask: np.ndarray | None) -> None:
        """Write float values rounded to f32 (as ``val.astype(float32)``) where ``mask``."""
        i = self.vindex(op)
        if op.kind not in ("v", "a"):
            raise WaveFault(f"operand {op} is not a vector destination")
        r = rows(w)
        if isinstance(r, slice):  # round straight into the registers
            np.copyto(self.V[r, i].view(np.float32), val, casting="same_kind", where=True if mask is None else mask)
        else:
            self._put(r, i, np.asarray(val).astype(np.float32).view(np.uint32), mask)

    def _put(self, r, i, val, mask) -> None:
        """V[r, i] = val where mask (None: everywhere); ``r`` from ``rows``."""
        if mask is None:
            self.V[r, i] = val
        elif isinstance(r, slice):
            np.copyto(self.V[r, i], val, where=mask)  # in place: the rows are a view
        else:
            self.V[r, i] = np.where(mask, val, self.V[r, i])

    def vwrite_n(self, op: XOp, w, vals: np.ndarray, mask: np.ndarray | None) -> None:
        """vals (k, n, 64) uint32 into n consecutive registers."""
        i = self.vindex(op)
        n = vals.shape[1]
        if i + n > self.nv:
            raise WaveFault(f"register range {op} runs past the {self.nv} allocated VGPRs")
        r = rows(w)
        if mask is None:
            self.V[r, i : i + n] = vals
        elif isinstance(r, slice):
            np.copyto(self.V[r, i : i + n], vals, where=mask[:, None, :])
        else:
            self.V[r, i : i + n] = np.where(mask[:, None, :], vals, self.V[r, i : i + n])

    def m0(self, w) -> np.ndarray:
        return self.S[w, M0]
