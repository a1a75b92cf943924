"""Target ids, e_flags and code object versions 4/5/6: built-in vs llvm-mc + ld.lld (live)."""

from __future__ import annotations

import pytest

from gcnforge.binary import assemble, read_code_object
from gcnforge.binary.target_id import compatible, parse_target_id, target_from_e_flags
from gcnforge.diagnostics import Diagnostic
from gcnforge.testing import require_llvm

from .corpus import CASES, kernel_file

TARGETS = ["gfx942", "gfx942:xnack-", "gfx942:xnack+", "gfx942:sramecc+", "gfx942:sramecc-:xnack+", "gfx90a:xnack-",
           "gfx950", "gfx950:xnack-", "gfx950:sramecc+:xnack-"]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("cov", [4, 5, 6])
def test_target_and_version_match_llvm(target, cov):
    require_llvm("llvm-mc", "ld.lld")
    cases = {k: dict(CASES[k]) for k in ("defaults", "sgpr_10", "kernarg_preload")}
    tid = parse_target_id(target)
    for c in cases.values():
        c["reserve_xnack_mask"] = int(tid.xnack_on_or_any)
    text = kernel_file(cases, header=f'\t.amdgcn_target "amdgcn-amd-amdhsa--{target}"\n'
                                     f"\t.amdhsa_code_object_version {cov}\n")
    ours, ref = read_code_object(assemble(text, target=target)), read_code_object(assemble(text, target=target, toolchain="llvm"))
    assert ours.e_flags == ref.e_flags
    assert ours.code_object_version == ref.code_object_version == cov
    assert ours.target == ref.target == str(tid)
    assert target_from_e_flags(ours.e_flags) == tid
    for k in cases:
        assert ours.kernels[k].descriptor == ref.kernels[k].descriptor, k
    assert ours.data[:8] == ref.data[:8] and ours.data[8] == ref.data[8]  # ident incl. ABI version


def test_target_id_parsing():
    assert str(parse_target_id("amdgcn-amd-amdhsa--gfx942:xnack-:sramecc+")) == "gfx942:sramecc+:xnack-"
    assert parse_target_id("gfx942").e_flags() == 0x54C
    for bad, msg in (("gfx1100", "unknown or unsupported target"), ("gfx942:xnack", "invalid target feature"),
                     ("gfx942:xnack+:xnack-", "invalid target feature"), ("gfx900:sramecc+", "does not support")):
        with pytest.raises(Diagnostic, match=msg):
            parse_target_id(bad)


@pytest.mark.parametrize("toolchain", ["builtin", "llvm"])
def test_target_directive_must_match(toolchain):
    with pytest.raises(Diagnostic, match="does not match"):
        assemble('\t.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"\n', target="gfx942", filename="t.s", toolchain=toolchain)


def test_gfx90a_flat_scratch_directives_match_llvm():
    """Without architected flat scratch (gfx90a) the private-segment-buffer/flat-scratch directives apply."""
    require_llvm("llvm-mc", "ld.lld")
    cases = {
        "psb": {"user_sgpr_private_segment_buffer": 1, "user_sgpr_flat_scratch_init": 1,
                "system_sgpr_private_segment_wavefront_offset": 1, "next_free_sgpr": 30},
        "no_fs": {"reserve_flat_scratch": 0, "reserve_vcc": 0, "next_free_sgpr": 9, "reserve_xnack_mask": 0},
        "no_fs_vcc": {"reserve_flat_scratch": 0, "next_free_sgpr": 9, "reserve_xnack_mask": 0},
    }
    text = kernel_file(cases, header='\t.amdgcn_target "amdgcn-amd-amdhsa--gfx90a:xnack-"\n')
    ours = read_code_object(assemble(text, target="gfx90a:xnack-"))
    ref = read_code_object(assemble(text, target="gfx90a:xnack-", toolchain="llvm"))
    for k in cases:
        assert ours.kernels[k].descriptor == ref.kernels[k].descriptor, k
    with pytest.raises(Diagnostic, match="not supported with architected flat scratch"):
        assemble(kernel_file({"x": {"reserve_flat_scratch": 0}}))


@pytest.mark.parametrize("code_object,device,runs", [
    # LLVM AMDGPUUsage, "Target ID": same processor, and each feature the code object fixes
    # equals the device's; a feature the code object leaves unspecified ("any") runs either way
    ("gfx942", "gfx942:sramecc+:xnack-", True),
    ("gfx942:xnack-", "gfx942:sramecc+:xnack-", True),
    ("gfx942:xnack+", "gfx942:sramecc+:xnack-", False),
    ("amdgcn-amd-amdhsa--gfx942:sramecc-", "gfx942:sramecc+:xnack-", False),
    ("gfx942:sramecc+:xnack-", "gfx942", True),  # a device that does not say: the rule cannot refuse
    ("gfx942", "gfx950", False),
    ("gfx942", "gfx1100", False),  # a processor gcnforge does not know is another processor, not an error
])
def test_code_object_runs_on_device(code_object, device, runs):
    assert compatible(code_object, device) is runs
