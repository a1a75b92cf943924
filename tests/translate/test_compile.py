"""Compile the example kernels end to end and hold the result to LLVM: both toolchains
give the same code, descriptor and metadata; llvm-objdump disassembles it and llvm-readelf
reads its notes; the allocation passes its checker with registers used == lower bound."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gcnforge.binary import assemble, read_code_object
from gcnforge.cli.cmd_compile import DEFAULT, compile_file, load
from gcnforge.diagnostics import Diagnostic
from gcnforge.passes import pipeline as pl
from gcnforge.testing import require_llvm

ROOT = Path(__file__).resolve().parents[2]
# every example that builds a kernel (a module-level Module or a build() returning one);
# (the driver scripts live in examples/drivers/)
EXAMPLES = sorted(p for p in (ROOT / "examples").glob("*.py")
                  if "Module(" in p.read_text() and "def main(" not in p.read_text())
EXAMPLES += sorted((Path(__file__).parent / "kernels").glob("*.py"))


def test_default_pipeline_matches_cli():
    assert DEFAULT == pl.DEFAULT


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_compiles_same_with_both_toolchains(path, tmp_path):
    tools = require_llvm("llvm-mc", "ld.lld", "llvm-objdump", "llvm-readelf")
    text = compile_file(path, pl.DEFAULT, None, "builtin", asm_only=True)
    ours = assemble(text, toolchain="builtin")
    theirs = assemble(text, toolchain="llvm")
    # a compile to a code object hands the metadata map to the writer without the YAML
    # round trip: the same bytes as assembling its text (held to LLVM below)
    assert compile_file(path, pl.DEFAULT, None, "builtin", asm_only=False) == ours
    a, b = read_code_object(ours), read_code_object(theirs)
    assert a.kernels.keys() == b.kernels.keys() and a.kernels
    for name in a.kernels:
        ka, kb = a.kernels[name], b.kernels[name]
        assert ka.code == kb.code
        assert ka.descriptor == kb.descriptor
        assert ka.metadata == kb.metadata
    f = tmp_path / "k.hsaco"
    f.write_bytes(ours)
    dis = subprocess.run([tools["llvm-objdump"], "-d", "--mcpu=gfx942", str(f)], capture_output=True, text=True,
                         check=True).stdout
    assert "s_endpgm" in dis and "<unknown>" not in dis
    notes = subprocess.run([tools["llvm-readelf"], "--notes", str(f)], capture_output=True, text=True, check=True).stdout
    assert "amdhsa.kernels" in notes


def test_vector_add_allocation_meets_lower_bound():
    mod = load(ROOT / "examples" / "authoring_vector_add.py")
    pl.run(mod, pl.parse("amdgcn-inline,amdgcn-lower-abi,amdgcn-regalloc"))
    from gcnforge.dialect.structure_ops import KernelOp

    k = next(op for op in mod.walk() if isinstance(op, KernelOp))
    used = {n: a.value.data for n, a in k.attributes["regalloc"].data.items()}
    bound = {n: a.value.data for n, a in k.attributes["regalloc_bound"].data.items()}
    assert used["v"] == bound["v"]
    # SGPRs: the pinned workgroup id in s2 splits the file, so the 64-bit pointers start at s4
    assert used["s"] <= bound["s"] + 2


def test_bad_input_is_a_diagnostic(tmp_path):
    f = tmp_path / "bad.mlir"
    f.write_text("builtin.module { amdgcn.kernel @k { } ")
    with pytest.raises(Diagnostic):
        load(f)
    g = tmp_path / "bad.py"
    g.write_text("x = 1\nraise ValueError('nope')\n")
    with pytest.raises(Diagnostic) as e:
        load(g)
    assert "bad.py:2" in str(e.value)


def test_a_module_bound_to_two_names_is_compiled_once(tmp_path):
    # was "symbol 'k' is already defined" at a line past the end of the file
    src = ("from gcnforge.builder import Arg, Module\n"
           "m = Module('m')\n"
           "with m.kernel('k', [Arg.ptr('p')]) as k:\n"
           "    (p,) = k.args()\n"
           "    k.global_store_dword(k.v_lshlrev_b32(2, k.thread_id('x')), k.v_mov_b32(42), p)\n"
           "    k.s_endpgm()\n")
    one, two = tmp_path / "d1" / "k.py", tmp_path / "d2" / "k.py"  # same name: the line table names the file
    one.parent.mkdir()
    two.parent.mkdir()
    one.write_text(src)
    two.write_text(src + "alias = m\n")
    a, b = compile_file(two, DEFAULT, None, "builtin", False), compile_file(one, DEFAULT, None, "builtin", False)
    assert a.replace(b"/d2", b"/d1") == b


def test_cli_compile_and_select_kernel(tmp_path):
    out = tmp_path / "va.hsaco"
    r = subprocess.run(["gcnforge", "compile", str(ROOT / "examples" / "authoring_vector_add.py"), "-o", str(out),
                        "--kernel", "vector_add", "--print-ir-after=amdgcn-regalloc"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "IR Dump After amdgcn-regalloc" in r.stderr
    assert "vector_add" in read_code_object(out.read_bytes()).kernels
    r = subprocess.run(["gcnforge", "compile", str(ROOT / "examples" / "authoring_vector_add.py"), "-S", "-o", "-",
                        "--kernel", "nope"], capture_output=True, text=True)
    assert r.returncode == 1 and "no kernel named nope" in r.stderr and "Traceback" not in r.stderr


# Kernels where the allocation exceeds the lower bound, and why (checked to stay within the
# slack): an even-aligned pair or 4-aligned buffer descriptor (V#) next to a register pinned
# by the ABI (v0 work-item id, s2 work-group id) leaves a hole the bound does not count.
ABOVE_BOUND = {
    "vector_add": {"s": 1},  # s2 (work-group id) pinned: pointer pairs start at s4, s3 unused
    "vector_add_global": {"s": 1},  # same
    "layer_norm_f32": {"v": 1, "s": 2},  # v0 pinned before VGPR pairs; V# quads after s2
    "rms_norm_f32": {"v": 1, "s": 2},
    "row_softmax_f32": {"v": 1, "s": 4},  # V# quads 4-aligned around s2 and the copied words
    "gemm_f16_32x32": {"s": 1},  # the C tile's V# (gcnforge.lib.store_result_tile) 4-aligned after s2
    "saxpy": {"s": 1},  # examples/runtime_bounds.py: two V# quads 4-aligned beside the loop counter
    "row_sum": {"s": 1},  # its V# quad 4-aligned around s2 (work-group id)
    # aiter-layout int8 GEMM: its ds_read_b128 operand quads (4-aligned) among the live pairs
    # fragment the file; max_vgprs=67 and 68 both fail to place one ("alignment and range
    # sizes fragment the file"), 69 allocates; SGPRs: first-fit uses 41 where
    # max_sgprs=39 allocates (allocator quality, as gemm_macro below)
    "gemm_i8_bf16_128x128": {"v": 2, "s": 2},
    # run-time K (5ea5cae): first-fit leaves one SGPR hole; amdgcn-regalloc{max_sgprs=23}
    # allocates, so this is allocator quality, not a hard limit (left for regalloc work)
    "gemm_macro_bf16_f32_256x256x32": {"s": 1},
}


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_registers_used_against_the_lower_bound(path):
    """Quality: registers used == the most registers ever live at once (the lower bound),
    except where ABOVE_BOUND explains the difference."""
    from gcnforge.dialect.structure_ops import KernelOp

    mod = load(path)
    pl.run(mod, pl.parse(pl.DEFAULT))
    for k in (op for op in mod.walk() if isinstance(op, KernelOp)):
        name = k.sym_name.data
        used = {n: a.value.data for n, a in k.attributes["regalloc"].data.items()}
        bound = {n: a.value.data for n, a in k.attributes["regalloc_bound"].data.items()}
        slack = ABOVE_BOUND.get(name, {})
        for f in "vas":
            assert bound[f] <= used[f] <= bound[f] + slack.get(f, 0), (name, f, used, bound)


def test_descriptor_fields_from_abi_and_allocation():
    """The .amdhsa_kernel block carries the ABI (preloads, LDS, float modes) and the
    allocation (VGPR/AGPR split at accum_offset), read back from the code object."""
    from gcnforge.binary import read_code_object
    from gcnforge.builder import Arg, Module
    from gcnforge.translate import to_assembly

    m = Module("d")
    with m.kernel("d", [Arg.ptr("p")], workgroup_size=(64, 2, 1), lds_size=1024,
                  float_mode={"denorm32": 0, "ieee": 0}) as k:
        (p,) = k.args()
        acc = k.agpr(None, 4)
        k.v_accvgpr_write_b32(k.split(acc)[0], k.thread_id("y"))
        k.s_add_u32(k.block_id("z"), 1)
        k.v_mov_b32(k.vgpr(5), 0)
        k.s_endpgm()
    pl.run(m.top, pl.parse(pl.DEFAULT))
    d = read_code_object(assemble(to_assembly(m.top))).kernels["d"].descriptor.directives()
    assert d["group_segment_fixed_size"] == 1024
    assert d["user_sgpr_kernarg_segment_ptr"] == 1
    assert d["system_sgpr_workgroup_id_z"] == 1
    assert d["system_vgpr_workitem_id"] == 1
    assert d["float_denorm_mode_32"] == 0 and d["ieee_mode"] == 0
    assert d["accum_offset"] == 8  # v0..v5 used -> 6 rounded up to 4s
    # a kernel without float_mode gets clang's defaults (f32 denormals preserved)
    assert read_code_object(compile_file(ROOT / "examples" / "authoring_vector_add.py", pl.DEFAULT, None, "builtin",
                                         False)).kernels["vector_add"].descriptor.directives()["float_denorm_mode_32"] == 3
    assert d["next_free_vgpr"] >= 8 + 4  # AGPRs after accum_offset


def test_modifier_without_a_spelling_is_located_at_its_op(tmp_path, capsys):
    # fuzz harness, ir target seed 0 #83090: a dpp_ctrl with no DPP spelling was reported with
    # no location by the translation to assembly
    from gcnforge.builder import Module
    from gcnforge.cli.main import main

    m = Module("m")
    with m.kernel("k") as k:
        k.v_mov_b32(k.vgpr(), row_shr=1)
        k.s_endpgm()
    text = str(m).replace("dpp_ctrl = 273", "dpp_ctrl = -56")
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if "dpp_ctrl = -56" in ln)
    src = tmp_path / "dpp.mlir"
    src.write_text(text)
    assert main(["compile", str(src), "-S", "-o", str(tmp_path / "k.s")]) != 0
    assert capsys.readouterr().err.startswith(f"{src}:{line}:7: error: dpp_ctrl -0x38")


def test_kernel_block_without_its_label_is_located():
    # fuzz harness, asm target seed 0 #4353: the linker's "no label" error had no location
    from gcnforge.binary import assemble

    src = """.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.text
  s_endpgm
.rodata
.p2align 6
.amdhsa_kernel k
  .amdhsa_next_free_vgpr 8
  .amdhsa_next_free_sgpr 8
  .amdhsa_accum_offset 4
.end_amdhsa_kernel
"""
    with pytest.raises(Diagnostic) as e:
        assemble(src)
    assert "no label 'k:'" in e.value.message and e.value.loc is not None and e.value.loc.line == 6
