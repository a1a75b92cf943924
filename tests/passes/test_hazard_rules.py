"""The one hazard table (``gcnforge.isa.hazards``) walked rule by rule.

MFMA rows, against clang 22: for each MFMA kind (XDL and non-XDL of every pass count, both
DGEMMs) and each consumer (a store, a VALU op, the next MFMA's SrcA/B, the next MFMA's SrcC),
small OpenCL kernels are compiled with the ``__builtin_amdgcn_mfma_*`` builtins and clang's
``s_nop`` count before the consumer is read. Then, on clang's own code:

* the table's number equals clang's (where clang had to pad, i.e. the exact requirement);
* the hazard pass (verify mode, on the raised kernel) accepts clang's N wait states, reports
  N - 1, and with the pads removed asks for exactly the missing wait states (what insert mode
  inserts);
* the sanitizer accepts N and reports N - 1 while the kernel runs on the emulator.

Other rows, hand-written pairs (clang rarely has to pad them): at N - 1 wait states both the
pass and the sanitizer report, at N neither does.
"""

from __future__ import annotations

import re
import struct
import subprocess

import numpy as np
import pytest

from gcnforge.binary import assemble, read_code_object
from gcnforge.emulator import Device
from gcnforge.isa import hazards as hz
from gcnforge.isa import table
from gcnforge.raising import raise_code_object
from gcnforge.raising.verify import verify_module
from gcnforge.testing import require_llvm

# mnemonic -> (builtin, A/B element type, accumulator type)
MFMAS = {
    "v_mfma_f32_4x4x1_16b_f32": ("mfma_f32_4x4x1f32", "float", "v4f"),  # non-XDL, 2 passes
    "v_mfma_f32_16x16x4_f32": ("mfma_f32_16x16x4f32", "float", "v4f"),  # non-XDL, 8
    "v_mfma_f32_32x32x2_f32": ("mfma_f32_32x32x2f32", "float", "v16f"),  # non-XDL, 16
    "v_mfma_f32_4x4x4_16b_f16": ("mfma_f32_4x4x4f16", "v4h", "v4f"),  # XDL, 2
    "v_mfma_f32_16x16x16_f16": ("mfma_f32_16x16x16f16", "v4h", "v4f"),  # XDL, 4
    "v_mfma_f32_32x32x8_f16": ("mfma_f32_32x32x8f16", "v4h", "v16f"),  # XDL, 8
    "v_mfma_f32_32x32x4_2b_f16": ("mfma_f32_32x32x4f16", "v4h", "v32f"),  # XDL, 16
    "v_mfma_f32_16x16x8_xf32": ("mfma_f32_16x16x8_xf32", "v2f", "v4f"),  # XDL, 4
    "v_mfma_i32_16x16x32_i8": ("mfma_i32_16x16x32_i8", "long", "v4i"),  # XDL, 4
    "v_mfma_f64_4x4x4_4b_f64": ("mfma_f64_4x4x4f64", "double", "double"),  # DGEMM 4x4
    "v_mfma_f64_16x16x4_f64": ("mfma_f64_16x16x4f64", "double", "v4d"),  # DGEMM 16x16
}
CONSUMERS = {"store": "mfma_mem_read", "valu": "mfma_valu_read", "srcab": "mfma_srcab", "srcc": "mfma_srcc_same"}
HEADER = """#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef float v2f __attribute__((ext_vector_type(2)));
typedef float v4f __attribute__((ext_vector_type(4)));
typedef float v16f __attribute__((ext_vector_type(16)));
typedef float v32f __attribute__((ext_vector_type(32)));
typedef half v4h __attribute__((ext_vector_type(4)));
typedef double v4d __attribute__((ext_vector_type(4)));
typedef int v4i __attribute__((ext_vector_type(4)));
"""


