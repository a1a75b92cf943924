"""c[tid] = sum over i < n of a[i * 64 + tid]: a loop whose accumulator, address and counter
are storage registers written in place each iteration; the wait inside the loop is a token."""

from gcnforge.builder import Arg, Module

m = Module("loop_sum")
with m.kernel("loop_sum", [Arg.ptr("a", access="read_only"), Arg.ptr("c", access="write_only"), Arg.value("n")],
              workgroup_size=(64, 1, 1)) as k:
    a, c, n = k.args()
    off = k.v_lshlrev_b32(2, k.thread_id("x"))
    acc = k.vgpr()
    k.v_mov_b32(acc, 0)
    i = k.sgpr()
    k.s_mov_b32(i, 0)
    addr = k.vgpr()
    k.v_mov_b32(addr, off)
    body, done = k.new_block(), k.new_block()
    k.branch("s_branch", body)
    k.set_block(body)
    x, t = k.global_load_dword(addr, a)
    k.wait(t)
    k.v_add_f32(acc, acc, x)
    k.v_add_u32(addr, 256, addr)
    k.s_add_u32(i, i, 1)
    k.s_cmp_lt_u32(i, n)
    k.branch("s_cbranch_scc1", body, done)
    k.set_block(done)
    k.global_store_dword(off, acc, c)
    k.s_endpgm()
