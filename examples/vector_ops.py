"""Vector add (``c = a + b``) and copy (``c = a``) over n f32 elements, one element per
work-item, in two flavours of memory access:

* ``mode="global"``: ``global_load_dword`` / ``global_store_dword`` with a 64-bit SGPR base
  and a 32-bit VGPR offset; the tail (n not a multiple of the work-group) is handled by EXEC
  masking: ``v_cmp_gt_u32`` (n > gid) then ``s_and_saveexec_b64``, and EXEC restored after;
* ``mode="buffer"``: MUBUF ``buffer_load_dword`` / ``buffer_store_dword ... offen`` through a
  buffer resource descriptor built in four SGPRs whose ``num_records`` is ``4 * n`` bytes:
  out-of-range lanes read 0 and their stores are dropped, so the tail needs no mask at all.

grid = ceil(n / block); ``n`` is a kernel argument.
"""

from __future__ import annotations

from gcnforge.builder import Arg, Module
from gcnforge.lib import lane_mask_lt, make_buffer_rsrc, masked


def build(op: str = "add", mode: str = "global", block: int = 256, name: str | None = None) -> Module:
    if op not in ("add", "copy") or mode not in ("global", "buffer"):
        raise ValueError("op is add or copy, mode is global or buffer")
    name = name or f"vector_{op}_{mode}"
    m = Module(name)
    ins = [Arg.ptr("a", access="read_only")] + ([Arg.ptr("b", access="read_only")] if op == "add" else [])
    args = [*ins, Arg.ptr("c", access="write_only"), Arg.value("n")]
    with m.kernel(name, args, workgroup_size=(block, 1, 1)) as k:
        *srcs, c, n = k.args()
        first = k.s_mul_i32(k.block_id("x"), k.s_mov_b32(block))
        gid = k.v_add_u32(first, k.thread_id("x"))
        off = k.v_lshlrev_b32(2, gid)
        if mode == "global":
            with masked(k, lane_mask_lt(k, gid, n)):
                loaded = [k.global_load_dword(off, p) for p in srcs]
                k.wait(*[t for _, t in loaded])
                v = loaded[0][0] if op == "copy" else k.v_add_f32(loaded[0][0], loaded[1][0])
                k.global_store_dword(off, v, c)
        else:
            nbytes = k.s_lshl_b32(n, 2)
            rs = [make_buffer_rsrc(k, p, nbytes) for p in srcs]
            loaded = [k.buffer_load_dword(off, r, 0, offen=True) for r in rs]
            k.wait(*[t for _, t in loaded])
            v = loaded[0][0] if op == "copy" else k.v_add_f32(loaded[0][0], loaded[1][0])
            k.buffer_store_dword(v, off, make_buffer_rsrc(k, c, nbytes), 0, offen=True)
        k.s_endpgm()
    m.verify()
    return m


if __name__ == "__main__":
    print(build())
