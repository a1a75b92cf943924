"""IR inputs that crashed or hung gcnforge-opt / gcnforge compile (issue 16), minimized:
each must now be a located diagnostic (``file:line:col: error:``), exit 1, quickly."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap

import pytest

from gcnforge.diagnostics import Diagnostic
from gcnforge.dialect.source import parse_module

LOCATED = re.compile(r"^\S+\.mlir:(\d+):(\d+): error: ", re.M)


def _opt(path, *args, timeout=60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gcnforge.cli.opt", *args, str(path)],
                          capture_output=True, text=True, timeout=timeout)


def _compile(path, timeout=60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gcnforge.cli.main", "compile", str(path), "-S", "-o", "-"],
                          capture_output=True, text=True, timeout=timeout)


EMPTY_KERNEL = """\
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k { }
}
"""

# a label referenced before its definition, then defined twice (xDSL 0.74: KeyError 'loop')
TWICE_DEFINED_LABEL = """\
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    amdgcn.branch s_branch ^loop
  ^loop:
    amdgcn.branch s_branch ^loop
  ^loop:
    amdgcn.end
  }
}
"""

# 34 characters of an unterminated string (xDSL 0.74's lexer: exponential backtracking)
UNTERMINATED = 'amdgcn.module @m #amdgcn.target<gfx942> {\n  amdgcn.kernel @k attributes {x = "' + "ab\\\\" * 9 + "\n"

SCHED_HUGE_DELAY = """\
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    amdgcn.loop 4 dims [4] {
    ^bb0(%i : i32):
      %d = amdgcn.alloca : !amdgcn.vgpr
      %a = amdgcn.vop1 v_mov_b32_e32 %d, %i {sched = array<i64: 0, 2>} : !amdgcn.vgpr, i32
      %e = amdgcn.alloca : !amdgcn.vgpr
      %b = amdgcn.vop2 v_add_u32_e32 %e, %i, %a {sched = array<i64: 0x7fffffff, 1>} : !amdgcn.vgpr, i32, !amdgcn.vgpr
      amdgcn.yield
    }
    amdgcn.end
  }
}
"""

# issue 28 item 1: a loop's operand naming its own body's block argument (xDSL kept the
# forward reference: "Forward declared values do not have an owner", a traceback)
LOOP_OWN_BLOCK_ARG = """\
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %r = amdgcn.loop 4 iter(%a : !amdgcn.vgpr) {
    ^bb0(%a : !amdgcn.vgpr):
      amdgcn.yield %a : !amdgcn.vgpr
    }
    amdgcn.end
  }
}
"""

# issue 28 item 2: a loop yielding its own result; with a schedule, amdgcn-schedule erased the
# loop while the yield used it ("Attempting to delete SSA value that still has uses")
LOOP_YIELDS_OWN_RESULT = """\
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %one = arith.constant 1 : i32
    %x0 = amdgcn.alloca : !amdgcn.vgpr
    %x = amdgcn.vop1 v_mov_b32_e32 %x0, %one : !amdgcn.vgpr, i32
    %r = amdgcn.loop 4 iter(%x : !amdgcn.vgpr) {
    ^bb0(%acc : !amdgcn.vgpr):
      %d0 = amdgcn.alloca : !amdgcn.vgpr
      %a = amdgcn.vop2 v_add_u32_e32 %d0, %one, %acc {sched = array<i64: 0, 1, 0>} : !amdgcn.vgpr, i32, !amdgcn.vgpr
      amdgcn.yield %r : !amdgcn.vgpr
    }
    amdgcn.end
  }
}
"""


@pytest.mark.parametrize("text, line, what, args", [
    (EMPTY_KERNEL, 2, "a kernel needs a body", ("-p", "amdgcn-regalloc")),
    (TWICE_DEFINED_LABEL, 6, "re-declaration of block 'loop'", ()),
    (UNTERMINATED, 2, "closing string literal", ()),
    (SCHED_HUGE_DELAY, 8, "sched values must be at most", ("-p", "amdgcn-schedule")),
    (LOOP_OWN_BLOCK_ARG, 3, "%a is defined inside this op's own region", ()),
    (LOOP_YIELDS_OWN_RESULT, 10, "%r is a result of the enclosing 'amdgcn.loop', used inside it",
     ("-p", "amdgcn-schedule,amdgcn-lower-loops")),
], ids=["empty-kernel", "label-twice", "unterminated-string", "sched-delay", "loop-own-block-arg",
        "loop-yields-own-result"])
def test_minimized_crash_or_hang_is_a_located_diagnostic(text, line, what, args, tmp_path):
    f = tmp_path / "in.mlir"
    f.write_text(text)
    for r in (_opt(f, *args), _compile(f)):
        assert r.returncode == 1, r.stderr
        m = LOCATED.search(r.stderr)
        assert m and int(m.group(1)) == line and what in r.stderr, r.stderr
        assert "Traceback" not in r.stderr and "internal error" not in r.stderr


def test_unterminated_string_lexes_in_linear_time():
    """The patched string-literal pattern: a 5,000-character unterminated literal is an
    error at once (the xDSL 0.74 pattern takes exponential time in the length)."""
    import time

    text = 'amdgcn.module @m #amdgcn.target<gfx942> {\n  amdgcn.kernel @k attributes {x = "' + "a\\\\" * 2500
    t = time.perf_counter()
    with pytest.raises(Diagnostic, match="closing string literal") as e:
        parse_module(text, "s.mlir")
    assert time.perf_counter() - t < 5
    assert (e.value.loc.line, e.value.loc.col) == (2, 36)


def test_parsed_ops_carry_their_location():
    m = parse_module(textwrap.dedent("""\
        amdgcn.module @m #amdgcn.target<gfx942> {
          amdgcn.kernel @k {
            %v = amdgcn.alloca : !amdgcn.vgpr
            amdgcn.end
          }
        }
        """), "k.mlir")
    from gcnforge.dialect.source import loc_of

    locs = {op.name: loc_of(op) for op in m.walk()}
    assert str(locs["amdgcn.kernel"]) == "k.mlir:2:3"
    assert str(locs["amdgcn.alloca"]) == "k.mlir:3:5"
    assert str(locs["amdgcn.end"]) == "k.mlir:4:5"


def test_i32_out_of_range_while_parsing_is_located():
    """An attribute the op's parser builds (an i32 loop count) that does not fit: a located
    error, not xDSL's bare 'Integer value ... out of range for type i32'."""
    text = SCHED_HUGE_DELAY.replace("amdgcn.loop 4 dims [4]", "amdgcn.loop -2147483649 dims [4]")
    with pytest.raises(Diagnostic) as e:
        parse_module(text, "l.mlir")
    assert str(e.value).startswith("l.mlir:3:"), str(e.value)


