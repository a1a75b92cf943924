"""The table loader API and the facts attached to scalar/memory rows."""

from __future__ import annotations

from collections import Counter

from gcnforge.isa import table
from gcnforge.isa.encodings import ENCODINGS
from gcnforge.isa.schema import Counter as Cnt, OperandKind, Role
from gcnforge.isa.semantics import SemClass
from gcnforge.isa.target import TARGETS, target


def test_lookup_api():
    i = table.by_mnemonic("s_load_dwordx4")
    assert i is not None and i.encoding == "SMEM" and i.opcode == 2
    assert table.by_opcode("SMEM", 2) is i
    assert table.by_mnemonic("no_such_inst") is None
    assert i in table.variants("s_load_dwordx4")
    assert table.encodings() is ENCODINGS
    assert len(table.instructions()) == len({(x.encoding, x.opcode, x.mnemonic) for x in table.instructions()})


def test_scalar_memory_coverage():
    per = Counter(i.encoding for i in table.instructions())
    # every encoding of the scalar and memory families is populated
    for enc in ("SOP1", "SOP2", "SOPK", "SOPC", "SOPP", "SMEM", "DS", "FLAT", "GLOBAL", "SCRATCH", "MUBUF", "MTBUF"):
        assert per[enc] > 0, enc
    assert per["SOPP"] >= 30 and per["DS"] >= 100 and per["MUBUF"] >= 60


def test_operand_facts():
    ld = table.by_mnemonic("s_load_dwordx4")
    assert [(o.name, o.kind, o.dwords, o.role) for o in ld.operands] == [
        ("sdata", OperandKind.SREG, 4, Role.DEF), ("sbase", OperandKind.SREG, 2, Role.USE),
        ("offset", OperandKind.SMEM_OFFSET, 1, Role.USE)]
    assert ld.counter == (Cnt.LGKMCNT,) and ld.sem == SemClass.SMEM
    add = table.by_mnemonic("s_addc_u32")
    assert "scc" in add.implicit_uses and "scc" in add.implicit_defs and add.sem == SemClass.SALU
    assert table.by_mnemonic("s_cbranch_vccz").implicit_uses == ("vcc",)
    assert table.by_mnemonic("s_branch").sem == SemClass.BRANCH
    assert table.by_mnemonic("s_waitcnt").sem == SemClass.WAITCNT
    assert table.by_mnemonic("s_barrier").sem == SemClass.CONTROL
    assert table.by_mnemonic("s_sendmsg").counter == (Cnt.LGKMCNT,)
    g = table.by_mnemonic("global_load_dwordx2")
    assert g.counter == (Cnt.VMCNT,) and g.sem == SemClass.VMEM_LOAD
    assert table.by_mnemonic("flat_store_dword").counter == (Cnt.VMCNT, Cnt.LGKMCNT)
    assert table.by_mnemonic("ds_read_b128").sem == SemClass.LDS
    assert table.by_mnemonic("buffer_atomic_add").sem == SemClass.VMEM_ATOMIC
    assert table.by_mnemonic("global_store_dword").sem == SemClass.VMEM_STORE


def test_target_facts():
    t = target("gfx942:sramecc+:xnack-")
    assert t is TARGETS["gfx942"]
    assert (t.sgprs, t.vgprs, t.lds_bytes, t.wave_size, t.cu_count) == (102, 512, 65536, 64, 304)
