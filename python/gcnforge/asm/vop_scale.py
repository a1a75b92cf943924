"""gfx950 block-scaled MFMAs: ``v_mfma_scale_f32_{16x16x128,32x32x64}_f8f6f4 D, A, B, C, SA, SB``
is one 16-byte instruction in LLVM 22: a ``v_mfma_ld_scale_b32 SA, SB`` word pair (the E8M0
scale VGPRs, ``op_sel`` / ``op_sel_hi`` choosing their bytes) followed by the f8f6f4 MFMA
with ``abid`` bit 0 set. Both halves are the table's own records; this module only pairs
them. Facts probed with ``llvm-mc -mcpu=gfx950`` (``tests/asm/test_gfx950_corpus.py`` checks
every form): the scales must be VGPRs; ``op_sel``/``op_sel_hi`` take 2 or 3 entries, the third
is not encoded; ``op_sel_hi`` defaults to 0 and is always printed, with three entries; the
decoder ignores ld_scale's bits 13-14 (op_sel[2], op_sel_hi[2]); an ld_scale followed by an
f8f6f4 MFMA without the abid bit is two instructions."""

from __future__ import annotations

from gcnforge.asm.core import Codec, DecodedInst, OperandValue, ParsedInst, register_resolver
from gcnforge.asm.operands import Tok, parse_reg
from gcnforge.diagnostics import Diagnostic
from gcnforge.isa import table
from gcnforge.isa.encodings import ENCODINGS
from gcnforge.isa.scaled_mfma import LD_SCALE, SCALE_OPERANDS as _SCALE_OPS, SCALED, SELECTOR_ENTRIES
from gcnforge.isa.scaled_mfma import records as _records
from gcnforge.isa.schema import Instruction

__all__ = ["LD_SCALE", "SCALED", "SCALED_MFMA", "pair_at"]
_ABID0 = 1 << 11  # the MFMA word's abid bit 0: "scaled"


def _resolve(mnemonic: str) -> list[Instruction] | None:
    if mnemonic not in SCALED:
        return None
    r = _records(mnemonic, table.active_target())
    return [r[0]] if r else None


def _bits(name: str, val: str | None, tok: Tok, loc) -> tuple[int, int]:
    items = [x.strip() for x in val[1:-1].split(",")] if val and val.startswith("[") and val.endswith("]") else []
    if len(items) not in SELECTOR_ENTRIES or any(x not in ("0", "1") for x in items):
        raise Diagnostic(f"{name} expects 2 or 3 entries of 0 or 1 ({name}:[0,0,0])", tok.loc(loc))
    return int(items[0]), int(items[1])


