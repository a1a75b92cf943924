"""Random .amdhsa_kernel blocks: built-in descriptors equal llvm-mc + ld.lld's (one LLVM run per batch),
and the descriptor codec round-trips every word."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gcnforge.binary import assemble, read_code_object
from gcnforge.binary.descriptor import KernelDescriptor
from gcnforge.testing import require_llvm

from .corpus import kernel_source

BITS = {  # directive -> max value (field width), gfx942
    "user_sgpr_dispatch_ptr": 1, "user_sgpr_queue_ptr": 1, "user_sgpr_kernarg_segment_ptr": 1,
    "user_sgpr_dispatch_id": 1, "user_sgpr_private_segment_size": 1, "uses_dynamic_stack": 1,
    "enable_private_segment": 1, "system_sgpr_workgroup_id_x": 1, "system_sgpr_workgroup_id_y": 1,
    "system_sgpr_workgroup_id_z": 1, "system_sgpr_workgroup_info": 1, "system_vgpr_workitem_id": 3,
    "float_round_mode_32": 3, "float_round_mode_16_64": 3, "float_denorm_mode_32": 3, "float_denorm_mode_16_64": 3,
    "dx10_clamp": 1, "ieee_mode": 1, "fp16_overflow": 1, "tg_split": 1, "exception_fp_ieee_invalid_op": 1,
    "exception_fp_denorm_src": 1, "exception_fp_ieee_div_zero": 1, "exception_fp_ieee_overflow": 1,
    "exception_fp_ieee_underflow": 1, "exception_fp_ieee_inexact": 1, "exception_int_div_zero": 1,
    "reserve_vcc": 1,
}


@st.composite
def kernel_block(draw) -> dict[str, int]:
    d = {k: draw(st.integers(0, v)) for k, v in BITS.items() if draw(st.booleans())}
    nv = draw(st.integers(0, 512))
    d["next_free_vgpr"] = nv
    d["accum_offset"] = 4 * draw(st.integers(1, min(64, max(1, (nv + 3) // 4))))
    d["next_free_sgpr"] = draw(st.integers(0, 102))
    for k in ("group_segment_fixed_size", "private_segment_fixed_size"):
        if draw(st.booleans()):
            d[k] = draw(st.integers(0, 2**32 - 1))
    d["kernarg_size"] = draw(st.sampled_from([0, 8, 64, 256, 4096]))
    if draw(st.booleans()):
        length = draw(st.integers(0, 16))
        offset = draw(st.integers(0, 16))
        if not d["kernarg_size"] or 4 * (length + offset) <= d["kernarg_size"]:
            d["user_sgpr_kernarg_preload_length"] = length
            d["user_sgpr_kernarg_preload_offset"] = offset
    implied = sum(2 for k in ("user_sgpr_dispatch_ptr", "user_sgpr_queue_ptr", "user_sgpr_kernarg_segment_ptr",
                              "user_sgpr_dispatch_id") if d.get(k)) + d.get("user_sgpr_private_segment_size", 0) + \
        d.get("user_sgpr_kernarg_preload_length", 0)
    if draw(st.booleans()) and implied <= 31:
        d["user_sgpr_count"] = draw(st.integers(implied, 31))
    elif implied > 31:
        d.pop("user_sgpr_kernarg_preload_length", None)
    return d


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(kernel_block(), min_size=20, max_size=30))
def test_random_blocks_match_llvm(blocks):
    require_llvm("llvm-mc", "ld.lld")
    text = '\t.amdgcn_target "amdgcn-amd-amdhsa--gfx942"\n' + "".join(
        kernel_source(f"k{i}", [f"\t\t.amdhsa_{k} {v}" for k, v in b.items()]) for i, b in enumerate(blocks))
    ours = read_code_object(assemble(text))
    ref = read_code_object(assemble(text, toolchain="llvm"))
    for i in range(len(blocks)):
        assert ours.kernels[f"k{i}"].descriptor == ref.kernels[f"k{i}"].descriptor, blocks[i]


@given(st.binary(min_size=64, max_size=64))
def test_codec_roundtrip(raw):
    kd = KernelDescriptor.from_bytes(raw)
    assert kd.to_bytes() == raw
    assert KernelDescriptor.from_bytes(kd.with_fields(**{"ieee_mode": kd.ieee_mode}).to_bytes()) == kd
