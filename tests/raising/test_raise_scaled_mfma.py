"""A clang-built gfx950 block-scaled MFMA (``__builtin_amdgcn_mfma_scale_f32_*_f8f6f4``) raises
to the dialect's op (not a ``lift.inst``), with the builtin's formats and scale-byte selectors
as modifiers, verifies clean (clang's padding satisfies the hazard rules: the scaled MFMA
counts the passes of its f8f6f4 MFMA), and emits back byte-identical."""

from __future__ import annotations

import subprocess

import pytest

from gcnforge.binary import read_code_object
from gcnforge.dialect.inst_ops import InstOp
from gcnforge.dialect.raw_ops import RawInstOp
from gcnforge.raising import module_code_object, parse_module, print_module, raise_code_object
from gcnforge.raising.roundtrip import differences
from gcnforge.raising.verify import verify_module
from gcnforge.testing import require_llvm

# kernel -> (shape, cbsz (A format), blgp (B format), A scale byte, B scale byte); formats:
# 0 fp8, 1 bf8, 2 fp6, 3 bf6, 4 fp4 (the builtin's arguments, clang's BuiltinsAMDGPU.def)
CASES = {"k_fp8_bf8": ("16x16x128", 0, 1, 1, 2), "k_fp4_fp4": ("16x16x128", 4, 4, 3, 0),
         "k_fp6_bf6": ("32x32x64", 2, 3, 0, 1), "k_fp4_fp6": ("32x32x64", 4, 2, 2, 3)}
_C = {"16x16x128": "float4", "32x32x64": "float16"}


def _source() -> str:
    out = ["typedef int int8v __attribute__((ext_vector_type(8)));",
           "typedef float float16 __attribute__((ext_vector_type(16)));"]
    for name, (shape, fa, fb, oa, ob) in CASES.items():
        out.append(f"""
__kernel void {name}(__global {_C[shape]}* D, __global const int8v* A, __global const int8v* B,
                     __global const uint* S) {{
  int l = (int)__builtin_amdgcn_workitem_id_x();
  D[l] = __builtin_amdgcn_mfma_scale_f32_{shape}_f8f6f4(A[l], B[l], D[l], {fa}, {fb}, {oa}, S[l], {ob}, S[64 + l]);
}}""")
    return "\n".join(out)


@pytest.fixture(scope="module")
def code(tmp_path_factory):
    tools = require_llvm("clang", "ld.lld")
    d = tmp_path_factory.mktemp("scaled")
    (d / "k.cl").write_text(_source())
    subprocess.run([tools["clang"], "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx950", "-nogpulib",
                    "-O2", "-c", str(d / "k.cl"), "-o", str(d / "k.o")], check=True, capture_output=True)
    subprocess.run([tools["ld.lld"], "-shared", str(d / "k.o"), "-o", str(d / "k.so")], check=True, capture_output=True)
    return (d / "k.so").read_bytes()


def test_raises_to_the_scaled_op(code):
    m = raise_code_object(read_code_object(code))
    m.verify()
    raw = [op.text.data for op in m.walk() if isinstance(op, RawInstOp)]
    assert not [t for t in raw if "mfma" in t]
    found = {}
    for op in m.walk():
        if isinstance(op, InstOp) and op.mnemonic.startswith("v_mfma_scale_"):
            kern = op.parent_op()
            while kern is not None and not hasattr(kern, "sym_name"):
                kern = kern.parent_op()
            found[kern.sym_name.data] = op
    assert set(found) >= set(CASES)
    for name, (shape, fa, fb, oa, ob) in CASES.items():
        op = found[name]
        mods = op.modifiers
        assert op.mnemonic == f"v_mfma_scale_f32_{shape}_f8f6f4"
        assert (mods.get("cbsz", 0), mods.get("blgp", 0)) == (fa, fb), name
        sel, hi = mods.get("op_sel", [0, 0, 0]), mods.get("op_sel_hi", [0, 0, 0])
        # the builtin's scale byte i is op_sel[i] | op_sel_hi[i] << 1 (clang 22's printed form)
        assert (sel[0] | hi[0] << 1, sel[1] | hi[1] << 1) == (oa, ob), name
        assert len(op.operands) == 6  # vdst, A, B, C and the two scale VGPRs


def test_clang_padding_verifies(code):
    assert verify_module(raise_code_object(read_code_object(code))) == []


def test_emits_back_identical(code):
    co = read_code_object(code)
    m = parse_module(print_module(raise_code_object(co)))
    assert differences(co, read_code_object(module_code_object(m))) == []