PINS = """\
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %c0 = arith.constant 0 : i32
    // expected-error@+1 {{which is outside the 8 available VGPRs}}
    %a = amdgcn.alloca : !amdgcn.vgpr<[8 : 10]>
    %d = amdgcn.alloca : !amdgcn.vgpr<[? + 2]>
    %y = amdgcn.vop3 v_lshlrev_b64 %d, %c0, %a : !amdgcn.vgpr<[? + 2]>, i32, !amdgcn.vgpr<[8 : 10]>
    amdgcn.end
  }
}
// -----
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k { }
  // expected-error@-1 {{a kernel needs a body}}
}
"""


def test_verify_diagnostics_checks_expected_error_lines(tmp_path):
    """A pass error (regalloc) and a verifier error, each at the line its annotation names
    (``@+1``/``@-1``); moving an annotation by one line makes the run fail."""
    f = tmp_path / "v.mlir"
    f.write_text(PINS)
    pipe = ("-p", "amdgcn-regalloc{max_vgprs=8}")
    r = _opt(f, "--split-input-file", "--verify-diagnostics", *pipe)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "v.mlir:5:5: error: %a (v[2]) defined by amdgcn.alloca" in r.stdout
    f.write_text(PINS.replace("expected-error@+1", "expected-error@+2"))
    r = _opt(f, "--split-input-file", "--verify-diagnostics", *pipe)
    assert r.returncode == 1 and 'v.mlir:6: error: expected error "which is outside' in r.stderr