def _kernel(mn: str, consumer: str) -> tuple[str, str]:
    b, ab, acc = MFMAS[mn]
    name = f"k_{consumer}_{mn}"
    src = (f"kernel void {name}(global {acc} *restrict out, global const {acc} *restrict cin, "
           f"global const {ab} *restrict ain) {{\n  int i = __builtin_amdgcn_workitem_id_x();\n"
           f"  {ab} a = ain[i], bb = ain[i + 64];\n  {acc} c = __builtin_amdgcn_{b}(a, bb, cin[i], 0, 0, 0);\n")
    if consumer == "store":
        src += "  out[i] = c;\n"
    elif consumer == "valu":
        src += "  out[i] = c + c;\n"
    elif consumer == "srcc":
        src += f"  out[i] = __builtin_amdgcn_{b}(a, bb, c, 0, 0, 0);\n"
    elif ab in ("float", "double"):  # srcab: the result (one element) as the next MFMA's A
        first = "c" if acc == "double" else "c[0]"
        src += f"  out[i] = __builtin_amdgcn_{b}({first}, bb, cin[i + 64], 0, 0, 0);\n"
    else:
        src += f"  out[i] = __builtin_amdgcn_{b}(__builtin_astype(c.s01, {ab}), bb, cin[i + 64], 0, 0, 0);\n"
    return name, src + "}\n"


CASES = [(mn, c) for mn in MFMAS for c in CONSUMERS]


def _regs(operand: str) -> set[int]:
    m = re.fullmatch(r"v(\d+)|v\[(\d+):(\d+)\]", operand.strip())
    if m is None:
        return set()
    if m.group(1):
        return {int(m.group(1))}
    return set(range(int(m.group(2)), int(m.group(3)) + 1))


def _ops(line: str) -> list[str]:
    parts = line.split(None, 1)
    return [o.strip() for o in parts[1].split(",")] if len(parts) > 1 else []


def _wait_states(line: str) -> int:
    m = re.match(r"s_nop\s+(\d+)", line)
    return int(m.group(1)) + 1 if m else 1


class Pair:
    """The MFMA and its first consumer in one clang kernel: line numbers in the .s text."""

    def __init__(self, lines: list[str], name: str):
        start = next(i for i, ln in enumerate(lines) if ln.split(";")[0].strip() == f"{name}:")
        body = [(i, ln.strip()) for i, ln in enumerate(lines[start + 1:], start + 1)]
        body = [(i, ln) for i, ln in body if ln and not ln.startswith((";", "."))]
        k = next(n for n, (_, ln) in enumerate(body) if ln.startswith("v_mfma"))
        self.mfma_line, mfma = body[k]
        dst = _regs(_ops(mfma)[0])
        for n in range(k + 1, len(body)):
            i, ln = body[n]
            if ln.startswith("s_endpgm"):
                raise AssertionError(f"{name}: no consumer of the MFMA result")
            ops = _ops(ln)
            hit = [n_ for n_, o in enumerate(ops) if _regs(o) & dst]
            if hit:
                self.consumer_line, self.consumer = i, ln
                inst = table.by_mnemonic(ln.split()[0])
                # the first use may overwrite the result (a load into those registers): WAW
                self.overwrites = hit == [0] and inst is not None and inst.operands[0].role == "def"
                between = [b for _, b in body[k + 1:n]]
                # later instructions that clang padded too because they touch the same result
                # (up to the next MFMA, the consumer included): LLVM's MFMA hazards run from the MFMA itself, an
                # intervening VALU write of the register does not end them (clang pads a store
                # of ``c + c`` after a DGEMM: 9 wait states after the MFMA, not after the add);
                # with one wait state fewer before the consumer each of them is one short too
                self.later_padded = []
                for m in range(n + 1, len(body) if not ln.startswith("v_mfma") else n + 1):
                    ln = body[m][1]
                    if ln.startswith(("v_mfma", "s_endpgm")):
                        break
                    if not ln.startswith("s_nop") and body[m - 1][1].startswith("s_nop") \
                            and any(_regs(o) & dst for o in _ops(ln)):
                        self.later_padded.append(ln)
                break
        self.padded = bool(between) and between[-1].startswith("s_nop")
        self.wait_states = sum(_wait_states(b) for b in between)
        self.others = sum(1 for b in between if not b.startswith("s_nop"))
        self.nops = [i for i, b in body[k + 1:n] if b.startswith("s_nop")]


