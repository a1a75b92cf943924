"""Three kernels in two modules: `gcnforge compile` puts them all in one code object."""

from gcnforge.builder import Arg, Module

first = Module("first")
with first.kernel("fill", [Arg.ptr("out", access="write_only"), Arg.value("v")], workgroup_size=(64, 1, 1)) as k:
    out, v = k.args()
    off = k.v_lshlrev_b32(2, k.thread_id("x"))
    k.global_store_dword(off, k.v_mov_b32(v), out)
    k.s_endpgm()
with first.kernel("copy", [Arg.ptr("src", access="read_only"), Arg.ptr("dst", access="write_only")],
                  workgroup_size=(64, 1, 1)) as k:
    src, dst = k.args()
    off = k.v_lshlrev_b32(2, k.thread_id("x"))
    x, t = k.global_load_dword(off, src)
    k.wait(t)
    k.global_store_dword(off, x, dst)
    k.s_endpgm()

second = Module("second")
with second.kernel("iota", [Arg.ptr("out", access="write_only")], workgroup_size=(64, 1, 1)) as k:
    (out,) = k.args()
    tid = k.thread_id("x")
    k.global_store_dword(k.v_lshlrev_b32(2, tid), tid, out)
    k.s_endpgm()
