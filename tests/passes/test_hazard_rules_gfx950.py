"""gfx950's hazard rows (``gcnforge.isa.hazards`` with target gfx950) against clang 22
``-mcpu=gfx950``, as tests/passes/test_hazard_rules.py does for gfx942.

MFMA pairs (XDL and non-XDL of every pass count, both DGEMMs, and the new CDNA4 shapes),
each with a store, a VALU op, the next MFMA's SrcA/B and SrcC as the consumer; then the
rows gfx950 changes or adds: an XDL result overlapping the next SrcC, a VALU write read by
``v_permlane16_swap`` / ``v_permlane32_swap``, the dst-sel forwarding of ``v_cvt_scalef32_*``
and ``v_cvt_pk_fp8_f32`` writing the high half (``op_sel:[0,0,1]``; also on gfx942). Where
clang pads, the table's number equals clang's; the hazard pass (verify mode, on the raised
gfx950 kernel) accepts clang's code and reports one wait state short when the last
``s_nop`` before the consumer is one shorter."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gcnforge.binary import assemble, read_code_object
from gcnforge.isa import hazards as hz
from gcnforge.isa import mfma, table
from gcnforge.raising import raise_code_object
from gcnforge.raising.verify import verify_module
from gcnforge.testing import require_llvm

sys.path.insert(0, str(Path(__file__).parent))
import test_hazard_rules as g942  # noqa: E402  (the kernel generator and clang-output reader)

# mnemonic -> (builtin, A/B element type, accumulator type), as in the gfx942 test
MFMAS = {k: v for k, v in g942.MFMAS.items() if "xf32" not in k}  # no xf32 MFMA on gfx950
MFMAS.update({
    "v_mfma_f32_16x16x32_f16": ("mfma_f32_16x16x32_f16", "v8h", "v4f"),  # XDL, 4
    "v_mfma_f32_32x32x16_f16": ("mfma_f32_32x32x16_f16", "v8h", "v16f"),  # XDL, 8
    "v_mfma_f32_16x16x32_bf16": ("mfma_f32_16x16x32_bf16", "v8bf", "v4f"),  # XDL, 4
    "v_mfma_i32_16x16x64_i8": ("mfma_i32_16x16x64_i8", "v4i", "v4i"),  # XDL, 4
    "v_mfma_i32_32x32x32_i8": ("mfma_i32_32x32x32_i8", "v4i", "v16i"),  # XDL, 8
})
HEADER = g942.HEADER + """typedef half v8h __attribute__((ext_vector_type(8)));
typedef __bf16 v8bf __attribute__((ext_vector_type(8)));
typedef int v16i __attribute__((ext_vector_type(16)));
typedef half v2h __attribute__((ext_vector_type(2)));
typedef unsigned int v2u __attribute__((ext_vector_type(2)));
typedef int v8i __attribute__((ext_vector_type(8)));
typedef float v2f __attribute__((ext_vector_type(2)));
"""
CASES = [(mn, c) for mn in MFMAS for c in g942.CONSUMERS]
T = "gfx950"


def _kernel(mn: str, consumer: str) -> tuple[str, str]:
    b, ab, acc = MFMAS[mn]
    if consumer != "srcab" or ab not in ("v8h", "v8bf", "v4i"):
        with _patched(mn):
            return g942._kernel(mn, consumer)
    # the result's first 16 bytes as the next MFMA's A (the new shapes' A is 16 bytes)
    name = f"k_{consumer}_{mn}"
    first = "c" if acc in ("v4f", "v4i") else "c.s0123"
    return name, (f"kernel void {name}(global {acc} *restrict out, global const {acc} *restrict cin, "
                  f"global const {ab} *restrict ain) {{\n  int i = __builtin_amdgcn_workitem_id_x();\n"
                  f"  {ab} a = ain[i], bb = ain[i + 64];\n  {acc} c = __builtin_amdgcn_{b}(a, bb, cin[i], 0, 0, 0);\n"
                  f"  out[i] = __builtin_amdgcn_{b}(__builtin_astype({first}, {ab}), bb, cin[i + 64], 0, 0, 0);\n}}\n")


class _patched:
    """g942._kernel reads its own MFMAS: lend it this file's row for ``mn``."""

    def __init__(self, mn: str):
        self.mn = mn

    def __enter__(self):
        self.had = self.mn in g942.MFMAS
        self.old = g942.MFMAS.get(self.mn)
        g942.MFMAS[self.mn] = MFMAS[self.mn]

    def __exit__(self, *exc):
        if self.had:
            g942.MFMAS[self.mn] = self.old
        else:
            del g942.MFMAS[self.mn]


