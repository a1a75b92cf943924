"""One decoded instruction -> one ``amdgcn`` instruction op on pinned registers.

Operands come from ``DecodedInst.operands`` (matched to the ISA table's slots by name);
register operands become values of allocated types (``!amdgcn.vgpr<[8 : 12]>``, one
``amdgcn.alloca`` per register tuple, made by ``Pins``); inline constants become
``arith.constant`` of the type their encoding names (integer codes 128-208 as ``i32``,
float codes 240-248 as ``f32``: AMD Instinct MI300 ISA Reference Guide, 12.x "Scalar/Vector
source operand" table); literals become ``i32`` constants of their 32-bit pattern.
Modifiers map from the codec's field values to the table's modifier names.

Every op is checked: the dialect verifier, and the op printed back (``target.inst_text``)
and re-encoded at its pc must give the original bytes. Anything that fails stays exact as a
``lift.inst`` (its LLVM text), see ``gcnforge.dialect.raw_ops``.
"""

from __future__ import annotations

from xdsl.dialects.builtin import Float32Type, FloatAttr, IntegerAttr, StringAttr, i32
from xdsl.ir import Block, Operation, SSAValue
from xdsl.utils.exceptions import VerifyException

from gcnforge.asm import DecodedInst, parse_instruction
from gcnforge.diagnostics import Diagnostic, SourceLoc
from gcnforge.dialect.constant import ConstantOp
from gcnforge.isa import inline
from gcnforge.dialect import isa_info
from gcnforge.dialect.attrs import RELEASE_ATTR
from gcnforge.dialect.inst_ops import FAMILY_OPS
from gcnforge.dialect.structure_ops import AllocaOp
from gcnforge.dialect.types import FILE_LIMIT, REGISTER_TYPES, SPECIAL_WIDTH, SpecialRegType
from gcnforge.dialect.raw_ops import RawInstOp
from gcnforge.translate.inst_text import inst_text

# SDWA selects (ISA guide 12.x "SDWA"): SEL and DST_UNUSED enumerations, LLVM's names.
_SEL = ("BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD")
_UNUSED = ("UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE")
_FLAGS = ("sc0", "sc1", "nt", "glc", "slc", "offen", "idxen", "lds", "gds", "clamp", "tfe", "bound_ctrl")


class Pins:
    """One ``amdgcn.alloca`` of an allocated type per register tuple or special register,
    placed at the top of the kernel's entry block; constants likewise (one per value)."""

    def __init__(self, entry: Block):
        self.entry = entry
        self.values: dict[object, SSAValue] = {}
        self.ops: list[Operation] = []

    def _add(self, op: Operation) -> SSAValue:
        self.ops.append(op)
        return op.results[0]

    def place(self) -> None:
        """Put the pins at the top of the entry block (call once, after raising the code)."""
        first = self.entry.first_op
        if first is None:
            self.entry.add_ops(self.ops)
        else:
            self.entry.insert_ops_before(self.ops, first)
        self.ops = []

    def reg(self, file: str, index: int, dwords: int) -> SSAValue | None:
        if file in REGISTER_TYPES:
            if index + dwords > FILE_LIMIT[file] or REGISTER_TYPES[file].problem_of(index, dwords) is not None:
                return None
            key = (file, index, dwords)
            if key not in self.values:
                self.values[key] = self._add(AllocaOp(REGISTER_TYPES[file].allocated(index, dwords)))
            return self.values[key]
        if file in SPECIAL_WIDTH and SPECIAL_WIDTH[file] == dwords:
            if file not in self.values:
                self.values[file] = self._add(AllocaOp(SpecialRegType.get(file)))
            return self.values[file]
        return None

    def const(self, value: int | float) -> SSAValue:
        key = ("const", type(value), value)
        if key not in self.values:
            attr = FloatAttr(value, Float32Type()) if isinstance(value, float) else IntegerAttr(value, i32)
            self.values[key] = self._add(ConstantOp(attr))
        return self.values[key]


def _bits(v: int, n: int) -> list[int]:
    return [(v >> i) & 1 for i in range(n)]


def _nsrc(inst) -> int:
    return sum(1 for o in inst.operands if o.name in ("src0", "src1", "src2", "vsrc1") and o.kind != "special")


