"""Register naming and operand roles shared by the sanitizer's parts."""

from __future__ import annotations

NS = 128  # scalar register space; VGPR/AGPR ids start here


def _reg_slots(op, accum_offset):
    """Flat register ids of an operand: SGPR space 0..127, VGPRs from NS."""
    if op.kind == "s":
        return list(range(op.index, op.index + op.dwords))
    if op.kind == "v":
        return [NS + op.index + i for i in range(op.dwords)]
    if op.kind == "a":
        return [NS + accum_offset + op.index + i for i in range(op.dwords)]
    return []


def operand_roles(ins):
    """(defs, uses) as lists of operand indices, from the ISA table when it matches the
    printed operands, else from the instruction's family."""
    try:
        from gcnforge.isa import table

        inst = table.by_mnemonic(ins.mnemonic)
    except Exception:  # pragma: no cover - the table is part of gcnforge
        inst = None
    n = len(ins.ops)
    b = ins.base
    if inst is not None and len(inst.operands) == n:
        defs = [i for i, o in enumerate(inst.operands) if o.role.value in ("def", "defuse")]
        uses = [i for i, o in enumerate(inst.operands) if o.role.value in ("use", "defuse")]
        return defs, uses
    stores = b.startswith(("global_store", "flat_store", "scratch_store", "buffer_store", "ds_write", "s_store")) \
        or "_lds_" in b or (b.startswith("buffer_load") and "lds" in ins.mods)
    atomic_rtn = ("sc0" in ins.mods or "glc" in ins.mods or "_rtn_" in b) and "atomic" in b or b.startswith("ds_") and "_rtn_" in b
    if stores or ("atomic" in b and not atomic_rtn) or b.startswith(("s_cmp", "s_bitcmp", "s_cbranch", "s_branch")):
        return [], list(range(n))
    if b in ("v_add_co_u32", "v_sub_co_u32", "v_subrev_co_u32", "v_mad_u64_u32", "v_mad_i64_i32") \
            or b.startswith(("v_div_scale", "v_addc_co", "v_subb_co", "v_subbrev_co")):
        return [0, 1], list(range(2, n))
    if b.startswith(("v_mac_", "v_fmac_", "v_dot2c", "v_dot4c", "v_dot8c")):
        return [0], list(range(n))
    return ([0], list(range(1, n))) if n else ([], [])


_LEFTWARD = {"v_mad_u64_u32", "v_mad_i64_i32", "v_lshl_add_u64", "v_lshlrev_b64", "v_mov_b64", "v_add_co_u32",
             "v_addc_co_u32"}


def _lo_operands(ins):
    """Source operand indices of a _LEFTWARD instruction (all sources; only low dwords count)."""
    defs, uses = operand_roles(ins)
    return [i for i in uses if ins.ops[i].kind in ("v", "a", "s")]


def _name(r, accum_offset):
    if r < NS:
        from gcnforge.asm.operands import M0, SPECIAL32, TTMP_BASE  # the operand names' one home

        return SPECIAL32.get(r, f"ttmp{r - TTMP_BASE}" if TTMP_BASE <= r < M0 else f"s{r}")
    v = r - NS
    return f"v{v}" if v < accum_offset else f"a{v - accum_offset}"
