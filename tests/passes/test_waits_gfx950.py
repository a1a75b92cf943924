"""gfx950's new loads on the wait-counter model (``gcnforge.isa.counters``: the counter an
instruction raises is its table record's, the event its semantic class): the transposing LDS
reads count on lgkmcnt like every LDS read, the 3- and 4-dword direct-to-LDS loads on
vmcnt like gfx942's ``global_load_lds_dword``. Held to clang 22 -mcpu=gfx950: on clang's
kernel the wait pass (verify mode, raised code) accepts clang's ``s_waitcnt`` and, with it
removed, asks for it back."""

from __future__ import annotations

import subprocess

from gcnforge.binary import assemble, read_code_object
from gcnforge.isa import counters, table
from gcnforge.raising import raise_code_object
from gcnforge.raising.verify import verify_module
from gcnforge.testing import require_llvm

SRC = """typedef short v4s __attribute__((ext_vector_type(4)));
kernel void tr16(global v4s *restrict out, global const v4s *restrict in) {
  local v4s buf[256];
  int i = __builtin_amdgcn_workitem_id_x();
  buf[i] = in[i];
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");  // a bare s_barrier releases nothing:
  __builtin_amdgcn_s_barrier();                           // without the fence, clang emits no
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");  // lgkmcnt(0) and the kernel races
  out[i] = __builtin_amdgcn_ds_read_tr16_b64_v4i16((local v4s *)&buf[(i + 1) & 63]);
}
"""


def test_new_loads_raise_their_counters():
    t = "gfx950"
    for m in ("ds_read_b64_tr_b4", "ds_read_b64_tr_b8", "ds_read_b64_tr_b16", "ds_read_b96_tr_b6"):
        i = table.by_mnemonic(m, t)
        assert counters.raised(i) == ("lgkmcnt",) and counters.event(i.sem) == "lds", m
    for m in ("global_load_lds_dwordx3", "global_load_lds_dwordx4"):
        i = table.by_mnemonic(m, t)
        base = table.by_mnemonic("global_load_lds_dword", "gfx942")
        assert counters.raised(i) == counters.raised(base) == ("vmcnt",) and i.sem == base.sem, m
    assert "lds" in table.by_mnemonic("buffer_load_dwordx4", t).modifiers  # x3/x4 ... lds: vmcnt as the x1
    assert "lds" not in table.by_mnemonic("buffer_load_dwordx4", "gfx942").modifiers


def test_transposing_read_wait_matches_clang(tmp_path):
    clang = require_llvm("clang")["clang"]
    (tmp_path / "k.cl").write_text(SRC)
    subprocess.run([clang, "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx950", "-nogpulib", "-O2", "-S",
                    "k.cl"], cwd=tmp_path, check=True, capture_output=True)
    text = (tmp_path / "k.s").read_text()
    lines = text.splitlines()
    rd = next(i for i, ln in enumerate(lines) if ln.strip().startswith("ds_read_b64_tr_b16"))
    assert lines[rd + 1].strip() == "s_waitcnt lgkmcnt(0)", lines[rd:rd + 3]

    def findings(t: str) -> list[str]:
        m = raise_code_object(read_code_object(assemble(t, target="gfx950")))
        return verify_module(m, ["waits"])

    assert findings(text) == []
    found = findings("\n".join(lines[:rd + 1] + lines[rd + 2:]) + "\n")
    assert found and "lgkmcnt" in found[0], found