def modifiers(di: DecodedInst) -> dict[str, object] | None:
    """The table's modifiers of ``di`` with their values, or None when one is not understood."""
    inst = di.inst
    dm = di.modifiers
    f = di.fields
    out: dict[str, object] = {}
    n = 3 if inst.base.startswith("v_cvt_sr_") else _nsrc(inst)
    slot_names = {o.name for o in inst.operands}
    for name in inst.modifiers:
        if name in slot_names:
            continue  # SMEM's offset is an operand, not a modifier
        if name[:3] in ("neg", "abs") and name[3:].isdigit():
            bit = (dm.get(name[:3], f.get(name[:3], 0)) >> int(name[3:])) & 1
            if bit:
                out[name] = True
        elif name == "neg" and inst.encoding.startswith("VOP3P") and "blgp" in f:
            # DGEMM (f64 MFMA) negation: neg:[a,b,c] is encoded in the BLGP field
            # (llvm-mc: v_mfma_f64_16x16x4_f64 ... neg:[1,0,1] sets blgp = 5)
            v = dm.get("blgp", f.get("blgp", 0))
            if v:
                out[name] = _bits(v, 3)
        elif name in ("op_sel", "op_sel_hi", "neg_lo", "neg_hi"):
            key = "neg" if name == "neg_lo" else name
            v = dm.get(key, f.get(key, 0))
            width = n
            if name == "op_sel" and inst.encoding in ("VOP3A", "VOP3B", "VOP3"):
                # VOP3 op_sel: one bit per source, then the destination's (bit 3)
                v = (v & ((1 << n) - 1)) | (((v >> 3) & 1) << n)
                width = n + 1
            if name == "op_sel_hi":
                v |= (dm.get("op_sel_hi2", 0) & 1) << 2 if "op_sel_hi2" in dm else 0
                if v == (1 << width) - 1:
                    continue
                out[name] = _bits(v, width)
            elif v:
                out[name] = _bits(v, width)
        elif name in ("dst_sel", "src0_sel", "src1_sel"):
            v = dm.get(name, f.get(name, 6))  # written even when DWORD, as LLVM prints them
            if not 0 <= v < len(_SEL):
                return None
            out[name] = _SEL[v]
        elif name == "dst_unused":
            v = dm.get(name, f.get(name, 0))
            if not 0 <= v < len(_UNUSED):
                return None
            out[name] = _UNUSED[v]
        elif name in ("sext0", "sext1"):
            v = (dm.get("sext", f.get("sext", 0)) >> int(name[-1])) & 1 if name not in dm else dm[name]
            if v:
                out[name] = True
        elif name in _FLAGS:
            if dm.get(name, f.get(name, 0)):
                out[name] = True
        else:
            v = dm.get(name, f.get(name))
            if v is None:
                if name in ("row_mask", "bank_mask"):
                    continue
                return None
            if name in ("row_mask", "bank_mask"):
                out[name] = v
            elif v:
                out[name] = v
    return out


def _const_operand(di: DecodedInst, o, v) -> int | float | None:
    if v.literal or o.kind == "smem_offset":  # an SMEM offset field is the byte offset itself, not a
        return v.value                        # source code (0x80 is 128 bytes, not inline 0)
    code = di.fields.get(o.field or o.name) if (o.field or o.name) in di.fields else None
    if code is None:
        return v.value
    if inline.code_int(code) is not None:
        return inline.code_int(code)
    if code in inline.FLOAT_CODES:
        return inline.FLOAT_CODES[code]
    return v.value


def instruction_op(di: DecodedInst, pc: int, pins: Pins) -> Operation | None:
    """The ``amdgcn`` op for ``di`` (not a branch), or None when it has no faithful form."""
    if di.inst is None:
        return None
    inf = isa_info.info(di.inst.mnemonic)
    if inf is None or inf.family not in FAMILY_OPS:
        return None
    by_name = {v.name: v for v in di.operands}
    args: list[SSAValue] = []
    off: list[int] = []
    for i, s in enumerate(inf.ssa_slots):
        v = by_name.get(s.name)
        if v is None and s.may_be_off and s.is_def:
            # a destination the encoding leaves out (a non-returning atomic's vdst, the vdata of
            # an LDS DMA load: ``buffer_load_dword v1, s[4:7], 0 offen lds``)
            off.append(i)
            continue
        if v is None:
            return None
        if v.file == "off":
            if not s.may_be_off:
                return None
            off.append(i)
        elif v.file is not None:
            r = pins.reg(v.file, v.index, v.dwords)
            if r is None:
                return None
            args.append(r)
        else:
            c = _const_operand(di, s.operand, v)
            if c is None:
                return None
            if isinstance(c, int) and not -(1 << 31) <= c < (1 << 32):
                return None
            if isinstance(c, int) and c >= 1 << 31:
                c -= 1 << 32
            args.append(pins.const(c))
    imms = []
    for s in inf.imm_slots:
        v = by_name.get(s.name)
        if v is None or v.value is None:
            return None
        imms.append(v.value)
    mods = modifiers(di)
    if mods is None:
        return None
    try:
        op = FAMILY_OPS[inf.family](di.inst.mnemonic, args, imms=imms, off=off, mods=mods)
        if di.inst.mnemonic == "s_barrier":  # raised code orders memory as it was written:
            op.attributes[RELEASE_ATTR] = StringAttr("none")  # the wait pass adds no release
        op.verify()
    except (VerifyException, TypeError, ValueError):
        return None
    return op


def encodes_back(op: Operation, pc: int, original: bytes) -> bool:
    """Whether the op, printed as assembly and assembled at ``pc``, gives ``original``."""
    try:
        text = inst_text(op)
        p = parse_instruction(text, SourceLoc("<lift>", 1, 1))
        return p.encode(pc, lambda _l: 0) == original
    except Diagnostic:
        return False


def raw_op(di: DecodedInst, pc: int, pins: Pins, original: bytes) -> RawInstOp:
    regs = []
    for v in di.operands:
        if v.file is not None and v.file != "off":
            r = pins.reg(v.file, v.index, v.dwords)
            if r is not None and r not in regs:
                regs.append(r)
    op = RawInstOp(di.text(pc), regs, pc)
    try:
        same = parse_instruction(op.text.data, SourceLoc("<lift>", 1, 1)).encode(pc, lambda _l: 0) == original
    except Diagnostic:
        same = False
    if not same:
        # the text does not assemble back to these bytes (a literal LLVM prints like an inline
        # constant: 0xffffffff): keep the encoding, emitted as words
        op.attributes["encoding"] = StringAttr(original.hex())
    return op
