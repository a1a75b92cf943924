"""Atomics run from the table's facts: every atomic of the gfx942 and gfx950 tables that the
emulator claims (``decode.bind`` finds a handler) gets an operation, with its value type from
the data operand's ``optype`` (tools/isa_gen/facts.atomic_optype) and a width that agrees with
the register widths LLVM 22 gives its operands; the DS atomics it does not implement are not
claimed, so they report "not implemented" when they run instead of a wrong result."""

from __future__ import annotations

import numpy as np
import pytest

from gcnforge.emulator import decode, ops_mem
from gcnforge.emulator.core import WaveFault
from gcnforge.isa import table

_TWO_VALUE = ("cmpswap",)  # FLAT / MUBUF / SMEM: vdata = {src, cmp}; DS uses data0 and data1


def _atomics(target: str):
    for inst in table.instructions(target):
        name = inst.base
        if "atomic" in name or (name.startswith("ds_") and any(o.optype for o in inst.operands)):
            yield inst


def _claimed(inst, target: str) -> bool:
    """Whether the emulator binds a handler to ``inst`` (as ``decode.bind`` looks one up)."""
    from gcnforge.emulator import ops_mfma, ops_smem

    b = inst.base
    return bool(decode.handlers(target).get(b) or ops_mem.lookup_mem(b) or ops_mfma.lookup(b)
                or ops_smem.lookup_scalar(b))


@pytest.mark.parametrize("target", ["gfx942", "gfx950"])
def test_every_claimed_table_atomic_has_an_operation_of_the_tables_type(target):
    seen, unclaimed = 0, set()
    for inst in _atomics(target):
        if not _claimed(inst, target):
            unclaimed.add(inst.base)
            continue
        fn, dt, n = ops_mem.atomic_fn(inst)  # raises WaveFault "not implemented" otherwise
        seen += 1
        by_name = {o.name: o for o in inst.operands}
        data = by_name.get("vdata") or by_name.get("data0") or by_name.get("sdata")
        k = 2 if ops_mem.atomic_operation(inst.base) in _TWO_VALUE else 1
        assert data.dwords == k * n // 4, (inst.mnemonic, data.dwords, n)
        for o in inst.operands:
            if o.name in ("vdst", "data1"):
                assert o.dwords == n // 4 and o.optype == data.optype, (inst.mnemonic, o)
        assert np.dtype(dt).itemsize == n
    # all but six DS atomics (gfx950 adds buffer_atomic_pk_add_bf16)
    assert seen == (225 if target == "gfx942" else 226)
    assert unclaimed == {"ds_wrxchg2_rtn_b32", "ds_wrxchg2_rtn_b64", "ds_wrxchg2st64_rtn_b32",
                         "ds_wrxchg2st64_rtn_b64", "ds_wrap_rtn_b32", "ds_condxchg32_rtn_b64"}


@pytest.mark.parametrize("target", ["gfx942", "gfx950"])
def test_flat_buffer_and_scalar_atomics_are_all_claimed(target):
    for inst in _atomics(target):
        if "atomic" in inst.base:
            assert _claimed(inst, target), inst.mnemonic


def test_signedness_and_float_come_from_the_type():
    def run(mnemonic, old, src):
        fn, dt, _ = ops_mem.atomic_fn(table.by_mnemonic(mnemonic))
        o, s = np.array([old]).astype(dt), np.array([src]).astype(dt)
        return fn(o, s, s)[0]

    assert run("global_atomic_smin", -1, 1) == -1 and run("global_atomic_umin", 0xFFFFFFFF, 1) == 1
    assert run("ds_min_i32", -1, 1) == -1 and run("ds_min_u32", 0xFFFFFFFF, 1) == 1
    assert run("ds_min_f32", np.nan, 2.5) == 2.5 and run("global_atomic_add_f64", 0.5, 0.25) == 0.75
    assert run("s_atomic_smax_x2", -(1 << 40), -5) == -5


def test_unimplemented_ds_atomic_is_not_claimed():
    inst = table.by_mnemonic("ds_wrap_rtn_b32")
    assert inst is not None and ops_mem.lookup_mem(inst.base) is None
    with pytest.raises(WaveFault, match="not implemented"):
        ops_mem.atomic_fn(inst)
