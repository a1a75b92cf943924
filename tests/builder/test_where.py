"""Diagnostics of built kernels point at the author's ``file:line:col`` (issue 24 item 5):
never into ``contextlib`` (the ``with k.loop`` / ``with m.kernel`` exits run through it)
nor into gcnforge, and with the column of the call (found here from the source text)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from gcnforge.builder import Arg, Module
from gcnforge.diagnostics import Diagnostic


def _col(src: str, line: int, needle: str) -> int:
    return src.splitlines()[line - 1].index(needle) + 1


def _run(tmp_path, body: str, *cli: str) -> subprocess.CompletedProcess:
    p = tmp_path / "kern.py"
    p.write_text(textwrap.dedent(body))
    cmd = [sys.executable, str(p)] if not cli else [sys.executable, "-m", "gcnforge.cli.main", *cli, str(p), "-o", str(tmp_path / "k.hsaco")]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def test_two_calls_on_one_line_get_their_columns():
    src = "x = k.v_mov_b32(0); y = k.v_add_f32(x, k.s_mov_b64(0))"
    m = Module("m")
    with m.kernel("k", [Arg.ptr("a")]) as k:
        with pytest.raises(Diagnostic) as e:
            exec(compile(src, "author.py", "exec"), {"k": k})
    assert str(e.value.loc) == f"author.py:1:{_col(src, 1, 'k.v_add_f32')}"


def test_loop_yield_mismatch_is_at_body_next(tmp_path):
    src = """\
    from gcnforge.builder import Arg, Module
    m = Module("m")
    with m.kernel("k", [Arg.ptr("a")], workgroup_size=(64, 1, 1)) as k:
        x = k.v_mov_b32(0)
        s = k.s_mov_b32(0)
        with k.loop(4, [x]) as body:
            (a,) = body.args
            body.next(s)
    """
    r = _run(tmp_path, src)
    want = f"{tmp_path / 'kern.py'}:8:{_col(textwrap.dedent(src), 8, 'body.next')}: error: amdgcn.loop: amdgcn.yield"
    assert want in r.stderr, r.stderr
    assert "contextlib" not in r.stderr.splitlines()[-1]


def test_wait_verify_is_at_the_read_not_contextlib(tmp_path):
    src = """\
    from gcnforge.builder import Arg, Module
    m = Module("m")
    with m.kernel("k", [Arg.ptr("a")], workgroup_size=(64, 1, 1)) as k:
        a, = k.args()
        off = k.v_lshlrev_b32(2, k.thread_id("x"))
        v, t = k.global_load_dword(off, a)
        k.global_store_dword(off, v, a)
    """
    r = _run(tmp_path, src, "compile", "--pipeline",
             "amdgcn-lower-abi,amdgcn-regalloc,amdgcn-insert-waits{mode=verify}")
    assert r.returncode != 0
    col = _col(textwrap.dedent(src), 7, "k.global_store_dword")
    assert f"kern.py:7:{col}: error: @k: 1 read(s) of registers whose load may still be in flight" in r.stderr, r.stderr
    assert "contextlib" not in r.stderr and "Traceback" not in r.stderr


def test_ops_built_in_with_exit_are_located_at_the_with():
    """The ``amdgcn.end`` a kernel gets at its ``with`` exit is the author's ``with`` line."""
    m = Module("m")
    with m.kernel("k", [Arg.ptr("a")]) as k:  # the line the end op is stamped with
        k.v_mov_b32(0)
    end = list(m.op.body.block.ops)[0].body.block.last_op
    assert end.location.filename.data == __file__
    assert "contextlib" not in end.location.filename.data


def test_module_verify_names_the_op_that_uses_another_kernels_value():
    """A value of kernel k1 used in k2 (xDSL's IsolatedFromAbove check, reported by the kernel)
    is located at the author's line and column of the using call, not at 'module @m'."""
    src = ("from gcnforge.builder import Arg, Module\n"
           "m = Module('m')\n"
           "with m.kernel('k1', [Arg.ptr('a')]) as k:\n"
           "    x = k.v_mov_b32(0)\n"
           "with m.kernel('k2', [Arg.ptr('a')]) as k2:\n"
           "    k2.v_add_f32(x, x)\n"
           "m.verify()\n")
    with pytest.raises(Diagnostic) as e:
        exec(compile(src, "author.py", "exec"), {})
    assert str(e.value.loc) == f"author.py:6:{_col(src, 6, 'k2.v_add_f32')}", str(e.value)
