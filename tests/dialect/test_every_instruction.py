"""Every instruction of the ISA table, built through the authoring API, verifies, prints,
and parses back to the same text (custom and generic forms).

gfx942: the whole table. gfx950: the instructions gfx942 lacks or whose record differs (the
rest are the gfx942 records, built above) and the block-scaled MFMAs, which LLVM prints as one
instruction and the table holds as two records (``gcnforge.isa.scaled_mfma``)."""

from __future__ import annotations

import io

import pytest
from xdsl.parser import Parser
from xdsl.printer import Printer

from gcnforge.builder import Module
from gcnforge.dialect import context, isa_info
from gcnforge.dialect.inst_ops import InstOp
from gcnforge.isa import scaled_mfma, table


_VALU = {"vop1", "vop2", "vopc", "vop3", "vop3p", "mfma"}


def _operands(k, inf, with_dsts: bool):
    ops = []
    shared: dict[int, object] = {}  # VALU: one SGPR per width, so the constant bus holds
    for s in inf.ssa_slots:
        if s.is_def and s.operand.role != "defuse" and not with_dsts:
            continue
        n = isa_info.slot_dwords(inf, s, saddr_on=True)
        if s.files and inf.family in _VALU and not s.is_def and s.files[0] == "s":
            if "v" in s.files:
                ops.append(k.alloca("v", None, n))  # the bus may be taken (implicit VCC, a K literal)
            else:
                ops.append(shared.setdefault(n, k.alloca("s", None, n)))
        elif s.files:
            ops.append(k.alloca(s.files[0], None, n))
        else:
            ops.append(1)
    return ops


def _print(op, generic=False) -> str:
    s = io.StringIO()
    Printer(stream=s, print_generic_format=generic).print_op(op)
    return s.getvalue()


def _instructions(target: str):
    insts = [i for i in table.instructions(target) if isa_info.family_of(i) != "branch"]
    if target == "gfx942":
        return insts
    gfx942 = {i.mnemonic: i for i in table.instructions("gfx942")}
    # gfx950's additions and the records it changes (buffer_load_dwordx3/x4's LDS forms, ...)
    return [i for i in insts if gfx942.get(i.mnemonic) != i] + [scaled_mfma.record(n, target) for n in scaled_mfma.SCALED]


@pytest.fixture(scope="module", params=["gfx942", "gfx950"])
def built(request):
    target = request.param
    insts = _instructions(target)
    m = Module("every", target=target)
    with table.use_target(target):  # isa_info.info below reads the module's table
        with m.kernel("fresh") as k:
            for inst in insts:
                k.inst(inst.mnemonic, *_operands(k, isa_info.info(inst.mnemonic), False))
        with m.kernel("dps") as k:
            for inst in insts:
                inf = isa_info.info(inst.mnemonic)
                # an atomic given its vdst is the returning form: it needs sc0
                mods = {"sc0": True} if isa_info.optional_dst(inf) is not None else {}
                k.inst(inst.mnemonic, *_operands(k, inf, True), **mods)
    return insts, m


def test_table_is_covered(built):
    insts, m = built
    kinds = {op.mnemonic for op in m.top.walk() if isinstance(op, InstOp)}
    assert kinds == {i.mnemonic for i in insts}
    families = {isa_info.family_of(i) for i in insts}
    if m.target == "gfx942":
        assert len(insts) > 1000  # the whole gfx942 table, not a sample
        assert {"sop1", "sop2", "sopk", "sopc", "sopp", "smem", "vop1", "vop2", "vop3", "vopc", "mfma"} <= families
    else:  # every gfx950-only family, the scaled MFMAs among them
        assert {"ds", "global", "mubuf", "vop1", "vop2", "vop3", "vop3p", "mfma"} <= families
        assert set(scaled_mfma.SCALED) <= kinds


def test_every_instruction_verifies_and_round_trips(built):
    _, m = built
    m.verify()
    text = _print(m.top)
    again = Parser(context(), text).parse_module()
    again.verify()
    assert _print(again) == text


def test_generic_form_round_trips(built):
    # one kernel (every instruction, destination-passing form) keeps the test quick; the
    # custom-form test above already parses both kernels
    _, m = built
    dps = next(op for op in m.op.body.block.ops if op.sym_name.data == "dps")
    generic = _print(dps, generic=True)
    again = Parser(context(), generic).parse_module()
    assert _print(again.body.block.first_op, generic=True) == generic


def test_results_follow_destinations(built):
    _, m = built
    for op in m.top.walk():
        if isinstance(op, InstOp):
            with table.use_target(m.target):
                inf = op.info
            n_defs = len(set(inf.def_slots) - set(op.off_slots))
            assert len(op.outs) == n_defs + (1 if inf.token else 0), op.mnemonic
