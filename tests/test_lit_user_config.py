"""A lit test folder outside the repository's test/ tree, configured by the one line that
``gcnforge lit-config`` prints, runs FileCheck'd gcnforge-opt and gcnforge commands."""

from __future__ import annotations

import subprocess
import sys

from gcnforge.cli.main import main

TEST = """// RUN: %gcnforge-opt %s -p 'amdgcn-insert-waits{mode=deps}' | %FileCheck %s
// A load's value used right away gets its wait (a user's test, outside gcnforge's tree).
// CHECK: global_load_dword
// CHECK-NEXT: amdgcn.sopp s_waitcnt vmcnt(0)
amdgcn.module @m #amdgcn.target<gfx942> {
  amdgcn.kernel @k {
    %v0 = amdgcn.alloca : !amdgcn.vgpr<0>
    %v1 = amdgcn.alloca : !amdgcn.vgpr<1>
    %v3 = amdgcn.alloca : !amdgcn.vgpr<3>
    %sp = amdgcn.alloca : !amdgcn.sgpr<[0 : 2]>
    %a, %ta = amdgcn.global global_load_dword %v1, %v0, %sp : !amdgcn.vgpr<1>, !amdgcn.vgpr<0>, !amdgcn.sgpr<[0 : 2]>
    %c = amdgcn.vop2 v_add_f32_e32 %v3, %a, %a : !amdgcn.vgpr<3>, !amdgcn.vgpr<1>, !amdgcn.vgpr<1>
    amdgcn.end
  }
}
"""


VERSION = """// RUN: %gcnforge --version | %FileCheck %s
// CHECK: gcnforge {{[0-9]+\\.[0-9]+}}
"""


def test_lit_config_line_runs_a_users_tests(tmp_path, capsys):
    assert main(["lit-config"]) == 0
    (tmp_path / "lit.cfg.py").write_text(capsys.readouterr().out)
    (tmp_path / "waits.mlir").write_text(TEST)
    (tmp_path / "version.s").write_text(VERSION)
    r = subprocess.run([sys.executable, "-c", "from lit.main import main; main()", "-v", str(tmp_path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    assert "Passed: 2" in r.stdout or "Passed : 2" in r.stdout or r.stdout.count("PASS:") == 2, r.stdout
    # and a failing check fails (the configuration does not pass everything)
    (tmp_path / "waits.mlir").write_text(TEST.replace("vmcnt(0)", "vmcnt(3)"))
    r = subprocess.run([sys.executable, "-c", "from lit.main import main; main()", str(tmp_path)], capture_output=True, text=True)
    assert r.returncode != 0