# the rows gfx950 changes or adds: name -> (OpenCL body, rule, producer prefix, consumer prefix)
EXTRA = {
    "srcc_overlap": ("""kernel void srcc_overlap(global v4f *restrict out, global const v16f *restrict cin,
                          global const v4h *restrict ain) {
  int i = __builtin_amdgcn_workitem_id_x();
  v16f c = __builtin_amdgcn_mfma_f32_32x32x8f16(ain[i], ain[i+64], cin[i], 0, 0, 0);
  out[i] = __builtin_amdgcn_mfma_f32_16x16x16f16(ain[i+128], ain[i+192], c.s4567, 0, 0, 0);
}""", "mfma_srcc_overlap", "v_mfma_f32_32x32x8_f16", "v_mfma_f32_16x16x16_f16"),
    # the DGEMM 16x16 result read in part as a DGEMM 4x4's SrcC: 17 on gfx950 (9 on gfx942)
    "dgemm_srcc_overlap": ("""kernel void dgemm_srcc_overlap(global double *restrict out, global const v4d *restrict cin,
                          global const double *restrict a) {
  int i = __builtin_amdgcn_workitem_id_x();
  v4d c = __builtin_amdgcn_mfma_f64_16x16x4f64(a[i], a[i+64], cin[i], 0, 0, 0);
  out[i] = __builtin_amdgcn_mfma_f64_4x4x4f64(a[i+128], a[i+192], c.s1, 0, 0, 0);
}""", "mfma_srcc_overlap", "v_mfma_f64_16x16x4_f64", "v_mfma_f64_4x4x4_4b_f64"),
    "permlane16": ("""kernel void permlane16(global v2u *restrict out, global const unsigned *restrict in) {
  int i = __builtin_amdgcn_workitem_id_x();
  out[i] = __builtin_amdgcn_permlane16_swap(in[i] + in[i+64], in[i+128] * in[i+192], false, false);
}""", "valu_vgpr_permlane", "v_mul_lo_u32", "v_permlane16_swap_b32_e32"),
    "permlane32": ("""kernel void permlane32(global v2u *restrict out, global const unsigned *restrict in) {
  int i = __builtin_amdgcn_workitem_id_x();
  out[i] = __builtin_amdgcn_permlane32_swap(in[i] + in[i+64], in[i+128] * in[i+192], false, false);
}""", "valu_vgpr_permlane", "v_mul_lo_u32", "v_permlane32_swap_b32_e32"),
    "cvt_scale_hi": ("""kernel void cvt_scale_hi(global v2h *restrict out, global const v2h *restrict old,
                          global const int *restrict src, float s) {
  int i = __builtin_amdgcn_workitem_id_x();
  v2h r = __builtin_amdgcn_cvt_scalef32_f16_fp8(old[i], src[i], s, 0, true);
  out[i] = r + r;
}""", "valu_partial_vgpr", "v_cvt_scalef32_f16_fp8", "v_pk_add_f16"),
    # f8f6f4: twice the passes when A or B is FP8/BF8 (cbsz / blgp 0 or 1), checked both ways
    **{f"f8f6f4_{shape}_{a}_{b}": (f"""kernel void f8f6f4_{shape}_{a}_{b}(global {acc} *restrict out,
                          global const {acc} *restrict cin, global const v8i *restrict ain) {{
  int i = __builtin_amdgcn_workitem_id_x();
  out[i] = __builtin_amdgcn_mfma_scale_f32_{shape}_f8f6f4(ain[i], ain[i+64], cin[i], {a}, {b}, 0, 0, 0, 0);
}}""", "mfma_mem_read", f"v_mfma_f32_{shape}_f8f6f4", "global_store_dwordx4", (a, b))
       for shape, acc in (("16x16x128", "v4f"), ("32x32x64", "v16f")) for a, b in ((0, 0), (4, 4), (2, 4), (4, 1))},
    # dst-sel conversions: op_sel[2] picks the byte (FP8/BF8) or nibble pair (FP4) written; the
    # FP4 stochastic-rounding ones forward a partial write at every op_sel
    **{name: (f"""kernel void {name}(global unsigned *restrict out, global const unsigned *restrict old,
                          global const float *restrict f, float s) {{
  int i = __builtin_amdgcn_workitem_id_x();
  unsigned r = {expr};
  out[i] = r + 5;
}}""", "valu_partial_vgpr", producer, "v_add_u32_e32") for name, expr, producer in (
        ("sr_fp8_byte1", "__builtin_amdgcn_cvt_sr_fp8_f32(f[i], old[i+64], old[i], 1)", "v_cvt_sr_fp8_f32"),
        ("scale_sr_bf8_byte1", "__builtin_amdgcn_cvt_scalef32_sr_bf8_f32(old[i], f[i], old[i+64], s, 1)",
         "v_cvt_scalef32_sr_bf8_f32"),
        ("scale_pk_fp4_sel1", "__builtin_amdgcn_cvt_scalef32_pk_fp4_f32(old[i], f[i], f[i+64], s, 1)",
         "v_cvt_scalef32_pk_fp4_f32"),
        ("scale_sr_pk_fp4_sel0",
         "__builtin_amdgcn_cvt_scalef32_sr_pk_fp4_f32(old[i], (v2f)(f[i], f[i+64]), old[i+64], s, 0)",
         "v_cvt_scalef32_sr_pk_fp4_f32"))},
    "cvt_pk_fp8_hi": ("""kernel void cvt_pk_fp8_hi(global int *restrict out, global const float *restrict in,
                           global const int *restrict old) {
  int i = __builtin_amdgcn_workitem_id_x();
  out[i] = __builtin_amdgcn_cvt_pk_fp8_f32(in[i], in[i+64], old[i], true) + 5;
}""", "valu_partial_vgpr", "v_cvt_pk_fp8_f32", "v_add_u32_e32"),
}


