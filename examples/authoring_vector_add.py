"""README example: c[i] = a[i] + b[i] written with gcnforge's authoring API.

``build(pinned=False)`` names no physical register: every definition is a fresh SSA
value and register allocation (a later pass) places them. ``build(pinned=True)`` is the
same kernel with two registers chosen by hand: the sum goes to v10 and the byte offset to
v1 (``k.vgpr(10)`` is ``amdgcn.alloca : !amdgcn.vgpr<10>``); the allocator works around them.

Run ``python examples/authoring_vector_add.py [--pinned]`` to print it as ``amdgcn`` IR; the
output parses back with ``gcnforge-opt`` (see ``test/builder/vector_add.py``).
"""

import numpy as np

from gcnforge.builder import Arg, Module

WAVE = 64


def build(pinned: bool = False) -> Module:
    m = Module("vector_add")
    f32 = np.float32  # element type: written into the metadata, checked at every launch
    args = [Arg.ptr("a", f32, access="read_only"), Arg.ptr("b", f32, access="read_only"),
            Arg.ptr("c", f32, access="write_only")]
    with m.kernel("vector_add", args, workgroup_size=(WAVE, 1, 1)) as k:
        a, b, c = k.args()  # three SGPR pairs, loaded from the kernarg segment
        tid = k.thread_id("x")  # VGPR: lane id within the work-group
        first = k.s_lshl_b32(k.block_id("x"), WAVE.bit_length() - 1)  # SGPR: block * 64
        gid = k.v_add_u32(first, tid).named("gid")  # global work-item id
        if pinned:
            off = k.v_lshlrev_b32(k.vgpr(1), 2, gid)  # destination-passing: write v1
        else:
            off = k.v_lshlrev_b32(2, gid)  # fresh value: byte offset = gid * 4
        off.named("off")
        x, tx = k.global_load_dword(off, a)  # saddr + 32-bit vaddr offset
        y, ty = k.global_load_dword(off, b)
        k.wait(tx, ty)  # becomes s_waitcnt vmcnt(0) in the wait pass
        s = (k.v_add_f32(k.vgpr(10), x, y) if pinned else k.v_add_f32(x, y)).named("sum")
        k.global_store_dword(off, s, c)
        k.s_endpgm()
    m.verify()
    return m


if __name__ == "__main__":
    import sys

    print(build(pinned="--pinned" in sys.argv[1:]), end="")
