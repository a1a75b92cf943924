"""``amdgcn-lower-abi``: turn a kernel's abstract ABI ops into registers and loads.

* ``amdgcn.load_arg i`` -> ``s_load_dword{,x2,x4,x8,x16}`` from the kernarg segment
  pointer (a pinned SGPR pair), at the argument's offset in the kernarg segment (each
  argument aligned to its ``align``: AMDGPUUsage "Kernel Argument Layout"); all loads go to
  the top of the entry block followed by one ``s_waitcnt lgkmcnt(0)``.
* ``amdgcn.thread_id d`` -> the preloaded work-item ids in v0: gfx90a+ packs x, y, z in
  bits [9:0], [19:10], [29:20] (LLVM ``FeaturePackedTID``), so ``v_bfe_u32 v, v0, 10*d, 10``;
  when the workgroup size says y and z are 1, x is v0 itself.
* ``amdgcn.block_id d`` -> the preloaded system SGPR ``workgroup_id_d`` (pinned; system SGPRs
  follow the user SGPRs, in the order x, y, z).
* ``amdgcn.lds_alloc`` -> its byte offset as a constant (allocations laid out in program
  order at their alignment); the kernel's ``lds_size`` covers them.

Pre: none. Post: no ``load_arg`` / ``thread_id`` / ``block_id`` / ``lds_alloc`` remain;
the kernel's ``user_sgprs``, ``system_sgprs`` and ``system_vgprs`` name the preloads the code
now reads, which ``target`` turns into ``.amdhsa_*`` directives.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, ModuleOp, StringAttr, i32
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from gcnforge.diagnostics import Diagnostic
from gcnforge.isa.target import USER_SGPRS
from gcnforge.dialect.constant import ConstantOp
from gcnforge.dialect.inst_ops import FAMILY_OPS
from gcnforge.dialect.source import copy_loc
from gcnforge.dialect.structure_ops import AllocaOp, BlockIdOp, KernelOp, LdsAllocOp, LoadArgOp, ThreadIdOp
from gcnforge.dialect.types import SGPRType, VGPRType
from gcnforge.dialect.value_ops import lds_bytes, module_target

SMEM_LOAD = {1: "s_load_dword", 2: "s_load_dwordx2", 4: "s_load_dwordx4", 8: "s_load_dwordx8", 16: "s_load_dwordx16"}
USER_ORDER = tuple(USER_SGPRS)  # LLVM's order of user SGPRs
WAITCNT_LGKM0 = 0xC07F  # s_waitcnt lgkmcnt(0): vmcnt 63, expcnt 7 left open (gfx9 simm16 layout)


def kernarg_offsets(kernel: KernelOp) -> list[int]:
    off, out = 0, []
    for a in kernel.kernel_args:
        al = a.align.data
        off = -(-off // al) * al
        out.append(off)
        off += a.size.data
    return out


def _names(attr) -> list[str]:
    return [s.data for s in attr.data] if attr is not None else []


def user_sgpr_index(kernel: KernelOp, name: str) -> int:
    """First SGPR of preloaded user SGPR ``name`` (user SGPRs are packed in LLVM's order)."""
    have = set(_names(kernel.user_sgprs))
    at = 0
    for n in USER_ORDER:
        if n == name:
            return at
        if n in have:
            at += USER_SGPRS[n]
    raise KeyError(name)


def user_sgpr_count(kernel: KernelOp) -> int:
    return sum(USER_SGPRS[n] for n in _names(kernel.user_sgprs))


def _cst(v: int, before: Operation) -> Operation:
    c = ConstantOp.from_int_and_width(v, 32)
    before.parent_block().insert_op_before(c, before)
    return c


def lower_kernel(k: KernelOp) -> None:
    ops = [op for op in k.walk() if isinstance(op, LoadArgOp | ThreadIdOp | BlockIdOp | LdsAllocOp)]
    if not ops:
        return
    entry = k.body.blocks[0]
    first = entry.first_op
    user = _names(k.user_sgprs)
    system = _names(k.system_sgprs)
    vgprs = _names(k.system_vgprs)
    loads = [op for op in ops if isinstance(op, LoadArgOp)]
    if loads and "kernarg_segment_ptr" not in user:
        user.append("kernarg_segment_ptr")
    for op in ops:
        if isinstance(op, BlockIdOp) and f"workgroup_id_{op.dim.data}" not in system:
            system.append(f"workgroup_id_{op.dim.data}")
        if isinstance(op, ThreadIdOp):
            for d in "xyz"[: "xyz".index(op.dim.data) + 1]:
                if f"workitem_id_{d}" not in vgprs:
                    vgprs.append(f"workitem_id_{d}")
    user = [n for n in USER_ORDER if n in user]
    system = [n for n in ("workgroup_id_x", "workgroup_id_y", "workgroup_id_z", "workgroup_info",
                          "private_segment_wavefront_offset") if n in system]
    k.attributes["user_sgprs"] = ArrayAttr([StringAttr(s) for s in user])
    if system:
        k.attributes["system_sgprs"] = ArrayAttr([StringAttr(s) for s in system])
    if vgprs:
        k.attributes["system_vgprs"] = ArrayAttr([StringAttr(s) for s in sorted(vgprs)])
    nuser = user_sgpr_count(k)

    # kernel arguments: one s_load each at the top, then one wait
    if loads:
        kp = AllocaOp(SGPRType.allocated(user_sgpr_index(k, "kernarg_segment_ptr"), 2))
        entry.insert_op_before(kp, first)
        offsets = kernarg_offsets(k)
        last = kp
        for op in loads:
            t = op.result.type
            n = t.width
            if n not in SMEM_LOAD:
                raise Diagnostic(f"kernel argument {op.index.value.data} of {n} dwords: load it as a "
                                 "1, 2, 4, 8 or 16-dword value", op)
            off = offsets[op.index.value.data]
            dst = AllocaOp(t)
            c = ConstantOp.from_int_and_width(off, 32)
            ld = copy_loc(op, FAMILY_OPS["smem"](SMEM_LOAD[n], [dst.result, kp.result, c.result]))  # k.args()'s line
            entry.insert_ops_after([dst, c, ld], last)
            last = ld
            op.result.replace_all_uses_with(ld.outs[0])
            op.detach()
            op.erase()
        w = copy_loc(last, FAMILY_OPS["sopp"]("s_waitcnt", [], imms=[WAITCNT_LGKM0]))  # serves the loads
        entry.insert_op_after(w, last)

    v0 = None
    lds_at = 0
    ws = k.workgroup_size.get_values() if k.workgroup_size is not None else None
    for op in ops:
        if isinstance(op, LoadArgOp):
            continue
        if isinstance(op, ThreadIdOp):
            if v0 is None:
                v0 = AllocaOp(VGPRType.allocated(0))
                entry.insert_op_before(v0, entry.first_op)
            d = "xyz".index(op.dim.data)
            if d == 0 and ws is not None and tuple(ws[1:]) == (1, 1):
                op.result.replace_all_uses_with(v0.result)
            else:
                dst = AllocaOp(VGPRType.value())
                op.parent_block().insert_op_before(dst, op)
                sh, w10 = _cst(10 * d, op), _cst(10, op)
                bfe = FAMILY_OPS["vop3"]("v_bfe_u32", [dst.result, v0.result, sh.results[0], w10.results[0]])
                op.parent_block().insert_op_before(bfe, op)
                op.result.replace_all_uses_with(bfe.outs[0])
        elif isinstance(op, BlockIdOp):
            idx = nuser + system.index(f"workgroup_id_{op.dim.data}")
            a = AllocaOp(SGPRType.allocated(idx))
            entry.insert_op_before(a, entry.first_op)
            op.result.replace_all_uses_with(a.result)
        elif isinstance(op, LdsAllocOp):
            if op.offset is not None:
                off = op.offset.value.data
            else:
                al = op.align.value.data
                off = -(-lds_at // al) * al
            lds_at = max(lds_at, off + op.size.value.data)
            c = _cst(off, op)
            op.result.replace_all_uses_with(c.results[0])
        op.detach()
        op.erase()
    if lds_at:
        have = k.lds_size.value.data if k.lds_size is not None else 0
        if max(have, lds_at) > (limit := lds_bytes(k)):
            raise Diagnostic(f"LDS allocations need {lds_at} bytes; {module_target(k)} has {limit} per work-group",
                             k)
        k.attributes["lds_size"] = IntegerAttr(max(have, lds_at), i32)


@dataclass(frozen=True)
class LowerAbiPass(ModulePass):
    name = "amdgcn-lower-abi"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for k in list(op.walk()):
            if isinstance(k, KernelOp):
                lower_kernel(k)
