"""The builder per target: ``Module(target="gfx950")`` builds and verifies against gfx950's
table and limits; a gfx950-only instruction in a gfx942 module (and an xf32 MFMA, which
LLVM 22 has no gfx950 encoding for, in a gfx950 module) is a diagnostic naming both."""

from __future__ import annotations

import pytest

from gcnforge.builder import Arg, Module, kernel
from gcnforge.diagnostics import Diagnostic
from gcnforge.isa import table


def _mfma_kernel(target: str | None, mnemonic: str, width: int = 4) -> Module:
    m = Module("t", target=target)
    with m.kernel("k", [Arg.ptr("x")], workgroup_size=(64, 1, 1)) as k:
        v = k.v_mov_b32(1.0)
        r = k.concat(*[v] * width)
        getattr(k, mnemonic)(r, r, 0)
        k.s_endpgm()
    m.verify()
    return m


def test_gfx950_module_builds_cdna4_mfma():
    m = _mfma_kernel("gfx950", "v_mfma_f32_16x16x32_f16")
    assert "#amdgcn.target<gfx950>" in m.text()
    assert "v_mfma_f32_16x16x32_f16" in m.text()
    _mfma_kernel("gfx950:xnack-", "v_mfma_f32_16x16x32_bf16")  # a target id names its processor


def test_gfx950_instruction_in_gfx942_module_is_refused():
    with pytest.raises(AttributeError, match=r"'v_mfma_f32_16x16x32_f16' is not a gfx942 instruction \(the gfx950 table"):
        _mfma_kernel(None, "v_mfma_f32_16x16x32_f16")  # the default target is gfx942
    m = Module("t")
    with pytest.raises(Diagnostic, match="is not a gfx942 instruction") as e:
        with m.kernel("k") as k:
            k.inst("v_prng_b32", k.v_mov_b32(1))
    assert e.value.loc.file == __file__  # at the author's line


def test_xf32_mfma_is_gfx942_only():
    _mfma_kernel("gfx942", "v_mfma_f32_16x16x8_xf32", width=2)
    with pytest.raises(AttributeError, match=r"is not a gfx950 instruction \(the gfx942 table has it"):
        _mfma_kernel("gfx950", "v_mfma_f32_16x16x8_xf32", width=2)


def test_lds_limit_is_the_targets():
    # 160 KiB on gfx950 (gcnforge.isa.target; LLVM FeatureAddressableLocalMemorySize163840)
    for target, ok in (("gfx942", False), ("gfx950", True)):
        m = Module("t", target=target)
        try:
            with m.kernel("k", lds_size=100 * 1024):
                pass
            m.verify()
            assert ok
        except Diagnostic as d:
            assert not ok and "65536" in d.message


def test_kernel_target_must_be_the_modules():
    m = Module("t", target="gfx950")
    with m.kernel("a", target="gfx950") as k:
        k.s_endpgm()
    with pytest.raises(Diagnostic, match="kernel @b is for gfx942 but module t is for gfx950"):
        with m.kernel("b", target="gfx942"):
            pass


def test_unknown_target_and_default():
    with pytest.raises(Diagnostic, match=r"unknown target 'gfx1200' \(known: gfx942, gfx950\)"):
        Module("t", target="gfx1200")
    assert Module("t").target == "gfx942"
    with table.use_target("gfx950"):  # what `gcnforge compile --target gfx950` does for a .py file
        assert Module("t").target == "gfx950"

    @kernel(target="gfx950")
    def k(kb):
        kb.v_prng_b32(kb.v_mov_b32(1))
        kb.s_endpgm()

    assert k.target == "gfx950" and "v_prng_b32" in k.text()


def test_f8f6f4_operand_widths_follow_the_formats():
    """A and B of v_mfma_*_f8f6f4 are 8, 6 or 4 dwords for fp8/bf8, fp6/bf6, fp4 (cbsz for A,
    blgp for B), as llvm-mc -mcpu=gfx950 takes them (v[0:3] with cbsz:4)."""

    def build(wa: int, wb: int, **fmt):
        m = Module("t", target="gfx950")
        with m.kernel("k", [Arg.ptr("x")], workgroup_size=(64, 1, 1)) as k:
            v = k.v_mov_b32(1)
            k.v_mfma_f32_16x16x128_f8f6f4(k.concat(*[v] * wa), k.concat(*[v] * wb), 0, **fmt)
            k.s_endpgm()
        m.verify()
        return m

    assert "cbsz = 4" in build(4, 6, cbsz=4, blgp=2).text()
    build(8, 8)  # fp8 x fp8: the table's width
    with pytest.raises(Diagnostic, match="src0 must be 4 dword"):
        build(8, 8, cbsz=4)
    with pytest.raises(Diagnostic, match="cbsz = 5 is not an f8f6f4 format"):
        build(8, 8, cbsz=5)
