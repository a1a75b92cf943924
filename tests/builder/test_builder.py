"""The authoring API: README example, destination-passing vs fresh values, modifiers,
encoding choice, constants, ranges, functions, branches, and errors at the caller's line."""

from __future__ import annotations

import importlib.util
import inspect
import io
from pathlib import Path

import pytest
from xdsl.parser import Parser
from xdsl.printer import Printer

from gcnforge.builder import Arg, Module, kernel
from gcnforge.diagnostics import Diagnostic
from gcnforge.dialect import context
from gcnforge.dialect.inst_ops import InstOp
from gcnforge.dialect.types import RegisterType, VGPRType

ROOT = Path(__file__).resolve().parents[2]


def _example():
    spec = importlib.util.spec_from_file_location("authoring_vector_add", ROOT / "examples" / "authoring_vector_add.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _insts(m: Module) -> list[InstOp]:
    return [op for op in m.top.walk() if isinstance(op, InstOp)]


def _reparse(m: Module) -> str:
    text = m.text()
    again = Parser(context(), text).parse_module()
    again.verify()
    s = io.StringIO()
    Printer(stream=s).print_op(again)
    assert s.getvalue() + "\n" == text
    return text


def test_readme_example_unpinned():
    m = _example().build(pinned=False)
    text = _reparse(m)
    assert [op.mnemonic for op in _insts(m)] == [
        "s_lshl_b32", "v_add_u32_e32", "v_lshlrev_b32_e32", "global_load_dword", "global_load_dword",
        "v_add_f32_e32", "global_store_dword",
    ]
    # no physical register anywhere
    for op in m.top.walk():
        for v in (*op.operands, *op.results):
            assert not (isinstance(v.type, RegisterType) and v.type.is_allocated), op
    assert "amdgcn.wait" in text and "amdgcn.load_arg 2 : !amdgcn.sgpr<[? + 2]>" in text


def test_readme_example_pinned():
    m = _example().build(pinned=True)
    _reparse(m)
    by_name = {op.mnemonic: op for op in _insts(m)}
    assert by_name["v_add_f32_e32"].outs[0].type == VGPRType.allocated(10)
    assert by_name["v_lshlrev_b32_e32"].outs[0].type == VGPRType.allocated(1)
    store = by_name["global_store_dword"]
    assert store.args[0].type == VGPRType.allocated(1)  # the pinned offset flows on


def test_fresh_and_destination_passing():
    m = Module()
    with m.kernel("k") as k:
        a, b = k.vgpr(), k.vgpr()
        fresh = k.v_add_f32(a, b)
        dst = k.vgpr(7)
        dps = k.v_add_f32(dst, a, b)
    assert fresh.type == VGPRType.value()
    assert dps.type == VGPRType.allocated(7)
    assert dps.value.owner.args[0] is dst.value


def test_encoding_choice_and_modifiers():
    m = Module()
    with m.kernel("k", [Arg.ptr("p")]) as k:
        a, b = k.vgpr(), k.vgpr()
        p = k.arg(0)
        k.v_add_f32(a, b)  # e32
        k.v_add_f32(a, b, clamp=True)  # only e64 has clamp
        k.v_add_f32(2.0, b)  # inline constant in src0: e32
        k.v_add_f32(1234.5, b)  # literal: only e32 takes it
        k.v_add_f32(a, b, dpp_ctrl=0x111, row_mask=0xF, bank_mask=0xF)  # DPP row_shr:1
        k.global_load_dword(a, p, glc=True, offset=16)  # glc is gfx942's sc0
        acc = k.agpr(None, 16)
        ab = k.vgpr(None, 2)
        k.v_mfma_f32_32x32x8_f16(acc, ab, ab, acc, cbsz=1, abid=0, blgp=2)
    ops = _insts(m)
    assert [o.mnemonic for o in ops] == [
        "v_add_f32_e32", "v_add_f32_e64", "v_add_f32_e32", "v_add_f32_e32", "v_add_f32_dpp",
        "global_load_dword", "v_mfma_f32_32x32x8_f16",
    ]
    assert ops[1].modifiers == {"clamp": True}
    assert ops[5].modifiers == {"sc0": True, "offset": 16}
    assert ops[6].modifiers == {"cbsz": 1, "abid": 0, "blgp": 2}
    _reparse(m)


def test_constants_are_shared_and_dominate():
    m = Module()
    with m.kernel("k") as k:
        a = k.vgpr()
        k.v_add_u32(5, a)
        k.new_block()
        k.v_add_u32(5, a)
    consts = [op for op in m.top.walk() if op.name == "arith.constant"]
    assert len(consts) == 1
    assert consts[0].parent is m.op.body.block.first_op.body.blocks[0]


def test_python_loops_unroll():
    @kernel(args=[Arg.ptr("x")])
    def unrolled(k):
        vals = [k.vgpr() for _ in range(4)]
        total = vals[0]
        for v in vals[1:]:
            total = k.v_add_f32(total, v)

    assert [o.mnemonic for o in _insts(unrolled)] == ["v_add_f32_e32"] * 3
    _reparse(unrolled)


def test_ranges():
    m = Module()
    with m.kernel("k") as k:
        r = k.vgpr(8, 4)
        assert r[1].type == VGPRType.allocated(9)
        assert r[2:4].type == VGPRType.allocated(10, 2)
        parts = r.split(2, 1, 1)
        assert [p.type for p in parts] == [VGPRType.allocated(8, 2), VGPRType.allocated(10), VGPRType.allocated(11)]
        whole = k.concat(*parts)
        assert whole.type == VGPRType.allocated(8, 4)
        fresh = k.concat(k.v_mov_b32(1), k.v_mov_b32(2))
        assert fresh.type == VGPRType.value(2)
        assert len(list(fresh)) == 2
    _reparse(m)


def test_functions_calls_and_branches():
    m = Module()
    v = VGPRType.value()
    with m.func("double", [v], [v]) as f:
        (x,) = f.params
        f.ret(k2 := f.v_add_f32(x, x))
        assert k2.type == v
    with m.kernel("k") as k:
        a = k.v_mov_b32(1)  # a value, as the function takes (storage types must match exactly)
        r = k.call("double", a)
        assert r.type == v
        k.s_cmp_eq_u32(0, 0)
        loop, done = k.new_block(), k.new_block()
        k.branch("s_cbranch_scc1", done, loop)
        k.set_block(loop)
        k.branch("s_branch", done)
        k.set_block(done)
    text = _reparse(m)
    assert "amdgcn.branch s_cbranch_scc1 ^bb2, ^bb1\n    ^bb1:\n      amdgcn.branch s_branch ^bb2" in text


def _line_of(marker: str) -> int:
    src, start = inspect.getsourcelines(test_errors_point_at_the_callers_line)
    return start + next(i for i, line in enumerate(src) if marker in line)


def test_errors_point_at_the_callers_line():
    m = Module()
    with m.kernel("k") as k:
        a, s = k.vgpr(), k.sgpr()
        with pytest.raises(Diagnostic) as e:
            k.v_add_f32(a, a, a, a, a)  # MARK-COUNT
        assert e.value.loc.file == __file__ and e.value.loc.line == _line_of("MARK-COUNT")
        assert "v_add_f32" in e.value.message and "expects" in e.value.message
        with pytest.raises(Diagnostic) as e:
            k.v_add_f32(a, 1234.5)  # MARK-LITERAL
        assert e.value.loc.line == _line_of("MARK-LITERAL")
        assert "v_add_f32_e32" in e.value.message and "v_add_f32_e64" in e.value.message
        with pytest.raises(Diagnostic, match="unknown modifier"):
            k.v_add_f32(a, a, bogus=1)
        with pytest.raises(Diagnostic, match="operand sbase"):
            k.s_load_dwordx2(s, 0)  # sbase is an SGPR pair
        with pytest.raises(Diagnostic, match="not aligned"):
            k.vgpr(3, 2)
        with pytest.raises(Diagnostic, match="no argument 0"):
            k.arg(0)
        with pytest.raises(AttributeError, match="not an instruction"):
            k.v_frobnicate(a)
        k.s_endpgm()
    m.verify()


def test_counted_loop():
    m = Module()
    with m.kernel("k") as k:
        x = k.v_mov_b32(1.0)
        acc0 = k.v_mov_b32(0)
        with k.loop(8, [acc0], dims=[2]) as body:
            (acc,) = body.args
            assert len(body.indices) == 1
            body.next(k.v_add_f32(acc, x))
        total = body.results[0]
        k.v_mul_f32(total, total)
        with pytest.raises(Diagnostic, match="body.next"):
            with k.loop(4, [acc0]):
                pass
    text = _reparse(m)
    assert "amdgcn.loop 8 dims [2] iter(" in text and "amdgcn.yield" in text
