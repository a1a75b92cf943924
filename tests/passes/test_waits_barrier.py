"""Barrier-safe waits (issue 24 item 4): the wait pass releases LDS before ``s_barrier`` as
LLVM's memory model does for a work-group-scope release. The oracle is clang 22: the line it
emits before ``s_barrier`` for fence(release, "workgroup") + s_barrier after a ds_write
(``s_waitcnt lgkmcnt(0)``), after a global store (nothing; with +tgsplit ``s_waitcnt
vmcnt(0)``, the ``release="global"`` case), and the emulator's sanitizer, which reports LDS
writes in flight at a barrier. Mistakes point at the author's line: a barrier left without its
wait (``mode=verify``), a read with no wait under ``mode=tokens``."""

from __future__ import annotations

import inspect
import subprocess

import numpy as np
import pytest

import gcnforge.runtime as rt
from gcnforge.binary import assemble
from gcnforge.builder import Arg, Module
from gcnforge.diagnostics import Diagnostic
from gcnforge.passes import pipeline as pl
from gcnforge.testing import require_llvm
from gcnforge.translate import to_assembly

CL = """
__kernel void lds(__global float* out) {
  __local float l[64];
  int t = __builtin_amdgcn_workitem_id_x();
  l[t] = out[t];
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
  out[t] = l[63 - t];
}
__kernel void glob(__global float* out, __global float* g) {
  int t = __builtin_amdgcn_workitem_id_x();
  g[t] = 1.0f;
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
  out[t] = g[63 - t];
}
"""


def _waits_before_barrier(asm: str, kernel: str) -> list[str]:
    """The s_waitcnt lines between the first s_barrier of ``kernel`` in a .s and the memory
    instruction before it (clang may hoist its wait above unrelated ALU code)."""
    lines = [ln.split(";")[0].strip() for ln in asm[asm.index(f"\n{kernel}:"):].splitlines()]
    ins = [ln for ln in lines if ln and not ln.startswith(".") and not ln.endswith(":")]
    out = []
    for ln in reversed(ins[:ins.index("s_barrier")]):
        if ln.startswith(("global_", "ds_", "buffer_", "flat_")):
            return out
        if ln.startswith("s_waitcnt"):
            out.insert(0, ln)
    return out


@pytest.fixture(scope="module")
def clang_asm(tmp_path_factory):
    tools = require_llvm("clang")
    d = tmp_path_factory.mktemp("cl")
    (d / "b.cl").write_text(CL)
    out = {}
    for name, extra in (("plain", []), ("tgsplit", ["-Xclang", "-target-feature", "-Xclang", "+tgsplit"])):
        r = subprocess.run([tools["clang"], "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx942", "-nogpulib",
                            "-O2", *extra, "-S", str(d / "b.cl"), "-o", "-"], check=True, capture_output=True, text=True)
        out[name] = r.stdout
    return out


def _lds_kernel(release: str | None) -> Module:
    """out[t] = out[63 - t] through LDS: a ds_write, a barrier, a ds_read of another lane's slot."""
    m = Module("lds")
    with m.kernel("lds", [Arg.ptr("out", np.float32)], workgroup_size=(64, 1, 1), lds_size=256) as k:
        (out,) = k.args()
        tid = k.thread_id("x")
        addr = k.v_lshlrev_b32(2, tid)
        v, t = k.global_load_dword(addr, out)
        k.wait(t)
        k.ds_write_b32(addr, v)
        if release is None:
            k.s_barrier()
        else:
            k.barrier(release=release)
        r, t2 = k.ds_read_b32(k.v_sub_u32(252, addr))
        k.wait(t2)
        k.global_store_dword(addr, r, out)
    return m


