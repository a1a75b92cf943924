"""Definedness tracking for the sanitizer (like Valgrind's memcheck, simplified).

Bit-precise for SGPRs (lane masks are built bit by bit from compares and merged with
and/or/andn2 against EXEC), per lane for VGPRs. Undefined values may flow through ALU ops
(compilers leave IMPLICIT_DEF registers uninitialized); a report is made only where one
reaches a sink: a memory address or stored value, or a branch condition.
"""

from __future__ import annotations

import numpy as np

from gcnforge.emulator.core import WAVE
from gcnforge.emulator.program import EXEC, VCC
from gcnforge.emulator.sanitizer_regs import _LEFTWARD, NS, _lo_operands, _name, _reg_slots

U64 = np.uint64


class DefinednessMixin:
    # ---- definedness ---------------------------------------------------------------------------------
    def _is_mem(self, ins):
        b = ins.base
        return b.startswith(("global_", "flat_", "scratch_", "buffer_", "ds_", "s_load", "s_buffer_load", "s_store",
                             "s_atomic", "s_scratch"))

    def _input_def(self, ins, w, uses):
        """Per-lane definedness of the instruction's inputs (k, 64) and a scalar summary;
        reports undefined values reaching sinks."""
        ex = self.ex
        b = ins.base
        vector = b.startswith(("v_", "global_", "flat_", "scratch_", "buffer_", "ds_"))
        lanes = ex.exec_lanes(w) if vector else None
        sd = np.ones(len(w), bool)
        vd = np.ones((len(w), WAVE), bool)
        s_uses = [r for r in uses if r < NS]
        v_uses = [r - NS for r in uses if r >= NS]
        if s_uses:
            sd = np.all(self.sdef[w][:, s_uses] == 0xFFFFFFFF, axis=1)
        if v_uses:
            vv = self.vdef[w][:, v_uses, :]
            if b in ("v_readlane_b32", "v_readfirstlane_b32"):
                src = self.vdef[w, v_uses[0]]
                if b == "v_readfirstlane_b32":
                    em = ex.exec_mask(w)
                    lane = np.where(em == 0, 0, np.argmax(ex.exec_lanes(w), axis=1))
                else:
                    lane = (ex.sread(ins.ops[2], w, 1).astype(np.int64) & (WAVE - 1)) if ins.ops[2].kind != "v" else np.zeros(len(w), np.int64)
                ok = src[np.arange(len(w)), lane] & sd
                self._lo_def = None
                return np.repeat(ok[:, None], WAVE, axis=1), ok
            cross = ins.enc == "dpp" or b in ("ds_swizzle_b32",
                                              "ds_bpermute_b32", "ds_permute_b32") or ins.sem == "mfma"
            if cross:  # reads other lanes: defined when every active lane's source is
                act = lanes if lanes is not None else np.ones((len(w), WAVE), bool)
                if ins.sem == "mfma":
                    act = np.ones_like(act)
                vd = np.all(vv | ~act[:, None, :], axis=(1, 2))[:, None] & np.ones((1, WAVE), bool)
            else:
                vd = np.all(vv, axis=1)
        full = vd & sd[:, None]
        self._lo_def = None
        if b in _LEFTWARD and v_uses:
            # the low dword of a 64-bit add/shift-left result depends only on low input dwords
            lo_regs = []
            for i in self.roles(ins)[1] if False else _lo_operands(ins):
                lo_regs += _reg_slots(ins.ops[i], ex.accum_offset)[:1] if ins.ops[i].dwords == 2 else \
                    _reg_slots(ins.ops[i], ex.accum_offset)
            lv = [r - NS for r in lo_regs if r >= NS]
            ls = [r for r in lo_regs if r < NS]
            lo = np.all(self.vdef[w][:, lv, :], axis=1) if lv else np.ones((len(w), WAVE), bool)
            if ls:
                lo &= np.all(self.sdef[w][:, ls] == 0xFFFFFFFF, axis=1)[:, None]
            self._lo_def = lo
        sink = self._is_mem(ins) or b.startswith(("s_cbranch_vcc", "s_cbranch_exec", "s_setpc", "s_swappc"))
        if sink:
            act = lanes if lanes is not None else np.ones((len(w), WAVE), bool)
            if b.startswith("s_cbranch_vcc"):
                bad = ~np.all((self.sdef[w][:, [VCC, VCC + 1]] == 0xFFFFFFFF), axis=1)
                bad_l = bad[:, None] & act
            else:
                bad_l = ~full & act
            if bad_l.any():
                wi, li = np.argwhere(bad_l)[0]
                culprit = [r for r in uses if (r < NS and self.sdef[w[wi], r] != 0xFFFFFFFF)
                           or (r >= NS and not self.vdef[w[wi], r - NS, li])]
                regs = ", ".join(_name(r, ex.accum_offset) for r in culprit[:4]) or "an operand"
                self.report("uninit", f"{regs} holds a value never written in this wave (or computed from one), "
                                      "used here as an address, stored value or branch condition",
                            ins, int(w[wi]), int(li) if vector else None)
        return full, sd

    def _propagate(self, ins, w, defs, uses):
        ex = self.ex
        b = ins.base
        if not defs:
            return
        full, sd = self._in_def
        if self._is_mem(ins):  # loaded data is defined (memory is not tracked)
            full = np.ones_like(full)
            sd = np.ones_like(sd)
        lanes = ex.exec_lanes(w)
        if ins.sem == "mfma" or b == "v_writelane_b32":
            lanes = np.ones_like(lanes)
        s_defs = [r for r in defs if r < NS]
        v_defs = [r - NS for r in defs if r >= NS]
        for k, r in enumerate(v_defs):
            val = self._lo_def if (k == 0 and self._lo_def is not None and not self._is_mem(ins)) else full
            self.vdef[w, r] = np.where(lanes, val, self.vdef[w, r])
        if not s_defs:
            return
        if b.startswith("v_"):  # lane masks (compares, carries) and readlane results
            if b in ("v_readlane_b32", "v_readfirstlane_b32"):
                val = np.where(full.all(axis=1), 0xFFFFFFFF, 0).astype(np.uint32)
                for r in s_defs:
                    self.sdef[w, r] = val
                return
            bits = (full & lanes) | ~lanes  # inactive lanes are written 0: defined
            m = (bits.astype(U64) << np.arange(WAVE, dtype=U64)).sum(axis=1, dtype=U64)
            lo, hi = (m & U64(0xFFFFFFFF)).astype(np.uint32), (m >> U64(32)).astype(np.uint32)
            for k, r in enumerate(s_defs):
                self.sdef[w, r] = lo if k % 2 == 0 else hi
            if b.startswith("v_cmpx"):
                self.sdef[w, EXEC], self.sdef[w, EXEC + 1] = lo, hi
            return
        self._salu_def(ins, w, s_defs, uses, sd)

    def _salu_def(self, ins, w, s_defs, uses, sd):
        """Bit-precise definedness for the SALU logic ops that build lane masks."""
        ex = self.ex
        b = ins.base
        n = 2 if b.endswith("64") else 1
        ops = ins.ops

        def val_def(op):  # (value, defined bits) as uint64
            if op.kind == "s":
                v = ex.sread(op, w, n).astype(U64)
                d = self.sdef[w, op.index].astype(U64)
                if n == 2:
                    d = d | (self.sdef[w, op.index + 1].astype(U64) << U64(32))
                return v, d
            full = U64(0xFFFFFFFFFFFFFFFF if n == 2 else 0xFFFFFFFF)
            return ex.sread(op, w, n).astype(U64) if op.kind != "off" else np.zeros(len(w), U64), np.full(len(w), full)

        def put(r0, d):
            self.sdef[w, r0] = (d & U64(0xFFFFFFFF)).astype(np.uint32)
            if n == 2 and r0 + 1 < NS:
                self.sdef[w, r0 + 1] = (d >> U64(32)).astype(np.uint32)

        kind = b.split("_")[1] if b.count("_") >= 2 else ""
        # The handler already ran: read sources as they were is not possible for in-place ops,
        # so the rules use the stored input definedness captured before (see _in_def) when the
        # destination aliases a source; values of sources are re-read (they are unchanged
        # unless aliased, and aliasing only matters for the value-dependent and/or rules).
        if b in ("s_mov_b32", "s_mov_b64") and ops[1].kind == "s":
            put(ops[0].index, self._pre_sdef(ops[1], n))
            return
        if "saveexec" in b or "wrexec" in b:
            # exec <- f(src, exec) bit-precisely; sdst <- old exec (saveexec) or the new exec (wrexec)
            d_src, d_exec = self._pre_sdef(ops[1], 2), self._pre_exec_def
            s_v, e_v = self._pre_src, self._pre_exec
            k = b[2:].split("_")[0]
            ops2 = {"and": (s_v, e_v, "and"), "andn2": (s_v, ~e_v, "and"), "andn1": (~s_v, e_v, "and"),
                    "or": (s_v, e_v, "or"), "orn2": (s_v, ~e_v, "or"), "orn1": (~s_v, e_v, "or")}.get(k)
            if ops2 is None:
                d_new = d_src & d_exec
            elif ops2[2] == "and":
                d_new = (d_src & d_exec) | (d_src & ~ops2[0]) | (d_exec & ~ops2[1])
            else:
                d_new = (d_src & d_exec) | (d_src & ops2[0]) | (d_exec & ops2[1])
            put(ops[0].index, d_exec if "saveexec" in b else d_new)
            self.sdef[w, EXEC] = (d_new & U64(0xFFFFFFFF)).astype(np.uint32)
            self.sdef[w, EXEC + 1] = (d_new >> U64(32)).astype(np.uint32)
            return
        if kind in ("and", "or", "andn2", "orn2") and len(ops) == 3:
            a_v, b_v = self._pre_vals
            da, db = self._pre_sdef(ops[1], n), self._pre_sdef(ops[2], n)
            if kind in ("andn2", "orn2"):
                b_v = ~b_v
            if kind.startswith("and"):
                d = (da & db) | (da & ~a_v) | (db & ~b_v)
            else:
                d = (da & db) | (da & a_v) | (db & b_v)
            put(ops[0].index, d)
            return
        full = U64(0xFFFFFFFFFFFFFFFF)
        d = np.where(sd, full, U64(0))
        for r in s_defs:
            self.sdef[w, r] = (d & U64(0xFFFFFFFF)).astype(np.uint32)

    def _pre_sdef(self, op, n):
        full = U64(0xFFFFFFFFFFFFFFFF if n == 2 else 0xFFFFFFFF)
        if op.kind != "s":
            return np.full(len(self._w), full)
        d = self._pre_def_rows[:, op.index].astype(U64)
        if n == 2:
            d = d | (self._pre_def_rows[:, op.index + 1].astype(U64) << U64(32))
        return d
