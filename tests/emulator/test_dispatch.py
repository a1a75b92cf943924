"""Wave launch state follows the kernel descriptor (LLVM AMDGPUUsage "Initial Kernel
Execution State"): user SGPRs in order, workgroup ids, packed work-item ids, EXEC."""

import subprocess

import numpy as np

from gcnforge.emulator import Device
from gcnforge.emulator.decode import decode_kernel
from gcnforge.emulator.executor import Executor
from gcnforge.emulator.launch import kernel_image
from gcnforge.testing import require_llvm

SRC = """
.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.text
.globl k
.p2align 8
.type k,@function
k:
  s_endpgm
.rodata
.p2align 6
.amdhsa_kernel k
  .amdhsa_user_sgpr_dispatch_ptr 1
  .amdhsa_user_sgpr_queue_ptr 1
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_user_sgpr_dispatch_id 1
  .amdhsa_user_sgpr_private_segment_size 1
  .amdhsa_system_sgpr_workgroup_id_x 1
  .amdhsa_system_sgpr_workgroup_id_y 1
  .amdhsa_system_sgpr_workgroup_id_z 1
  .amdhsa_system_vgpr_workitem_id %d
  .amdhsa_private_segment_fixed_size 64
  .amdhsa_next_free_vgpr 24
  .amdhsa_next_free_sgpr 24
  .amdhsa_accum_offset 16
  .amdhsa_float_denorm_mode_32 3
  .amdhsa_float_denorm_mode_16_64 3
  .amdhsa_dx10_clamp 1
  .amdhsa_ieee_mode 1
.end_amdhsa_kernel
"""


def build(tmp_path, vgpr_ids):
    t = require_llvm("llvm-mc", "ld.lld")
    (tmp_path / "k.s").write_text(SRC % vgpr_ids)
    subprocess.run([t["llvm-mc"], "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx942", "-filetype=obj",
                    str(tmp_path / "k.s"), "-o", str(tmp_path / "k.o")], check=True)
    subprocess.run([t["ld.lld"], "-shared", str(tmp_path / "k.o"), "-o", str(tmp_path / "k.so")], check=True)
    return (tmp_path / "k.so").read_bytes()


def make(code, wgs, block):
    dev = Device()
    img = kernel_image(code, "k")
    prog = decode_kernel(img.text, img.text_address, img.entry, img.end)
    return Executor(dev, img, prog, wgs, block, 0x1111_0000_2222, 0x3333_0000_4444, 0x5555_0000_6666, 0), img


def test_user_and_system_sgprs(tmp_path):
    code = build(tmp_path, 2)
    ex, img = make(code, [(3, 4, 5), (6, 7, 8)], (8, 4, 3))
    d = img.descriptor
    assert d.accum_offset == 16 and d.next_free_vgpr == 24 and d.user_sgpr_count == 9
    s = ex.S.astype(np.uint64)
    q = lambda i: s[:, i] | (s[:, i + 1] << np.uint64(32))  # noqa: E731
    assert (q(0) == 0x3333_0000_4444).all()  # dispatch ptr
    assert (q(2) == 0x5555_0000_6666).all()  # queue ptr
    assert (q(4) == 0x1111_0000_2222).all()  # kernarg segment ptr
    assert (s[:, 8] == 64).all()  # private segment size (dispatch id at s[6:7])
    # system SGPRs follow the 9 user SGPRs: workgroup id x, y, z
    assert s[0, 9:12].tolist() == [3, 4, 5] and s[-1, 9:12].tolist() == [6, 7, 8]


def test_packed_workitem_ids_and_partial_exec(tmp_path):
    code = build(tmp_path, 2)
    ex, _ = make(code, [(0, 0, 0)], (8, 4, 3))  # 96 work-items: a full wave and a half wave
    assert ex.W == 2
    assert ex.exec_mask(np.array([0]))[0] == 0xFFFF_FFFF_FFFF_FFFF
    assert ex.exec_mask(np.array([1]))[0] == 0xFFFF_FFFF
    v0 = ex.V[:, 0, :].reshape(-1)[:96]
    t = np.arange(96)
    assert ((v0 & 0x3FF) == t % 8).all()
    assert (((v0 >> 10) & 0x3FF) == (t // 8) % 4).all()
    assert ((v0 >> 20) == t // 32).all()


def test_only_enabled_id_components_are_packed(tmp_path):
    code = build(tmp_path, 0)
    ex, _ = make(code, [(0, 0, 0)], (8, 4, 1))
    assert (ex.V[0, 0, :32] == np.arange(32) % 8).all()


def test_run_reports_counts_and_cycles(tmp_path):
    code = build(tmp_path, 0)
    st = Device().run(code, "k", b"", (4, 2, 1), (128, 1, 1))
    assert st.waves == 16 and st.wave_instructions == 16 and st.issues == 1 and st.cycles >= 1


def test_mode_register_from_rsrc1(tmp_path):
    code = build(tmp_path, 0)
    ex, _ = make(code, [(0, 0, 0)], (64, 1, 1))
    # MODE: FP_ROUND[3:0] = 0 (nearest even), FP_DENORM[7:4] = 0xf (keep all), DX10_CLAMP[8], IEEE[9]
    assert int(ex.hwreg_mode[0]) == 0xF0 | 0x100 | 0x200
    assert not ex.ftz32