def test_pass_error_in_python_kernel_points_at_the_author_line(tmp_path):
    f = tmp_path / "pin.py"
    f.write_text(textwrap.dedent("""\
        from gcnforge.builder import Arg, Module

        m = Module("pin")
        with m.kernel("k", [Arg.ptr("c", access="write_only")], workgroup_size=(64, 1, 1)) as k:
            (c,) = k.args()
            a = k.v_mov_b32(k.vgpr(1), 1)
            b = k.v_mov_b32(k.vgpr(9), 2)
            k.global_store_dword(k.thread_id("x"), k.v_add_f32(a, b), c)
        """))
    pipe = "amdgcn-lower-abi,amdgcn-regalloc{max_vgprs=8}"
    r = subprocess.run([sys.executable, "-m", "gcnforge.cli.main", "compile", str(f), "-S", "-o", "-",
                        "--pipeline", pipe], capture_output=True, text=True, timeout=120)
    assert r.returncode == 1
    assert re.search(r"pin\.py:7:\d+: error: .* is pinned to v9, which is outside", r.stderr), r.stderr


# -- found by fuzz/harness.py, minimized ------------------------------------------------
def test_i64_literal_out_of_range_is_located():
    """xDSL raises a bare ValueError for an i64 literal beyond 64 bits while parsing."""
    text = ("amdgcn.module @m #amdgcn.target<gfx942> {\n  amdgcn.kernel @k {\n"
            "    %c = arith.constant 99999999999999999999 : i64\n    amdgcn.end\n  }\n}\n")
    with pytest.raises(Diagnostic, match="out of range") as e:
        parse_module(text, "c.mlir")
    assert str(e.value).startswith("c.mlir:3:")


def test_nothing_to_compile_is_located():
    from gcnforge.translate import to_assembly

    m = parse_module("amdgcn.module @m #amdgcn.target<gfx942> {\n}\n", "n.mlir")
    with pytest.raises(Diagnostic, match="no amdgcn.kernel to compile") as e:
        to_assembly(m)
    assert str(e.value).startswith("n.mlir:1:1: error:")


def test_size_of_undefined_symbol_is_located():
    from gcnforge.binary import assemble

    with pytest.raises(Diagnostic, match="never defined") as e:
        assemble("\t.text\n\ts_endpgm\n\t.size asloop, 4\n", filename="u.s")
    assert str(e.value).startswith("u.s:3:")


def test_ops_a_pass_creates_get_the_location_of_the_op_they_serve():
    """The wait pass inserts ``s_waitcnt`` before the read that needs it: the new op is at
    that read's line (so a later error about it points at the author's op)."""
    from gcnforge.dialect.source import loc_of
    from gcnforge.passes import pipeline as pl

    text = textwrap.dedent("""\
        amdgcn.module @m #amdgcn.target<gfx942> {
          amdgcn.kernel @k {
            %v0 = amdgcn.alloca : !amdgcn.vgpr<0>
            %v1 = amdgcn.alloca : !amdgcn.vgpr<1>
            %v3 = amdgcn.alloca : !amdgcn.vgpr<3>
            %sp = amdgcn.alloca : !amdgcn.sgpr<[0 : 2]>
            %a, %ta = amdgcn.global global_load_dword %v1, %v0, %sp : !amdgcn.vgpr<1>, !amdgcn.vgpr<0>, !amdgcn.sgpr<[0 : 2]>
            %c = amdgcn.vop2 v_add_f32_e32 %v3, %a, %a : !amdgcn.vgpr<3>, !amdgcn.vgpr<1>, !amdgcn.vgpr<1>
            amdgcn.end
          }
        }
        """)
    m = parse_module(text, "w.mlir")
    pl.run(m, pl.parse("amdgcn-insert-waits"))
    waits = [op for op in m.walk() if getattr(op, "mnemonic", "") == "s_waitcnt"]
    assert waits, "the wait pass inserted no s_waitcnt"
    assert str(loc_of(waits[0])) == "w.mlir:8:5"
