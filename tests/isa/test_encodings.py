"""Every field of every scalar/memory encoding sits where LLVM 22 puts it: set one field to
a distinctive value in an instruction, let llvm-mc assemble it, and compare the bits our
``Field`` says hold it (one llvm-mc run for all probes)."""

from __future__ import annotations

from gcnforge.isa.encodings import ENCODINGS
from gcnforge.testing import require_llvm
from tools.isa_gen import common

# (assembly, encoding, {field: value}) — values chosen distinct from neighbouring fields
PROBES = [
    ("s_add_u32 s5, s6, s7", "SOP2", {"sdst": 5, "ssrc0": 6, "ssrc1": 7}),
    ("s_movk_i32 s9, 0x1234", "SOPK", {"sdst": 9, "simm16": 0x1234}),
    ("s_mov_b32 s11, s12", "SOP1", {"sdst": 11, "ssrc0": 12}),
    ("s_cmp_eq_u32 s13, s14", "SOPC", {"ssrc0": 13, "ssrc1": 14}),
    ("s_nop 5", "SOPP", {"simm16": 5}),
    ("s_load_dwordx2 s[10:11], s[20:21], s33 offset:0x55 glc", "SMEM",
     {"sdata": 10, "sbase": 10, "soffset": 33, "offset": 0x55, "glc": 1, "imm": 1, "soe": 1}),
    ("ds_write2_b32 v3, v4, v5 offset0:6 offset1:7", "DS",
     {"addr": 3, "data0": 4, "data1": 5, "offset0": 6, "offset1": 7}),
    ("ds_read_b64 a[8:9], v2 offset:258", "DS", {"vdst": 8, "addr": 2, "acc": 1, "offset0": 2, "offset1": 1}),
    ("flat_load_dword v9, v[2:3] offset:4 sc0", "FLAT", {"vdst": 9, "addr": 2, "offset": 4, "sc0": 1, "seg": 0}),
    ("global_store_dword v1, a2, s[4:5] offset:-8 nt sc1", "GLOBAL",
     {"addr": 1, "data": 2, "saddr": 4, "acc": 1, "offset": 0x1FF8, "nt": 1, "sc1": 1, "seg": 2}),
    ("scratch_load_dword v7, v3, off offset:12", "SCRATCH", {"vdst": 7, "addr": 3, "saddr": 0x7F, "lds": 1, "seg": 1}),
    ("buffer_store_dword v5, v6, s[8:11], s12 offen offset:13 sc0 nt sc1", "MUBUF",
     {"vdata": 5, "vaddr": 6, "srsrc": 2, "soffset": 12, "offen": 1, "offset": 13, "sc0": 1, "nt": 1, "sc1": 1}),
    ("buffer_load_dword a5, v[6:7], s[8:11], s12 idxen offen", "MUBUF",
     {"vdata": 5, "vaddr": 6, "acc": 1, "idxen": 1, "offen": 1}),
    ("tbuffer_load_format_x v1, v2, s[4:7], s8 format:[BUF_DATA_FORMAT_32,BUF_NUM_FORMAT_FLOAT] idxen offset:4 nt sc1",
     "MTBUF", {"vdata": 1, "vaddr": 2, "srsrc": 1, "soffset": 8, "dfmt": 4, "nfmt": 7, "idxen": 1, "offset": 4,
               "nt": 1, "sc1": 1}),
]


def test_fields_match_llvm():
    require_llvm("llvm-mc")
    res = common.assemble([p[0] for p in PROBES])
    for (text, enc, want), (data, err) in zip(PROBES, res):
        assert data is not None, f"{text}: {err}"
        e = ENCODINGS[enc]
        raw = int.from_bytes(data[:e.size], "little")
        assert raw & e.match_mask == e.match_value, f"{text}: fixed bits differ from {enc}"
        for name, v in want.items():
            assert e.fields[name].get(raw) == v, f"{text}: field {name} = {e.fields[name].get(raw)}, want {v}"
