"""File-level directives (sections, data, alignment, .set, labels) vs llvm-mc + ld.lld, and
diagnostics with file:line:col for bad input."""

from __future__ import annotations

import pytest

from gcnforge.binary import assemble, read_code_object
from gcnforge.diagnostics import Diagnostic
from gcnforge.testing import require_llvm

DATA_FILE = r"""
	.amdgcn_target "amdgcn-amd-amdhsa--gfx942"   // a comment
	.amdhsa_code_object_version 5 ; another comment
	.file "x.cl"
	.text
	.globl	k                               ; -- Begin function k
	.p2align	8
	.type	k,@function
k:                                      ; @k
	s_mov_b32 s0, .Lend - k                ; label difference as an operand expression? no: plain constant below
	s_nop 0
	s_branch .Lskip
	s_nop 1
.Lskip: s_endpgm
.Lend:
	.size	k, .Lend-k
	.p2align 6          /* code padding is s_nop 0 */
	.byte 1, 2, 0x3, 4  ; 3 bytes then .p2align 3 in .text hangs llvm-mc 22 (LLVM bug), so 4
	.p2align 3
	.globl helper
	.type helper,@function
helper:
	s_setpc_b64 s[30:31]
.Lhelper_end:
	.size helper, .Lhelper_end-helper
	.p2alignl 6, 3212836864
	.fill 16, 4, 3212836864
	.section .rodata,"a",@progbits
	.p2align 4, 0x0
table:
	.byte 1, 255, -1
	.short 0x1234, -2
	.long .Lend - k, 7 * 6 + (1 << 4)
	.quad 0x123456789abcdef0
	.zero 3
	.space 2, 0x5a
	.ascii "ab\n"
	.asciz "c\"d"
	.string "e"
	.balign 8, 0xee
	.p2align 2
	.long sym_a + sym_b
	.set sym_a, 40
	sym_b = sym_a * 2
	.p2align 6, 0x0
	.amdhsa_kernel k
		.amdhsa_next_free_vgpr 1
		.amdhsa_next_free_sgpr sym_a / 4
		.amdhsa_accum_offset 4
	.end_amdhsa_kernel
	.section .AMDGPU.csdata,"",@progbits
; Kernel info: (dropped: not allocated)
	.section	".note.GNU-stack","",@progbits
	.addrsig
	.ident "clang"
"""


def test_data_directives_match_llvm():
    require_llvm("llvm-mc", "ld.lld")
    text = DATA_FILE.replace("s_mov_b32 s0, .Lend - k                ; label difference as an operand expression? no: plain constant below",
                             "s_mov_b32 s0, 5")
    ours, ref = read_code_object(assemble(text)), read_code_object(assemble(text, toolchain="llvm"))
    assert ours.text == ref.text
    for sec in (".rodata", ".text"):
        a, b = ours.sections[sec], ref.sections[sec]
        assert a[0] == b[0] and ours.data[a[1]:a[1] + a[2]] == ref.data[b[1]:b[1] + b[2]], sec
    assert ours.kernels["k"].descriptor == ref.kernels["k"].descriptor
    for name in ("k", "helper", "k.kd"):
        assert ours.symbols[name] == ref.symbols[name]
    assert ours.symbols["table"].value == ref.symbols["table"].value


