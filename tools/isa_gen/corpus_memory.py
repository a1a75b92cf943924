"""Corpus forms for DS, FLAT/GLOBAL/SCRATCH, MUBUF and MTBUF: every opcode in the table
with VGPR/AGPR data, address forms (off/saddr/vaddr, offen/idxen), offsets and cache bits."""

from __future__ import annotations

from gcnforge.isa import table
from gcnforge.isa.schema import OperandKind as K


def _v(file: str, idx: int, n: int) -> str:
    return f"{file}{idx}" if n == 1 else f"{file}[{idx}:{idx + n - 1}]"


def _data(op, i: int, base: int) -> str:
    file = "a" if ("a" in op.files and i % 3 == 2) else "v"
    idx = [base, 254 - 2 * op.dwords, 0, 2 * base][i % 4]
    idx -= idx % 2 if op.dwords > 1 else 0
    return _v(file, max(0, min(idx, 256 - op.dwords)), op.dwords)


def ds_forms(inst) -> list[str]:
    out = []
    for i in range(4):
        ops = []
        for op in inst.operands:
            if op.name == "addr":
                ops.append(_v("v", [1, 255, 0, 17][i], 1))
            else:
                ops.append(_data(op, i, {"vdst": 4, "data0": 8, "data1": 12}.get(op.name, 2)))
        # the acc bit is shared: keep all AV operands in one file
        if any(o.startswith("a") for o in ops):
            ops = [o if inst.operands[k].name == "addr" else "a" + o[1:] for k, o in enumerate(ops)]
        mods = []
        if "offset" in inst.modifiers:
            mods.append(["", "offset:4", "offset:65535", "offset:256"][i])
        if "offset0" in inst.modifiers:
            mods += [["", "offset0:1 offset1:255", "offset1:3", "offset0:255"][i]]
        text = inst.mnemonic + (" " + ", ".join(ops) if ops else "")
        out.append(" ".join(x for x in [text, *mods] if x))
    return out


def flat_forms(inst) -> list[str]:
    out = []
    enc = inst.encoding
    for i in range(6):
        ops = []
        use_saddr = enc != "FLAT" and i % 2 == 1
        use_vaddr = enc != "SCRATCH" or i % 3 != 1
        acc = i % 3 == 2 and any("a" in o.files for o in inst.operands)
        rtn = any(o.optional for o in inst.operands) and i >= 3
        for op in inst.operands:
            if op.optional and not rtn:
                continue
            if op.name == "vaddr":
                if enc == "SCRATCH":
                    ops.append(_v("v", [2, 255, 7][i % 3], 1) if use_vaddr else "off")
                else:
                    n = 1 if use_saddr else 2
                    ops.append(_v("v", [2, 254, 0][i % 3], n))
            elif op.name == "saddr":
                if enc == "SCRATCH":
                    ops.append(["s3", "off", "vcc_lo", "off", "s101", "m0"][i] if use_vaddr or i % 2 else "s5")
                else:
                    ops.append(["s[4:5]", "s[100:101]", "vcc", "exec"][i % 4] if use_saddr else "off")
            else:
                ops.append(_data(op, i, 10 if op.name == "vdst" else 20).replace("a", "a" if acc else "v", 1)
                           if not acc else _data(op, 2, 10 if op.name == "vdst" else 20))
        if enc == "SCRATCH" and ops and ops[inst.operands.index(next(o for o in inst.operands if o.name == "vaddr")) -
                                             (0 if rtn or not any(o.optional for o in inst.operands) else 1)] == "off" \
                and "off" == ops[-1]:
            ops[-1] = "s7"
        mods = []
        if "offset" in inst.modifiers:
            mods.append(["", "offset:4095" if enc == "FLAT" else "offset:-4096", "offset:16", "offset:4095",
                         "offset:-1" if enc != "FLAT" else "offset:1", "offset:2048"][i])
        if rtn or i == 1:
            mods.append("sc0")
        if i in (2, 4) and "nt" in inst.modifiers:
            mods.append("nt")
        if i in (2, 5) and "sc1" in inst.modifiers:
            mods.append("sc1")
        text = inst.mnemonic + (" " + ", ".join(ops) if ops else "")
        out.append(" ".join(x for x in [text, *mods] if x))
    return out


def buf_forms(inst) -> list[str]:
    out = []
    for i in range(6):
        ops = []
        mods = []
        mode = i % 4  # 0 off, 1 offen, 2 idxen, 3 both
        for op in inst.operands:
            if op.name == "vdata":
                ops.append(_data(op, i, 6) if not (i % 3 == 2) else _data(op, 2, 6))
            elif op.name == "vaddr":
                ops.append(["off", "v1", "v255", "v[2:3]"][mode])
            elif op.name == "srsrc":
                ops.append(["s[4:7]", "s[96:99]", "ttmp[4:7]", "s[8:11]"][i % 4])
            elif op.name == "soffset":
                ops.append(["s8", "0", "m0", "64", "-1", "s101"][i])
        if inst.encoding == "MTBUF":
            mods.append(["format:[BUF_DATA_FORMAT_32,BUF_NUM_FORMAT_FLOAT]", "", "format:[BUF_NUM_FORMAT_SINT]",
                         "format:[BUF_DATA_FORMAT_8_8_8_8]", "format:[BUF_DATA_FORMAT_INVALID]", "format:22"][i])
        if "idxen" in inst.modifiers and mode in (2, 3):
            mods.append("idxen")
        if "offen" in inst.modifiers and mode in (1, 3):
            mods.append("offen")
        if "offset" in inst.modifiers:
            mods.append(["offset:4095", "", "offset:1", "offset:256", "", "offset:8"][i])
        for m, on in (("sc0", i in (1, 4)), ("nt", i in (2, 5)), ("sc1", i in (3, 4))):
            if m in inst.modifiers and on:
                mods.append(m)
        text = inst.mnemonic + (" " + ", ".join(ops) if ops else "")
        out.append(" ".join(x for x in [text, *mods] if x))
        if "lds" in inst.modifiers and i < 2:
            ops2 = [o for o, od in zip(ops, inst.operands) if od.name != "vdata"]
            out.append(" ".join(x for x in [inst.mnemonic + " " + ", ".join(ops2), *mods, "lds"] if x))
    return out


def forms() -> list[str]:
    out = []
    for inst in table.instructions():
        if inst.encoding == "DS":
            out.extend(ds_forms(inst))
        elif inst.encoding in ("FLAT", "GLOBAL", "SCRATCH"):
            out.extend(flat_forms(inst))
        elif inst.encoding in ("MUBUF", "MTBUF"):
            out.extend(buf_forms(inst))
    return out