@pytest.fixture(scope="module")
def clang(tmp_path_factory):
    clang = require_llvm("clang")["clang"]
    d = tmp_path_factory.mktemp("hazard_rules")
    names = {case: _kernel(*case)[0] for case in CASES}
    for case, name in names.items():
        (d / f"{name}.cl").write_text(HEADER + _kernel(*case)[1])
    subprocess.run([clang, "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx942", "-nogpulib", "-O2",
                    "-S", *(f"{n}.cl" for n in names.values())], cwd=d, check=True, capture_output=True)
    texts = {case: (d / f"{name}.s").read_text() for case, name in names.items()}
    return texts, {case: Pair(texts[case].splitlines(), names[case]) for case in CASES}


def _hazard_findings(text: str, kernel: str) -> list[str] | None:
    """The pass's findings on the raised kernel; None when the raiser keeps the MFMA opaque
    (a ``lift.inst``, which no pass looks into: a gap of ``gcnforge.raising``, not of the table)."""
    m = raise_code_object(read_code_object(assemble(text)))
    if any(op.name == "lift.inst" and "v_mfma" in str(op) for op in m.walk()):
        return None
    return [f for f in verify_module(m, ["hazards"]) if f.startswith(f"@{kernel} ")]


def _sanitizer_hazards(code: bytes, kernel: str) -> list:
    dev = Device()
    bufs = [dev.memory.alloc(1 << 16) for _ in range(3)]
    for b in bufs:
        dev.memory.write(b, np.ones(1 << 14, np.float32).tobytes())
    st = dev.run(code, kernel, struct.pack("<3Q", *bufs), (1, 1, 1), (64, 1, 1), sanitize=True,
                 sanitize_mode="continue")
    return [r for r in st.reports if r.kind == "hazard"]


def test_table_matches_clang(clang):
    _, pairs = clang
    exact = 0
    for (mn, c), p in pairs.items():
        need = hz.need("mfma_overwrite" if p.overwrites else CONSUMERS[c], mn)
        if p.padded:  # clang had to pad: its count is the requirement
            assert need == p.wait_states, (mn, c, p.consumer, need, p.wait_states)
            exact += 1
        else:  # clang's schedule already covered it
            assert need <= p.wait_states, (mn, c, p.consumer, need, p.wait_states)
    assert exact >= 30  # most pairs are padded: the check is not vacuous


@pytest.mark.parametrize("mn,c", CASES, ids=[f"{c}-{mn}" for mn, c in CASES])
def test_pass_and_sanitizer_at_n_and_n_minus_1(clang, mn, c):
    texts, pairs = clang
    text, p = texts[(mn, c)], pairs[(mn, c)]
    if not p.padded:
        pytest.skip("clang needed no s_nop here (requirement 0 or covered by other instructions)")
    name = _kernel(mn, c)[0]
    lines = text.splitlines()
    last = p.nops[-1]
    k = int(lines[last].split()[1])
    short = lines[:last] + ([f"\ts_nop {k - 1}"] if k else []) + lines[last + 1:]
    short_text = "\n".join(short) + "\n"
    # the sanitizer: clang's N wait states are clean, N - 1 (one fewer before the consumer) is not
    assert _sanitizer_hazards(assemble(text), name) == []
    reps = _sanitizer_hazards(assemble(short_text), name)
    assert reps and f"needs {p.wait_states} wait states, got {p.wait_states - 1}" in str(reps[0]), reps
    # one report per short instruction: the consumer, then whatever clang padded after it
    assert [r.loc.text.split()[0] for r in reps] == [ln.split()[0] for ln in (p.consumer, *p.later_padded)], reps
    # the pass, the same two ways
    found = _hazard_findings(text, name)
    if found is None:
        pytest.skip("the raiser keeps this MFMA opaque (lift.inst): pass side not checkable on raised code")
    assert found == []
    found = _hazard_findings(short_text, name)
    assert len(found) == 1 + len(p.later_padded), found
    for f, ln in zip(found, (p.consumer, *p.later_padded)):
        assert f"'{ln.split()[0]}' needs 1 more wait state" in f, found
    # no pads at all: the pass asks for exactly the wait states clang inserted
    bare = "\n".join(ln for i, ln in enumerate(lines) if i not in set(p.nops)) + "\n"
    found = _hazard_findings(bare, name)
    missing = p.wait_states - p.others
    assert found and f"needs {missing} more wait state" in found[0], found  # (later ones follow in verify mode)