def _global_kernel(release: str | None) -> Module:
    m = Module("glob")
    with m.kernel("glob", [Arg.ptr("out", np.float32), Arg.ptr("g", np.float32)], workgroup_size=(64, 1, 1)) as k:
        out, g = k.args()
        addr = k.v_lshlrev_b32(2, k.thread_id("x"))
        k.global_store_dword(addr, k.v_mov_b32(1.0), g)
        if release is None:
            k.s_barrier()
        else:
            k.barrier(release=release)
        v, t = k.global_load_dword(k.v_sub_u32(252, addr), g)
        k.wait(t)
        k.global_store_dword(addr, v, out)
    return m


def _asm(m: Module, pipeline: str = pl.DEFAULT) -> str:
    pl.run(m.top, pl.parse(pipeline))
    return to_assembly(m.top)


def test_lds_write_then_barrier_waits_as_clang(clang_asm):
    want = _waits_before_barrier(clang_asm["plain"], "lds")
    assert want == ["s_waitcnt lgkmcnt(0)"]
    assert _waits_before_barrier(_asm(_lds_kernel(None)), "lds") == want


def test_global_store_then_barrier_as_clang(clang_asm):
    # a work-group release needs no vmcnt wait outside tgsplit mode: clang emits none, nor do we
    assert _waits_before_barrier(clang_asm["plain"], "glob") == []
    assert _waits_before_barrier(_asm(_global_kernel(None)), "glob") == []
    # the author asks for global visibility: clang's tgsplit release
    want = _waits_before_barrier(clang_asm["tgsplit"], "glob")
    assert want == ["s_waitcnt vmcnt(0)"]
    assert _waits_before_barrier(_asm(_global_kernel("global")), "glob") == want


def test_opt_out_leaves_the_barrier_alone_and_the_sanitizer_sees_the_race():
    a = _asm(_lds_kernel("none"))
    assert _waits_before_barrier(a, "lds") == []
    x = np.arange(64, dtype=np.float32)
    racy = rt.load(assemble(a))["lds"]
    with pytest.raises(Diagnostic, match="s_barrier"):
        racy(x.copy(), grid=1, block=64, device="emulator", sanitize=True)
    safe = rt.load(assemble(_asm(_lds_kernel(None))))["lds"]
    y = x.copy()
    safe(y, grid=1, block=64, device="emulator", sanitize=True)
    np.testing.assert_array_equal(y, x[::-1])


def test_missing_barrier_wait_at_authors_line():
    m = Module("v")
    with m.kernel("v", [Arg.ptr("out", np.float32)], workgroup_size=(64, 1, 1), lds_size=256) as k:
        addr = k.v_lshlrev_b32(2, k.thread_id("x"))
        k.ds_write_b32(addr, addr)
        line = inspect.currentframe().f_lineno + 1
        k.s_barrier()
    with pytest.raises(Diagnostic, match=r"s_barrier\(s\) before the memory operations they release complete") as e:
        pl.run(m.top, pl.parse("amdgcn-lower-abi,amdgcn-regalloc,amdgcn-insert-waits{mode=verify}"))
    assert (e.value.loc.file, e.value.loc.line) == (__file__, line)


def test_tokens_mode_read_without_wait_is_an_error_at_authors_line():
    m = Module("t")
    with m.kernel("t", [Arg.ptr("out", np.float32)], workgroup_size=(64, 1, 1)) as k:
        (out,) = k.args()
        addr = k.v_lshlrev_b32(2, k.thread_id("x"))
        v, _ = k.global_load_dword(addr, out)
        line = inspect.currentframe().f_lineno + 1
        w = k.v_add_f32(1.0, v)  # no k.wait: under mode=tokens nobody else adds one
        k.global_store_dword(addr, w, out)
    with pytest.raises(Diagnostic, match=r"mode=tokens.*1 read\(s\) of registers whose load has no amdgcn.wait") as e:
        pl.run(m.top, pl.parse("amdgcn-lower-abi,amdgcn-regalloc,amdgcn-insert-waits{mode=tokens}"))
    assert (e.value.loc.file, e.value.loc.line) == (__file__, line)
    assert "needs vmcnt(0)" in str(e.value)
