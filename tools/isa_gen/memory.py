"""DS, FLAT/GLOBAL/SCRATCH, MUBUF and MTBUF rows of the table, probed from LLVM 22.

LLVM rejects encodings whose unused fields are non-zero, so each opcode is decoded once
with every field zero and once per field with that field alone set to a sentinel; the
operand whose text changes belongs to that field (its printed width gives ``dwords``).
Flag probes (gds, acc, sc0/sc1/nt, lds, offen/idxen) tell which modifiers an opcode takes
and whether its data operands may be AGPRs."""

from __future__ import annotations


from gcnforge.isa.encodings import ENCODINGS
from gcnforge.isa.schema import Instruction, Operand, OperandKind as K, Role
from gcnforge.isa.semantics import memory_class
from tools.isa_gen import facts
from tools.isa_gen.common import Decoded, assemble, disassemble, reg_of, word

REG_SENT = {"addr": 16, "data0": 32, "data1": 48, "vdst": 64, "data": 32, "vaddr": 16, "vdata": 32}


def _changed(base: Decoded, probe: Decoded | None) -> list[int]:
    if probe is None or probe.mnemonic != base.mnemonic or len(probe.operands) != len(base.operands):
        return []
    return [i for i, (a, b) in enumerate(zip(base.operands, probe.operands)) if a != b]


def _plan(enc: str, variants: dict[str, dict[str, int]], base_fields: dict[str, int]) -> dict[int, dict[str, Decoded | None]]:
    e = ENCODINGS[enc]
    keys = list(variants)
    probes = []
    for op in range(1 << e.opcode.width):
        for k in keys:
            probes.append(word(enc, op=op, **{**base_fields, **variants[k]}))
    res = disassemble(probes)
    out = {}
    for op in range(1 << e.opcode.width):
        out[op] = {k: res[op * len(keys) + j] for j, k in enumerate(keys)}
    return out