BAD = [
    ("\t.text\n\t.bogus_directive 1\n", "<t>:2:2: error: unknown directive '.bogus_directive'"),
    ("\t.text\nk:\nk:\n", "<t>:3:1: error: symbol 'k' is already defined"),
    ("\t.text\n\ts_branch .Lnowhere\n", "undefined symbol '.Lnowhere'"),
    ("\t.text\n\t.long 1 +\n", "<t>:2:11: error: expected an expression"),
    ("\t.text\n\t.byte 256\n", "does not fit in 1 bytes"),
    ("\t.text\n\t.p2align 3, 0, 1, 2\n\t.p2align 40\n", "alignment exponent out of range"),
    ("\t.text\n\t.fill -1, 4, 0\n", "invalid .fill"),
    ("\t.set a, b\n\t.set b, a\n\t.long a\n", "cyclic dependency detected"),
    ("\t.text\n\t.globl missing\n", "declared but never defined"),
    ("\t.amdhsa_kernel k\n\t.amdhsa_next_free_vgpr 1\n", "expected .end_amdhsa_kernel"),
    ("\t.end_amdhsa_kernel\n", "without a matching start"),
    ("\t.rodata\n\t.amdhsa_kernel k\n\t\t.amdhsa_next_free_vgpr 1\n\t\t.amdhsa_next_free_sgpr 1\n"
     "\t\t.amdhsa_accum_offset 4\n\t.end_amdhsa_kernel\n", "no label 'k:'"),
    ("\t.text\nk:\n\ts_endpgm\n\t.rodata\n\t.quad k\n", "needs a dynamic relocation"),
    ("\t.text\nk:\n\ts_endpgm\n\t.data\n\t.long k\n", "needs a dynamic relocation"),
    ("\t.amdhsa_code_object_version 3\n", "unsupported code object version 3"),
    ("\t.text\n\tv_bogus_op v0, v1\n", "<t>:2:2: error: unknown instruction 'v_bogus_op'"),
]


@pytest.mark.parametrize("text, message", BAD)
def test_diagnostics(text, message):
    with pytest.raises(Diagnostic) as ei:
        assemble(text, filename="<t>")
    assert message in str(ei.value)


def test_bad_toolchain_and_target():
    with pytest.raises(Diagnostic, match="unknown toolchain"):
        assemble("", toolchain="gas")
    with pytest.raises(Diagnostic, match="unknown or unsupported target"):
        assemble("", target="gfx1100")


@pytest.mark.parametrize("text", [
    ".rodata\n.byte 1\n.text\ns_endpgm\n",
    ".text\ns_endpgm\n.data\n.long 5\n",
    "",
    ".rodata\n.p2align 6\n.quad 1, 2\n.text\n.p2align 8\ns_nop 0\n",
])
def test_small_layouts_match_lld(text):
    require_llvm("llvm-mc", "ld.lld")
    ours, ref = read_code_object(assemble(text)), read_code_object(assemble(text, toolchain="llvm"))
    for sec, (addr, _, size) in ref.sections.items():
        if addr and sec != ".relro_padding":  # allocated sections: same address and size as ld.lld
            assert ours.sections[sec][0] == addr and ours.sections[sec][2] == size, sec
    assert ours.text == ref.text
    assert _phdrs(ours.data) == _phdrs(ref.data)


def _phdrs(data: bytes) -> list[tuple]:
    """Program headers without memsz (ld.lld pads the relro segment to a page with .relro_padding)."""
    import io

    from elftools.elf.elffile import ELFFile

    elf = ELFFile(io.BytesIO(data))
    return [(s["p_type"], s["p_flags"], s["p_offset"], s["p_vaddr"], s["p_filesz"], s["p_align"])
            for s in elf.iter_segments()]


def test_section_merging_like_lld():
    """.text.* / .rodata.* / .data.* / .bss.* go into .text / .rodata / .data / .bss, as ld.lld puts them."""
    require_llvm("llvm-mc", "ld.lld")
    text = """
	.section .text.a,"ax",@progbits
	.globl a
	.protected a
	.type a,@function
a:
	s_nop 0
	s_endpgm
.La_end:
	.size a, .La_end-a
	.section .text.b,"ax",@progbits
	.p2align 8
	.globl b
	.type b,@function
b:
	s_branch .Lb1
.Lb1:
	s_getpc_b64 s[2:3]
	s_add_u32 s2, s2, a@rel32@lo+4
	s_addc_u32 s3, s3, a@rel32@hi+12
	s_swappc_b64 s[30:31], s[2:3]
	s_endpgm
.Lb_end:
	.size b, .Lb_end-b
	.section .rodata.x,"a",@progbits
	.byte 7
	.section .rodata.y,"a",@progbits
	.p2align 6
	.amdhsa_kernel b
		.amdhsa_next_free_vgpr 1
		.amdhsa_next_free_sgpr 1
		.amdhsa_accum_offset 4
	.end_amdhsa_kernel
	.section .data.z,"aw",@progbits
	.long 5
	.section .bss.w,"aw",@nobits
	.zero 64
"""
    ours, ref = read_code_object(assemble(text)), read_code_object(assemble(text, toolchain="llvm"))
    assert ours.text == ref.text
    assert ours.kernels["b"].descriptor == ref.kernels["b"].descriptor
    for sec in (".text", ".rodata", ".data", ".bss", ".dynamic"):
        assert ours.sections[sec][0] == ref.sections[sec][0] and ours.sections[sec][2] == ref.sections[sec][2], sec
    for name in ("a", "b", "b.kd"):
        assert ours.symbols[name] == ref.symbols[name]


