"""gcnforge installs into an environment that already holds other versions of its dependencies
(a PyTorch/ROCm venv with numpy 2.1 and rich 13) without changing them, and works there.

Slow (it builds a venv and installs from the package index): it runs in CI's full pass
(``CI=true``) and with ``pytest --run-slow``."""

from __future__ import annotations

import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HELD = {"numpy": "2.1.3", "rich": "13.9.4"}

SMOKE = r"""
import numpy as np, gcnforge
from importlib.metadata import version
text = '''
.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
.text
.globl k
.p2align 8
.type k,@function
k:
  s_load_dwordx2 s[0:1], s[0:1], 0x0
  v_lshlrev_b32_e32 v1, 2, v0
  v_cvt_f32_u32_e32 v2, v0
  s_waitcnt lgkmcnt(0)
  global_store_dword v1, v2, s[0:1]
  s_endpgm
.rodata
.p2align 6
.amdhsa_kernel k
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 3
  .amdhsa_next_free_sgpr 2
  .amdhsa_accum_offset 4
.end_amdhsa_kernel
'''
from gcnforge.runtime.kernargs import ArgLayout
k = gcnforge.load(gcnforge.assemble(text)).kernel("k", layout=ArgLayout.slots16(["out:f32*[64]"]))
out = np.zeros(64, np.float32)
k(out=out, grid=1, block=64, device="emulator")
assert (out == np.arange(64, dtype=np.float32)).all(), out
print(version("numpy"), version("rich"))
"""


@pytest.mark.slow
def test_install_keeps_the_environments_numpy_and_rich(tmp_path):
    env = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env)
    py = str(env / "bin" / "python")
    pip = [py, "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    subprocess.run(pip + [f"{n}=={v}" for n, v in HELD.items()], check=True, capture_output=True, text=True)
    r = subprocess.run(pip + [str(ROOT)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    r = subprocess.run([py, "-c", SMOKE], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.split() == [HELD["numpy"], HELD["rich"]]


def test_unsupported_python_is_refused_in_a_sentence():
    """setup.py's guard, run as the build backend would under an older Python."""
    r = subprocess.run([sys.executable, "-c", "import sys; sys.version_info = (3, 10, 0); "
                        f"exec(open({str(ROOT / 'setup.py')!r}).read())"], capture_output=True, text=True)
    assert r.returncode == 1 and "requires Python 3.11 or newer; this is Python 3.10" in r.stderr