def _compile(d: Path, names: dict, bodies: dict, mcpu: str = T) -> dict:
    clang = require_llvm("clang")["clang"]
    for name in names:
        (d / f"{name}.cl").write_text(HEADER + bodies[name])
    subprocess.run([clang, "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", f"-mcpu={mcpu}", "-nogpulib", "-O2",
                    "-S", *(f"{n}.cl" for n in names)], cwd=d, check=True, capture_output=True)
    return {n: (d / f"{n}.s").read_text() for n in names}


@pytest.fixture(scope="module")
def clang(tmp_path_factory):
    d = tmp_path_factory.mktemp("hazard_rules_gfx950")
    kernels = {case: _kernel(*case) for case in CASES}
    texts = _compile(d, [n for n, _ in kernels.values()], {n: src for n, src in kernels.values()})
    pairs = {case: g942.Pair(texts[n].splitlines(), n) for case, (n, _) in kernels.items()}
    return {case: texts[n] for case, (n, _) in kernels.items()}, pairs


def _findings(text: str, kernel: str) -> list[str] | None:
    m = raise_code_object(read_code_object(assemble(text, target=T)))
    if any(op.name == "lift.inst" and ("v_mfma" in str(op) or "permlane" in str(op)) for op in m.walk()):
        return None
    return [f for f in verify_module(m, ["hazards"]) if f.startswith(f"@{kernel} ")]


def _shortened(text: str, nop_line: int) -> str:
    lines = text.splitlines()
    k = int(lines[nop_line].split()[1])
    return "\n".join(lines[:nop_line] + ([f"\ts_nop {k - 1}"] if k else []) + lines[nop_line + 1:]) + "\n"


def test_mfma_rows_match_clang_gfx950(clang):
    _, pairs = clang
    exact = 0
    for (mn, c), p in pairs.items():
        need = hz.need("mfma_overwrite" if p.overwrites else g942.CONSUMERS[c], mn, target=T)
        if p.padded:
            assert need == p.wait_states, (mn, c, p.consumer, need, p.wait_states)
            exact += 1
        else:
            assert need <= p.wait_states, (mn, c, p.consumer, need, p.wait_states)
    assert exact >= 40
    # what changed from gfx942: one more after XDL MFMAs of more than 2 passes, the 16-pass DGEMM
    assert hz.need("mfma_valu_read", "v_mfma_f32_32x32x8_f16", target=T) == \
        hz.need("mfma_valu_read", "v_mfma_f32_32x32x8_f16", target="gfx942") + 1 == 12
    assert hz.need("mfma_valu_read", "v_mfma_f32_4x4x4_16b_f16", target=T) == 5
    assert mfma.passes("v_mfma_f64_16x16x4_f64", T) == 16 and mfma.passes("v_mfma_f64_16x16x4_f64", "gfx942") == 8


@pytest.mark.parametrize("mn,c", [(mn, c) for mn, c in CASES if c != "srcc"], ids=lambda x: str(x))
def test_pass_accepts_clang_and_reports_one_short(clang, mn, c):
    texts, pairs = clang
    p, name = pairs[(mn, c)], _kernel(mn, c)[0]
    if not p.padded:
        pytest.skip("clang needed no s_nop here")
    found = _findings(texts[(mn, c)], name)
    if found is None:
        pytest.skip("the raiser keeps this instruction opaque (lift.inst)")
    assert found == []
    found = _findings(_shortened(texts[(mn, c)], p.nops[-1]), name)
    assert found and "needs 1 more wait state" in found[0], found


@pytest.fixture(scope="module")
def extra(tmp_path_factory):
    d = tmp_path_factory.mktemp("hazard_rows_gfx950")
    return _compile(d, list(EXTRA), {n: v[0] for n, v in EXTRA.items()})