# -- the other rows: hand-written pairs ------------------------------------------------------
# rule -> (producer, consumer); the wait states come from the table
PAIRS = {
    "valu_sgpr_vmem": ("v_readfirstlane_b32 s6, v0", "global_load_dword v2, v1, s[6:7]"),
    "valu_vcc_div_fmas": ("v_cmp_eq_u32_e32 vcc, v0, v1", "v_div_fmas_f32 v2, v0, v1, v3"),
    "valu_sgpr_lane_select": ("v_readfirstlane_b32 s6, v0", "v_readlane_b32 s7, v1, s6"),
    "valu_sgpr_valu": ("v_readfirstlane_b32 s6, v0", "v_add_u32_e32 v1, s6, v0"),
    "valu_exec_dpp": ("v_cmpx_eq_u32_e32 vcc, v0, v0", "v_mov_b32_dpp v2, v1 row_shr:1 row_mask:0xf bank_mask:0xf"),
    "valu_exec_lane": ("v_cmpx_eq_u32_e32 vcc, v0, v0", "v_readfirstlane_b32 s6, v1"),
    "valu_vgpr_dpp": ("v_mov_b32_e32 v1, v0", "v_mov_b32_dpp v2, v1 row_shr:1 row_mask:0xf bank_mask:0xf"),
    "valu_vgpr_readlane": ("v_mov_b32_e32 v1, v0", "v_readfirstlane_b32 s7, v1"),
    "trans_valu": ("v_exp_f32_e32 v1, v0", "v_add_f32_e32 v2, v1, v1"),
    "valu_partial_vgpr": ("v_mov_b32_sdwa v1, v0 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:DWORD",
                          "v_add_u32_e32 v2, v1, v1"),
    "setreg_getreg": ("s_setreg_b32 hwreg(HW_REG_MODE, 0, 1), s0", "s_getreg_b32 s1, hwreg(HW_REG_MODE, 0, 1)"),
    "valu_vgpr_mfma": ("v_mov_b32_e32 v4, 1.0", "v_mfma_f32_4x4x1_16b_f32 v[0:3], v4, v5, 0"),
    "valu_exec_mfma": ("v_cmpx_eq_u32_e32 vcc, v0, v0", "v_mfma_f32_4x4x1_16b_f32 v[8:11], v4, v5, 0"),
    "mfma_srcc_overlap": ("v_mfma_f32_16x16x16_f16 v[0:3], v[4:5], v[6:7], v[0:3]",  # XDL -> XDL: P + 1
                          "v_mfma_f32_4x4x4_16b_f16 v[8:11], v[4:5], v[6:7], v[2:5]"),
    "mfma_srcc_overlap#smfma": ("v_mfma_f32_16x16x4_f32 v[0:3], v4, v5, v[0:3]",  # non-XDL -> non-XDL: P
                                "v_mfma_f32_4x4x1_16b_f32 v[8:11], v4, v5, v[2:5]"),
    "mfma_srcc_war": ("v_mfma_f32_16x16x16_f16 v[8:11], v[4:5], v[6:7], v[0:3]", "v_mov_b32_e32 v1, 0"),
    "vmem_store_data": ("global_store_dwordx4 v0, v[4:7], s[0:1]", "v_mov_b32_e32 v5, 0"),
}
def _rule(key: str) -> str:
    return key.split("#")[0]
