"""Editing raised code: change an op in the .mlir text, emit, run: the edit takes effect
(and inserting an instruction, which moves every later pc, still assembles and runs)."""

from __future__ import annotations

import numpy as np

import gcnforge.runtime as rt
from gcnforge.binary import read_code_object
from gcnforge.raising import module_code_object, parse_module, print_module, raise_code_object


def _vadd(blob: bytes, n: int = 300):
    rng = np.random.default_rng(0)
    a = rng.standard_normal(n).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    a0 = a.copy()
    rt.load(blob, device="emulator")["vadd"](a, b, np.int32(n), grid=(2, 1, 1), block=(256, 1, 1))
    return a0, b, a


def test_edit_an_instruction(clang_objects):
    text = print_module(raise_code_object(read_code_object(clang_objects["bin_vadd"])))
    assert text.count("v_add_f32_e32") == 1
    edited = parse_module(text.replace("v_add_f32_e32", "v_sub_f32_e32"))
    a0, b, out = _vadd(module_code_object(edited))
    np.testing.assert_array_equal(out, b - a0)  # clang computes b[i] + a[i]: v_add v0, v4(b), v5(a)


def test_insert_an_instruction(clang_objects):
    text = print_module(raise_code_object(read_code_object(clang_objects["bin_vadd"])))
    lines = text.splitlines()
    i = next(n for n, ln in enumerate(lines) if "v_add_f32_e32" in ln)
    # a second add after the first, reading its result: out = (b + a) + a
    lines.insert(i + 1, lines[i].replace("{pc", "{note = \"inserted\", pc").replace(
        lines[i].split("=")[0].strip(), "%inserted", 1))
    m = parse_module("\n".join(lines))
    # make the inserted op read the first add's destination (it writes the same pinned VGPR)
    from gcnforge.dialect.inst_ops import InstOp

    ops = [op for op in m.walk() if isinstance(op, InstOp) and op.mnemonic == "v_add_f32_e32"]
    assert len(ops) == 2
    first, second = ops
    second.operands = [first.args[0], first.args[0], first.args[2]]
    a0, b, out = _vadd(module_code_object(m))
    np.testing.assert_array_equal(out, (b + a0) + a0)


def test_non_ascii_data_text_survives_the_parser(clang_objects):
    """xDSL parses a string literal with escaped non-ASCII bytes as ``bytes`` (the printer
    escapes a raised kernel named with such bytes that way; fuzz seed 1 #772 was a TypeError)."""
    from gcnforge.raising import module_asm

    text = print_module(raise_code_object(read_code_object(clang_objects["bin_vadd"])))
    assert 'lift.data = "' in text
    edited = parse_module(text.replace('lift.data = "', 'lift.data = "\\09// caf\\C3\\A9\\0A', 1))
    assert "\t// café\n" in module_asm(edited)
    a0, b, out = _vadd(module_code_object(edited))
    np.testing.assert_array_equal(out, b + a0)