def _extra(name: str):
    body, rule, producer, consumer, *formats = EXTRA[name]
    return body, rule, producer, consumer, (formats[0] if formats else None)


def _pad_before(text: str, kernel: str, producer: str, consumer: str) -> tuple[int, int]:
    """Wait states clang put between ``producer`` and ``consumer`` in ``kernel``, and the
    line of its last s_nop."""
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.split(";")[0].strip() == f"{kernel}:")
    i = next(i for i in range(start, len(lines)) if lines[i].strip().startswith(producer))
    j = next(j for j in range(i + 1, len(lines)) if lines[j].strip().startswith(consumer))
    body = [ln.strip() for ln in lines[i + 1:j] if ln.strip() and not ln.strip().startswith((";", "."))]
    nops = [k for k in range(i + 1, j) if lines[k].strip().startswith("s_nop")]
    return sum(g942._wait_states(b) for b in body), (nops[-1] if nops else -1)


@pytest.mark.parametrize("name", sorted(EXTRA))
def test_gfx950_rows_match_clang(extra, name):
    _, rule, producer, consumer, formats = _extra(name)
    ws, last_nop = _pad_before(extra[name], name, producer, consumer)
    assert last_nop >= 0, "clang padded nothing: the pair does not show the rule"
    assert hz.need(rule, producer, consumer, target=T, formats=formats) == ws, (rule, ws)
    found = _findings(extra[name], name)
    if found is None:
        pytest.skip("the raiser keeps this instruction opaque (lift.inst)")
    assert found == []
    found = _findings(_shortened(extra[name], last_nop), name)
    assert found and "needs 1 more wait state" in found[0] and f"({rule})" in found[0], found


def test_permlane_row_is_gfx950s_and_cvt_pk_dst_sel_holds_on_gfx942(tmp_path):
    assert hz.need("valu_vgpr_permlane", target="gfx942") == 0 and hz.need("valu_vgpr_permlane", target=T) == 2
    body, rule, producer, consumer, _ = _extra("cvt_pk_fp8_hi")
    text = _compile(tmp_path, ["cvt_pk_fp8_hi"], {"cvt_pk_fp8_hi": body}, "gfx942")["cvt_pk_fp8_hi"]
    ws, last_nop = _pad_before(text, "cvt_pk_fp8_hi", producer, consumer)
    assert ws == hz.need(rule, target="gfx942") == 1 and last_nop >= 0
    m = raise_code_object(read_code_object(assemble(_shortened(text, last_nop))))
    found = [f for f in verify_module(m, ["hazards"]) if f.startswith("@cvt_pk_fp8_hi ")]
    assert found and f"({rule})" in found[0], found
    with table.use_target("gfx942"):
        assert hz.need(rule) == 1


def test_byte0_conversions_need_no_wait_state(tmp_path):
    """The same conversions writing byte / pair 0 (op_sel[2] clear, not FP4 stochastic
    rounding): clang pads nothing before the read, and the pass asks for nothing."""
    bodies = {n: f"""kernel void {n}(global unsigned *restrict out, global const unsigned *restrict old,
                          global const float *restrict f, float s) {{
  int i = __builtin_amdgcn_workitem_id_x();
  unsigned r = {e};
  out[i] = r + 5;
}}""" for n, e in (("sr_fp8_byte0", "__builtin_amdgcn_cvt_sr_fp8_f32(f[i], old[i+64], old[i], 0)"),
                   ("scale_pk_fp4_sel0", "__builtin_amdgcn_cvt_scalef32_pk_fp4_f32(old[i], f[i], f[i+64], s, 0)"))}
    texts = _compile(tmp_path, list(bodies), bodies)
    for n, text in texts.items():
        lines = [ln.split(";")[0].strip() for ln in text.splitlines()]
        i = next(k for k in range(lines.index(f"{n}:"), len(lines)) if lines[k].startswith("v_cvt"))
        assert lines[i + 1].startswith("v_add_u32"), lines[i:i + 2]  # clang: no s_nop
        assert _findings(text, n) == []


def test_sr_fp8_byte_select_row_holds_on_gfx942(tmp_path):
    body, rule, producer, consumer, _ = _extra("sr_fp8_byte1")
    text = _compile(tmp_path, ["sr_fp8_byte1"], {"sr_fp8_byte1": body}, "gfx942")["sr_fp8_byte1"]
    ws, last_nop = _pad_before(text, "sr_fp8_byte1", producer, consumer)
    assert ws == hz.need(rule, target="gfx942") == 1 and last_nop >= 0
    m = raise_code_object(read_code_object(assemble(_shortened(text, last_nop))))
    found = [f for f in verify_module(m, ["hazards"]) if f.startswith("@sr_fp8_byte1 ")]
    assert found and f"({rule})" in found[0], found