# rows checked by the clang-driven test above (every MFMA kind, exact where clang pads)
CLANG_ROWS = {"mfma_srcc_same", "mfma_srcab", "mfma_valu_read", "mfma_mem_read", "mfma_overwrite"}
# rows walked against LLVM 22's hazard recognizer (llc on MIR) in test_hazard_rules_llc.py
LLC_ROWS = {"salu_m0", "dot_read", "dot_overwrite", "dgemm_fma64"}


def _pair_kernel(producer: str, consumer: str, wait_states: int) -> str:
    pad = []
    while wait_states > 0:
        pad.append(f"  s_nop {min(wait_states, 8) - 1}")
        wait_states -= 8
    body = "\n".join(["  s_load_dwordx2 s[0:1], s[0:1], 0x0", "  s_waitcnt lgkmcnt(0)", "  s_nop 7", "  s_nop 7",
                      "  s_nop 7", f"  {producer}", *pad, f"  {consumer}", "  s_endpgm"])
    return (f'.amdgcn_target "amdgcn-amd-amdhsa--gfx942"\n.text\n.globl k\n.p2align 8\n.type k,@function\nk:\n{body}\n'
            ".rodata\n.p2align 6\n.amdhsa_kernel k\n  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n"
            "  .amdhsa_next_free_vgpr 32\n  .amdhsa_next_free_sgpr 16\n  .amdhsa_accum_offset 32\n"
            ".end_amdhsa_kernel\n")


# rows of other targets only (gfx950's: tests/passes/test_hazard_rules_gfx950.py)
OTHER_TARGETS = {k for k, r in hz.RULES.items() if r.targets and "gfx942" not in r.targets}


def test_every_row_is_walked():
    assert set(hz.RULES) == {_rule(k) for k in PAIRS} | CLANG_ROWS | LLC_ROWS | OTHER_TARGETS


@pytest.mark.parametrize("key", sorted(PAIRS))
def test_pair_at_n_and_n_minus_1(key):
    producer, consumer = PAIRS[key]
    rule = _rule(key)
    n = hz.need(rule, producer.split()[0], consumer.split()[0])
    assert n > 0
    ok, short = _pair_kernel(producer, consumer, n), _pair_kernel(producer, consumer, n - 1)
    assert _hazard_findings(ok, "k") == []
    found = _hazard_findings(short, "k")
    assert len(found) == 1 and "needs 1 more wait state" in found[0] and f"({rule})" in found[0], found
    bare = _hazard_findings(_pair_kernel(producer, consumer, 0), "k")
    assert bare and f"needs {n} more wait state" in bare[0], bare  # what insert mode inserts
    assert _sanitizer_hazards(assemble(ok), "k") == []
    reps = _sanitizer_hazards(assemble(short), "k")
    assert reps and f"needs {n} wait states, got {n - 1}" in str(reps[0]), reps


def test_xdl_reading_a_non_xdl_result_as_srcc_needs_nothing():
    """checkMAIHazards90A (gfx940): an XDL MFMA overlapping a non-XDL MFMA's result with its
    SrcC needs no wait states; both the pass and the sanitizer accept it back to back."""
    text = _pair_kernel("v_mfma_f32_16x16x4_f32 v[0:3], v4, v5, v[0:3]",
                        "v_mfma_f32_4x4x4_16b_f16 v[8:11], v[4:5], v[6:7], v[2:5]", 0)
    assert hz.need("mfma_srcc_overlap", "v_mfma_f32_16x16x4_f32", "v_mfma_f32_4x4x4_16b_f16") == 0
    assert _hazard_findings(text, "k") == []
    assert _sanitizer_hazards(assemble(text), "k") == []
