"""Kernel registry: CSV schema, exact tuned hits, heuristic dispatch, explain, bad tables."""


import pytest

from gcnforge.diagnostics import Diagnostic
from gcnforge.runtime.registry import Registry, write_csv

CONFIG = """\
# bf16 GEMM variants (config rows: no shape)
kernel,code_object,target,dtype,tile_m,tile_n,tile_k,splitk,bias,preshuffle,subK
gemm_32x32,g32.co,gfx942,bf16,32,32,64,0,0,0,16
gemm_64x64,g64.co,gfx942,bf16,64,64,64,0,0,0,16
gemm_128x128,g128.co,gfx942,bf16,128,128,64,0,0,0,32
gemm_128x128_sk,g128sk.co,gfx942,bf16,128,128,64,8,0,0,32
gemm_256x256,g256.co,gfx942:sramecc+:xnack-,fp16,256,256,64,0,0,0,64
gemm_256x256,g256.co,gfx942,bf16,256,256,64,0,0,0,64
gemm_256x256_bias,g256b.co,gfx942,bf16,256,256,64,0,1,0,64
"""
TUNED = """\
kernel,code_object,target,dtype,tile_m,tile_n,tile_k,splitk,bias,preshuffle,m,n,k,us,time_kind
gemm_64x64,g64.co,gfx942,bf16,64,64,64,1,0,0,4096,4096,4096,812.5,measured
gemm_128x128,g128.co,gfx942,bf16,128,128,64,1,0,0,4096,4096,4096,700.25,measured
"""


@pytest.fixture
def reg(tmp_path):
    (tmp_path / "cfg.csv").write_text(CONFIG)
    (tmp_path / "tuned.csv").write_text(TUNED)
    return Registry.from_csv(tmp_path / "cfg.csv", tmp_path / "tuned.csv")


def test_loads_rows_and_extra_columns(reg, tmp_path):
    assert len(reg.entries) == 9
    e = reg.entries[0]
    assert e.kernel == "gemm_32x32" and e.code_object == tmp_path / "g32.co" and e.extra == {"subK": "16"}
    assert reg.entries[4].dtype == "f16" and reg.entries[4].target == "gfx942"  # normalised
    assert reg.entries[0].loc.line == 3


def test_exact_tuned_hit_picks_fastest(reg):
    ch = reg.select("gfx942", "bf16", 4096, 4096, 4096)
    assert ch.how == "tuned" and ch.entry.kernel == "gemm_128x128" and ch.grid == (32, 32, 1)
    text = reg.explain("gfx942", "bf16", 4096, 4096, 4096)
    assert "exact tuned hit: gemm_128x128" in text and "700.250 us measured" in text and "tuned.csv:3" in text


def test_heuristic_large_problem_prefers_big_tiles(reg):
    # 4096x4096x4095 has no tuned row. 256x256: 256 WGs on 304 CUs, reuse 1 -> score 0.842 * util;
    # 128x128: 1024 WGs in 4 waves (0.842) but reuse 0.5.
    ch = reg.select("gfx942", "bf16", 4096, 4096, 4095)
    assert ch.how == "heuristic" and ch.entry.kernel == "gemm_256x256" and ch.splitk == 1
    assert ch.grid == (16, 16, 1)
    best = ch.candidates[0]
    assert best.work_per_cu == pytest.approx(256 / 304)
    assert best.utilization == pytest.approx(4095 / 4096)


def test_heuristic_small_problem_prefers_parallelism(reg):
    ch = reg.select("gfx942", "bf16", 256, 256, 64)  # K too short for split-K
    # 32x32: 64 WGs (wpc 64/304, reuse 32/256) beats 64x64: 16 WGs (16/304, 64/256)
    assert ch.entry.kernel == "gemm_32x32"
    assert ch.candidates[0].score == pytest.approx((64 / 304) * (32 / 256))


def test_heuristic_uses_split_k_for_tall_k(reg):
    ch = reg.select("gfx942", "bf16", 512, 512, 4096)
    # 16 output tiles of 128x128; split-K 8 gives 128 WGs. 32x32 tiles give 256 WGs but reuse 1/8.
    # 128 sk8: 128/304 * 0.5 = 0.2105 ; 32x32: 256/304 * 0.125 = 0.105
    assert ch.entry.kernel == "gemm_128x128_sk" and ch.splitk == 8 and ch.grid == (4, 4, 8)