def _zero_fields(r: dict, probe_fields: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    """Fields LLVM requires to be zero: those whose probe (that field alone set) it rejected."""
    out: set[str] = set()
    for key, flds in probe_fields.items():
        if key in r and r[key] is None:
            out.update(flds)
    return tuple(sorted(out))


def _stores(base: str) -> bool:
    return "store" in base or base.startswith(("ds_write", "ds_wr")) and "rtn" not in base


def _row(base: str, enc: str, op: int, d: Decoded, operands: list[Operand], mods: tuple[str, ...]) -> Instruction:
    operands = facts.typed_atomic_operands(base, operands)
    return Instruction(
        mnemonic=base, base=base, encoding=enc, opcode=op, llvm_name=d.llvm_name, operands=tuple(operands),
        modifiers=mods, counter=facts.memory_counter(enc), sem=str(memory_class(base, enc, _stores(base))),
        notes=(facts.NOTE_MEMORY,))


# -- DS -------------------------------------------------------------------------------------
def ds_rows() -> list[Instruction]:
    v = {"base": {}, "addr": {"addr": 16}, "data0": {"data0": 32}, "data1": {"data1": 48}, "vdst": {"vdst": 64},
         "off": {"offset0": 0x12, "offset1": 0x34}, "gds": {"gds": 1}, "acc": {"acc": 1}}
    out = []
    for op, r in _plan("DS", v, {}).items():
        b = r["base"]
        if b is None:
            continue
        slots: dict[int, Operand] = {}
        acc_ok = r["acc"] is not None
        for fld in ("vdst", "addr", "data0", "data1"):
            ch = _changed(b, r[fld])
            if len(ch) != 1:
                continue
            reg = reg_of(r[fld].operands[ch[0]])
            kind = K.VGPR if fld == "addr" or not acc_ok else K.AV
            role = Role.DEF if fld == "vdst" else Role.USE
            slots[ch[0]] = Operand(fld, kind, fld, reg[2] if reg else 1, role, files="v" if kind is K.VGPR else "va")
        if len(slots) != len(b.operands):
            raise ValueError(f"cannot place all operands of {b.text}: {slots}")
        mods = []
        om = r["off"].modifiers if r["off"] is not None else ()
        if any(m.startswith("offset0:") for m in om):
            mods += ["offset0", "offset1"]
        elif any(m.startswith("offset:") for m in om):
            mods.append("offset")
        if r["gds"] is not None and "gds" in r["gds"].modifiers:
            mods.append("gds")
        zf = _zero_fields(r, {"addr": ("addr",), "data0": ("data0",), "data1": ("data1",), "vdst": ("vdst",),
                              "off": ("offset0", "offset1"), "gds": ("gds",), "acc": ("acc",)})
        out.append(_row(b.mnemonic, "DS", op, b, [slots[i] for i in sorted(slots)], tuple(mods)).replace(
                           zero_fields=zf))
    return out


# -- FLAT / GLOBAL / SCRATCH ---------------------------------------------------------------
def flat_rows() -> list[Instruction]:
    out = []
    for enc, off_none in (("FLAT", 0), ("GLOBAL", 0x7F), ("SCRATCH", 0x7F)):
        v = {"base": {}, "addr": {"addr": 16}, "data": {"data": 32}, "vdst": {"vdst": 64}, "saddr": {"saddr": 40},
             "sve": {"lds": 1}, "off": {"offset": 0x123}, "sc0": {"sc0": 1}, "sc1": {"sc1": 1}, "nt": {"nt": 1},
             "acc": {"acc": 1}, "rtn": {"sc0": 1, "vdst": 64}}
        plan = _plan(enc, v, {"saddr": off_none})
        for op, r in plan.items():
            b = r["base"]
            if b is None:
                continue
            base = b.mnemonic
            acc_ok = r["acc"] is not None
            slots: dict[int, Operand] = {}
            for fld in ("vdst", "addr", "data", "saddr", "sve"):
                ch = _changed(b, r[fld])
                if len(ch) != 1:
                    continue
                t = r[fld].operands[ch[0]]
                reg = reg_of(t)
                if fld == "saddr":
                    slots[ch[0]] = Operand("saddr", K.OFF, "saddr", reg[2], files="s")
                elif fld == "sve":
                    slots[ch[0]] = Operand("vaddr", K.OFF, "addr", 1, files="v")
                elif fld == "addr":
                    slots[ch[0]] = Operand("vaddr", K.VGPR, "addr", reg[2], files="v")
                else:
                    kind = K.AV if acc_ok else K.VGPR
                    slots[ch[0]] = Operand("vdst" if fld == "vdst" else "vdata", kind, fld, reg[2],
                                           Role.DEF if fld == "vdst" else Role.USE, files="va" if acc_ok else "v")
            if enc == "SCRATCH" and not any(o.field == "addr" for o in slots.values()):
                # scratch vaddr prints "off" unless sve=1: find the 'off' that sve turned into a VGPR
                pass
            if enc == "GLOBAL" and "saddr" not in [o.name for o in slots.values()]:
                # a saddr form changes the vaddr width too, so the probe did not diff; place 'off'
                idx = [i for i, t in enumerate(b.operands) if t == "off"]
                if idx:
                    slots[idx[-1]] = Operand("saddr", K.OFF, "saddr", 2, files="s")
            if enc == "SCRATCH":
                offs = [i for i, t in enumerate(b.operands) if t == "off" and i not in slots]
                for i in offs:
                    slots[i] = Operand("saddr", K.OFF, "saddr", 1, files="s")
            if len(slots) != len(b.operands):
                raise ValueError(f"cannot place all operands of {b.text} ({enc}): {slots}")
            operands = [slots[i] for i in sorted(slots)]
            if "atomic" in base and r["rtn"] is not None and len(r["rtn"].operands) == len(b.operands) + 1:
                # returning atomics (sc0=1) print vdst first (ISA guide 10.x: GLC/SC0 returns pre-op value)
                reg = reg_of(r["rtn"].operands[0])
                operands.insert(0, Operand("vdst", K.AV if acc_ok else K.VGPR, "vdst", reg[2] if reg else 1,
                                           Role.DEF, files="va" if acc_ok else "v", optional=True))
            mods = []
            if r["off"] is not None and any(m.startswith("offset:") for m in r["off"].modifiers):
                mods.append("offset")
            for m in ("sc0", "nt", "sc1"):
                if r[m] is not None and m in r[m].modifiers:
                    mods.append(m)
            zf = _zero_fields(r, {"addr": ("addr",), "data": ("data",), "vdst": ("vdst",), "sve": ("lds",),
                                  "saddr": ("saddr",),
                                  "sc0": ("sc0",), "sc1": ("sc1",), "nt": ("nt",), "acc": ("acc",),
                                  "off": ("offset",)})
            out.append(_row(base, enc, op, b, operands, tuple(mods)).replace(zero_fields=zf))
    return out


# -- MUBUF / MTBUF -----------------------------------------------------------------------
def buf_rows() -> list[Instruction]:
    out = []
    for enc in ("MUBUF", "MTBUF"):
        v = {"base": {}, "vdata": {"vdata": 32}, "srsrc": {"srsrc": 12}, "soffset": {"soffset": 60},
             "offen": {"offen": 1}, "idxen": {"idxen": 1}, "off": {"offset": 0x123}, "sc0": {"sc0": 1},
             "sc1": {"sc1": 1}, "nt": {"nt": 1}, "acc": {"acc": 1}}
        if enc == "MUBUF":
            v["lds"] = {"lds": 1}
        for op, r in _plan(enc, v, {}).items():
            b = r["base"]
            if b is None:
                continue
            base = b.mnemonic
            acc_ok = r["acc"] is not None
            slots: dict[int, Operand] = {}
            for fld in ("vdata", "srsrc", "soffset", "offen"):
                ch = _changed(b, r[fld])
                if len(ch) != 1:
                    continue
                reg = reg_of(r[fld].operands[ch[0]])
                if fld == "vdata":
                    slots[ch[0]] = Operand("vdata", K.AV if acc_ok else K.VGPR, "vdata", reg[2],
                                           Role.USE if "store" in base else (Role.DEFUSE if "atomic" in base else Role.DEF),
                                           files="va" if acc_ok else "v")
                elif fld == "srsrc":
                    slots[ch[0]] = Operand("srsrc", K.SREG, "srsrc", 4, files="s")
                elif fld == "soffset":
                    slots[ch[0]] = Operand("soffset", K.SSRC, "soffset", 1, inline_const=True, files="s")
                else:
                    slots[ch[0]] = Operand("vaddr", K.OFF, "vaddr", 1, files="v")
            if len(slots) != len(b.operands):
                raise ValueError(f"cannot place all operands of {b.text} ({enc}): {slots}")
            mods = ["format"] if enc == "MTBUF" else []
            if any(o.name == "vaddr" for o in slots.values()):
                mods += ["idxen", "offen", "offset"]
            for m in ("sc0", "nt", "sc1"):
                if r[m] is not None and (m in r[m].modifiers or (not b.operands and m in r[m].operands)):
                    mods.append(m)
            if enc == "MUBUF" and r["lds"] is not None and "lds" in r["lds"].modifiers:
                mods.append("lds")
            zf = _zero_fields(r, {"vdata": ("vdata",), "srsrc": ("srsrc",), "soffset": ("soffset",),
                                  "offen": ("offen", "vaddr"), "idxen": ("idxen",), "off": ("offset",),
                                  "sc0": ("sc0",), "sc1": ("sc1",), "nt": ("nt",), "acc": ("acc",),
                                  "lds": ("lds",)})
            out.append(_row(base, enc, op, b, [slots[i] for i in sorted(slots)], tuple(mods)).replace(
                               zero_fields=zf))
    return out


def _reg(file: str, idx: int, n: int) -> str:
    return f"{file}{idx}" if n == 1 else f"{file}[{idx}:{idx + n - 1}]"


def refine_returning_agpr(rows: list[Instruction]) -> list[Instruction]:
    """Returning FLAT/GLOBAL atomics whose AGPR form LLVM rejects (e.g. global_atomic_add_f32
    ... sc0 with AGPR data) although it decodes the bits: assemble the AGPR form of each and
    restrict the returned ``vdst`` to VGPRs where llvm-mc refuses it."""
    jobs = []
    for r, inst in enumerate(rows):
        if not inst.operands or not inst.operands[0].optional or inst.operands[0].kind is not K.AV:
            continue
        ops = []
        for o in inst.operands:
            if o.name == "vaddr":
                ops.append(_reg("v", 2, o.dwords))
            elif o.name == "saddr":
                ops.append("off")
            else:
                ops.append(_reg("a", 4 if o.name == "vdst" else 8, o.dwords))
        jobs.append((r, f"{inst.mnemonic} {', '.join(ops)} sc0"))
    res = assemble([j[1] for j in jobs])
    out = list(rows)
    for (r, _), (data, _err) in zip(jobs, res):
        if data is None:
            ops = list(out[r].operands)
            ops[0] = ops[0].replace(kind=K.VGPR, files="v")
            out[r] = out[r].replace(operands=tuple(ops))
    return out


def rows() -> list[Instruction]:
    return ds_rows() + refine_returning_agpr(flat_rows()) + buf_rows()