class ScaledMfmaCodec(Codec):
    encodings = ()  # reached through the resolver and the ld_scale decode below

    def parse(self, inst, segs, loc, mtok):
        from gcnforge.asm.vop_alu import MAI, Vop3pCodec

        pair, ld, mfma = _records(inst.mnemonic, table.active_target())
        if len(segs) != 6 or any(not s for s in segs) or any(len(s) > 1 for s in segs[:5]):
            raise Diagnostic(f"'{inst.mnemonic}' takes vdst, src0, src1, src2, scale_src0, scale_src1",
                             mtok.loc(loc))
        for t in (segs[4][0], segs[5][0]):
            r = parse_reg(t.text)
            if r is None or r.file != "v" or r.count != 1:
                raise Diagnostic(f"a scale operand of '{inst.mnemonic}' must be one VGPR, got '{t.text}'", t.loc(loc))
        sel = [0, 0]
        mfma_mods: list[Tok] = []
        seen = set()
        for t in segs[5][1:]:
            name, colon, val = t.text.partition(":")
            key = name.lower()
            if key in seen:
                raise Diagnostic(f"duplicate modifier '{key}'", t.loc(loc))
            seen.add(key)
            if key == "op_sel":
                sel[0] = _bits(key, val, t, loc)
            elif key == "op_sel_hi":
                sel[1] = _bits(key, val, t, loc)
            else:
                mfma_mods.append(t)  # cbsz, blgp (and anything else: MAI reports it)
        pm = MAI.parse(mfma, segs[:3] + [[segs[3][0], *mfma_mods]], loc, mtok)
        pl = Vop3pCodec().parse(ld, [[segs[4][0]], [segs[5][0]]], loc, mtok)
        pl.fields.update(op_sel=sel[0][0] | sel[0][1] << 1 if sel[0] else 0,
                         op_sel_hi=sel[1][0] | sel[1][1] << 1 if sel[1] else 0, op_sel_hi2=0)
        pm.fields["abid"] = pm.fields.get("abid", 0) | 1
        return ParsedInst(pair, {}, None, 16, (), loc, self, extra={"ld": pl, "mfma": pm})

    def encode(self, pi, pc=0, resolve=None):
        return pi.extra["ld"].encode(pc) + pi.extra["mfma"].encode(pc)

    def _halves(self, di: DecodedInst) -> tuple[DecodedInst, int]:
        from gcnforge.asm.vop_alu import MAI

        _, _, mfma = _records(di.inst.mnemonic, di.fields["target"])
        hi = (di.raw >> 64) & ~_ABID0
        code = hi.to_bytes(8, "little")
        return MAI.decode(mfma, ENCODINGS["VOP3P_MAI"], hi, code, 0), di.raw & ((1 << 64) - 1)

    def valid(self, di):
        return True

    def text(self, di, pc=0, symbolize=None):
        dm, lo = self._halves(di)
        words = dm.text().split(" ")[1:]  # "D," "A," "B," "C" then the MFMA's modifiers
        ops, mods = words[:4], words[4:]
        s0, s1 = (lo >> 32) & 0x1FF, (lo >> 41) & 0x1FF
        sel, hi = (lo >> 11) & 3, (lo >> 59) & 3
        out = [di.inst.mnemonic, *ops[:3], ops[3] + ",", f"v{s0 - 256},", f"v{s1 - 256}"]
        if sel:
            out.append(f"op_sel:[{sel & 1},{sel >> 1},0]")
        out.append(f"op_sel_hi:[{hi & 1},{hi >> 1},0]")
        return " ".join(out + mods)

    def operand_values(self, di):
        dm, lo = self._halves(di)
        return dm.operands + tuple(OperandValue(name=o.name, file="v", index=((lo >> sh) & 0x1FF) - 256)
                                   for o, sh in zip(_SCALE_OPS, (32, 41)))

    def modifier_values(self, di):
        dm, lo = self._halves(di)
        return {"op_sel": (lo >> 11) & 3, "op_sel_hi": (lo >> 59) & 3, "cbsz": dm.fields.get("cbsz", 0),
                "blgp": dm.fields.get("blgp", 0)}


SCALED_MFMA = ScaledMfmaCodec()


def pair_at(code: bytes, offset: int, lo: int) -> DecodedInst | None:
    """The block-scaled MFMA starting with the ld_scale word pair ``lo`` at ``offset``, if the
    next 8 bytes are an f8f6f4 MFMA with the abid bit and both scales are VGPRs."""
    from gcnforge.asm.vop_alu import MAI

    if offset + 16 > len(code) or ((lo >> 32) & 0x1FF) < 256 or ((lo >> 41) & 0x1FF) < 256:
        return None
    hi = int.from_bytes(code[offset + 8:offset + 16], "little")
    if hi & 0xFF800000 != 0xD3800000 or not hi & _ABID0:
        return None
    target = table.active_target()
    mfma = table.by_opcode("VOP3P", (hi >> 16) & 0x7F)
    name = next((k for k, v in SCALED.items() if mfma is not None and v == mfma.mnemonic), None)
    if name is None:
        return None
    plain = hi & ~_ABID0
    dm = MAI.decode(mfma, ENCODINGS["VOP3P_MAI"], plain, plain.to_bytes(8, "little"), 0)
    if dm.inst is None or not MAI.valid(dm):
        return None
    pair = _records(name, target)[0]
    return DecodedInst(pair, 16, {"target": target}, None, SCALED_MFMA, lo | hi << 64)


register_resolver(_resolve)