def test_features_select_the_bias_kernel_only(reg):
    ch = reg.select("gfx942", "bf16", 1024, 1024, 1024, bias=True)
    assert ch.entry.kernel == "gemm_256x256_bias"
    with pytest.raises(Diagnostic, match="no kernel for gfx942 bf16 bias=1 preshuffle=1") as e:
        reg.select("gfx942", "bf16", 64, 64, 64, bias=True, preshuffle=True)
    assert "gfx942/bf16/bias=0/preshuffle=0" in str(e.value)


def test_explain_heuristic_table(reg):
    text = reg.explain("gfx942", "bf16", 512, 512, 4096)
    assert "no tuned row for this shape" in text and "304 CUs" in text
    first = [l for l in text.splitlines() if l.startswith("* ")]
    assert len(first) == 1 and "gemm_128x128_sk" in first[0] and "128x128x64" in first[0]
    assert text.splitlines()[-1] == "chosen: gemm_128x128_sk split-K 8 grid (4, 4, 8) block (256, 1, 1)"


def test_cu_count_override(tmp_path):
    (tmp_path / "c.csv").write_text(CONFIG)
    r = Registry.from_csv(tmp_path / "c.csv", cu_count=16)
    # with 16 CUs, 256x256 tiles for 1024^2 fill exactly one wave with reuse 1
    assert r.select("gfx942", "bf16", 1024, 1024, 1024).entry.kernel == "gemm_256x256"


@pytest.mark.parametrize("body,line,col,msg", [
    ("kernel,code_object,target,dtype,tile_m,tile_n\n", 1, 46, "lacks required column(s) tile_k"),
    ("kernel,code_object,target,dtype,tile_m,tile_n,tile_k\nk,a.co,gfx942,f32,64,x6,16\n", 2, 22, "'x6' is not an integer"),
    ("kernel,code_object,target,dtype,tile_m,tile_n,tile_k\nk,a.co,gfx942,f32,64,64\n", 2, 24, "row has 6 fields"),
    ("kernel,code_object,target,dtype,tile_m,tile_n,tile_k\n\n# c\nk,a.co,gfx942,f32,64,64,16,9\n", 4, 28, "row has 8 fields"),
    ("kernel,code_object,target,dtype,tile_m,tile_n,tile_k,bias\nk,a.co,gfx942,f32,64,64,16,2\n", 2, 28, "'bias' must be 0 or 1"),
    ("kernel,code_object,target,dtype,tile_m,tile_n,tile_k,m,n,k\nk,a.co,gfx942,f32,64,64,16,8,8,\n", 2, 32, "needs all of m, n, k"),
    ('kernel,code_object,target,dtype,tile_m,tile_n,tile_k\n"k,1",a.co,sm_90,f32,64,64,16\n', 2, 12, "not an AMDGPU processor"),
    ("kernel,code_object,target,dtype,tile_m,tile_n,kernel\n", 1, 47, "column 'kernel' appears twice"),
    ("kernel,code_object,target,dtype,tile_m,tile_n,tile_k\nk,a.co,gfx942,f32,0,64,16\n", 2, 19, "out of range"),
    ("", 1, 1, "empty"),
    ('kernel,code_object,target,dtype,tile_m,tile_n,tile_k\nk,"a.co,gfx942,f32,64,64,16\n', 2, 1, "malformed CSV"),
])
def test_malformed_csv_reports_file_line_col(tmp_path, body, line, col, msg):
    p = tmp_path / "bad.csv"
    p.write_text(body)
    with pytest.raises(Diagnostic) as e:
        Registry.from_csv(p)
    assert e.value.loc.line == line and e.value.loc.col == col, str(e.value)
    assert msg in str(e.value)
    assert str(e.value).startswith(f"{p}:{line}:{col}: error:")


def test_duplicate_tuned_rows_rejected(tmp_path):
    p = tmp_path / "t.csv"
    p.write_text(TUNED + TUNED.splitlines()[1] + "\n")
    with pytest.raises(Diagnostic, match=r"duplicate tuned row .* \(first at line 2\)"):
        Registry.from_csv(p)


def test_write_csv_round_trip(reg, tmp_path):
    out = tmp_path / "sub"
    out.mkdir()
    write_csv(out / "all.csv", reg.entries)
    again = Registry.from_csv(out / "all.csv")
    assert [(e.kernel, e.code_object.resolve(), e.shape, e.us, e.extra.get("subK", "")) for e in again.entries] == \
           [(e.kernel, e.code_object.resolve(), e.shape, e.us, e.extra.get("subK", "")) for e in reg.entries]


def test_utf8_bom_is_tolerated(tmp_path):
    p = tmp_path / "bom.csv"
    p.write_bytes("\ufeff".encode() + CONFIG.encode())
    assert len(Registry.from_csv(p).entries) == 7