BRANCHES = """\t.text
k:
.L0:\ts_cbranch_scc0 .L2
\ts_cbranch_scc0 .L1
.L1:
\ts_cbranch_scc0 .L0
\ts_cbranch_scc0 .L2\t; the same text as the first line (after its label)
\ts_cbranch_vccz .L_far.x
\ts_branch .L1
\ts_branch  .L2
.L2:\ts_cbranch_vccz .L0
.L_far.x:
\ts_endpgm
"""


def test_branches_differing_only_in_label_match_llvm():
    """The assembler parses one line per shape "s_cbranch_scc0 <label>" and reuses it for the
    other labels: every branch must still get its own offset (llvm-mc + ld.lld as oracle)."""
    require_llvm("llvm-mc", "ld.lld")
    ours, ref = read_code_object(assemble(BRANCHES)), read_code_object(assemble(BRANCHES, toolchain="llvm"))
    assert ours.text == ref.text


def test_reused_branch_parse_keeps_its_own_location():
    text = "\t.text\n.La:\n\ts_branch .La\n  s_branch .Lfar\n\t.fill 40000, 4, 0\n.Lfar:\n"
    with pytest.raises(Diagnostic) as ei:
        assemble(text, filename="<t>")
    assert str(ei.value).startswith("<t>:4:12: error: branch target '.Lfar' out of range")


# values around every edge of the inline-constant rules (integers -16..64, the f32/f64 bit
# patterns of 0.5, 1.0, 2.0, 4.0, 1/(2*pi) and their negatives, 32-bit wrap-around)
EDGE_VALUES = ["0", "64", "65", "0x41", "100", "0xffffffff", "0xfffffff0", "0xffffffef", "0x3f800000",
               "0xbf800000", "0x3e22f983", "0x40800000", "0x3fe00000", "0x3ff00000", "0x80000000", "0x7fffffff",
               "4294967295", "0x12345678", "0xc0800000", "1065353216"]
LITERAL_SHAPES = ["s_add_u32 s4, s4, {}", "s_mov_b32 s5, {}", "s_mov_b64 s[6:7], {}", "s_cmp_eq_u32 s0, {}",
                  "s_and_b32 s0, {}, s1", "s_add_u32 s4, 0.5, {}", "s_xor_b64 s[0:1], s[2:3], {}",
                  "s_lshl_b32 s8, s4, {}"]


def test_scalar_lines_differing_only_in_a_literal_match_llvm():
    """The assembler parses one line per shape "s_add_u32 s4, s4, <integer>" and reuses it
    for other literals: each value must still be encoded as LLVM does (inline or literal)."""
    require_llvm("llvm-mc", "ld.lld")
    body = "".join(f"\t{shape.format(v)}\n" for shape in LITERAL_SHAPES for v in EDGE_VALUES)
    text = "\t.text\nk:\n" + body + "\ts_endpgm\n"
    ours, ref = read_code_object(assemble(text)), read_code_object(assemble(text, toolchain="llvm"))
    assert ours.text == ref.text


def test_reused_literal_shape_still_reports_bad_values():
    text = "\t.text\n\ts_add_u32 s4, s4, 0x1000\n\ts_add_u32 s4, s4, 0x2000\n\ts_add_u32 s4, s4, 0x100000000\n"
    with pytest.raises(Diagnostic) as ei:
        assemble(text, filename="<t>")
    assert str(ei.value).startswith("<t>:4:20: error:") and "out of range" in str(ei.value)
