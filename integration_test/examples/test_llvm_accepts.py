"""Every example's code object is accepted by LLVM's tools: ``llvm-objdump -d`` disassembles
it to exactly the instruction text gcnforge's disassembler gives (``gcnforge dis``), and
``llvm-readelf --notes`` reads its metadata. Built through the same cache as the other
example tests (same keys), so no kernel is compiled twice in one session."""

import subprocess

import pytest
from conftest import compiled

import gemm_lds
import gemm_macro
import gemm_pipelined
import norms
import row_softmax
import topk_softmax
import vector_ops
from gcnforge.asm.listing import objdump_lines
from gcnforge.binary import read_code_object
from gcnforge.testing import require_llvm

BUILDS = {
    "vector_add_global": (("vec", "add", "global"), lambda: vector_ops.build("add", "global")),
    "vector_copy_buffer": (("vec", "copy", "buffer"), lambda: vector_ops.build("copy", "buffer")),
    "row_add": (("reduce", "add"), lambda: row_softmax.build_reduce("add", 600, 4)),
    "row_softmax": ("softmax", lambda: row_softmax.build(1024, 4)),
    "layer_norm": (("norm", "layer"), lambda: norms.build("layer", 1024, 4)),
    "rms_norm": (("norm", "rms"), lambda: norms.build("rms", 1024, 4)),
    "topk_e256_k4": (("topk", 256, 4, True), lambda: topk_softmax.build(256, 4, True)),
    "gemm_bf16_bf16": (("gemm", "bf16", "bf16", 2, 2, 128, 64, 1), lambda: gemm_lds.build(64, 128, "bf16", "bf16", 2, 2, 64, 1)),
    "gemm_f16_splitk": (("gemm", "f16", "f32", 2, 2, 64, 128, 2), lambda: gemm_lds.build(128, 64, "f16", "f32", 2, 2, 64, 2)),
    "gemm_pipelined_loop": (("pipe", "f16", 2, 512), lambda: gemm_pipelined.build(512, 64, "f16", 2, 2)),
    "gemm_fp8": (("gemm", "fp8", "f32", 2, 2, 64, 128, 1), lambda: gemm_lds.build(128, 64, "fp8", "f32", 2, 2, 64, 1)),
    "gemm_macro_256": (("macro", "bf16", "f32", 256, 256, 2, 2, 1, 1),
                       lambda: gemm_macro.build("bf16", "f32", 256, 256)),
    "gemm_macro_splitk_pf4": (("macro", "bf16", "f32", 64, 64, 2, 2, 4, 4),
                              lambda: gemm_macro.build("bf16", "f32", 64, 64, 2, 2, 4, 4)),
    "gemm_macro_fp8": (("macro_fp8", "bf16", 256, 256), lambda: gemm_macro.build("fp8", "bf16")),
    "norm_bf16": (("norm_bf16", "layer"), lambda: norms.build_bf16("layer", 4096, 4)),
    # the fused MoE layer's seven kernels in one code object (routing, sorting, quantization,
    # both GEMM stages, the bf16 cast)
    "fused_moe_e8_k2": (("fused_moe", 8, 2, 32), lambda: _fused_moe()),
}


def _fused_moe():
    from moe import fused_moe as fm

    return fm.build_module(8, 2, fm.Config())
SCHEDULED = {"gemm_pipelined_loop", "gemm_macro_256", "gemm_macro_splitk_pf4", "gemm_macro_fp8"}


@pytest.mark.parametrize("label", list(BUILDS))
def test_llvm_objdump_matches(label, tmp_path):
    tools = require_llvm("llvm-objdump", "llvm-readelf")
    key, fn = BUILDS[label]
    blob = compiled(key, fn, schedule=label in SCHEDULED).blob
    path = tmp_path / f"{label}.co"
    path.write_bytes(blob)
    want = subprocess.run([tools["llvm-objdump"], "-d", "--mcpu=gfx942", str(path)], check=True,
                          capture_output=True, text=True).stdout.splitlines()
    co = read_code_object(blob)
    syms = sorted((s.value, s.name) for s in co.symbols.values() if s.type == "FUNC" and s.section == ".text")
    got = objdump_lines(co.text, co.text_address, syms)
    w = [ln.split("//")[0].split() for ln in want if ln.startswith("\t")]
    g = [ln.split("//")[0].split() for ln in got if ln.startswith("\t")]
    assert len(w) > 10 and w == g
    notes = subprocess.run([tools["llvm-readelf"], "--notes", str(path)], check=True,
                           capture_output=True, text=True).stdout
    assert "amdhsa.kernels" in notes and all(n in notes for n in co.kernels)
