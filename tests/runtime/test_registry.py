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
    ("kernel,code_object,target,dtype,tile_m,tile_n,tile_k,m,n,k\nk,a.co,gfx942,f32,64,64,16,8,8,\n", 2, 32, "needs all of M, N, K"),
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


# --- aiter's table format -------------------------------------------------------------------
# The header and first two rows of aiter/configs/bf16_tuned_gemm.csv in AMD's amd-aiter wheel
# 0.1.7.post2.dev18 (PyPI, MIT): AMD's file, the independent reference for the column spelling
# and for the tflops / bw definitions.
AITER_BF16 = """\
M,N,K,bias,dtype,outdtype,scaleAB,cu_num,libtype,solidx,splitK,us,kernelName,err_ratio,tflops,bw
64,256,5120,False,torch.bfloat16,torch.float32,False,80,asm,1,10,8.3,_ZN5aiter28bf16gemm_outf32_tn_32x64_pf3E,0.0,20.21,402.69
80,256,5120,False,torch.bfloat16,torch.float32,False,80,asm,2,10,8.8,_ZN5aiter28bf16gemm_outf32_tn_48x64_pf3E,0.0,23.83,400.29
"""
AITER_HEADER = AITER_BF16.splitlines()[0].split(",")


def test_reads_aiters_bf16_table(tmp_path):
    p = tmp_path / "bf16_tuned_gemm.csv"
    p.write_text(AITER_BF16)
    reg = Registry.from_csv(p, cu_count=80, defaults={"target": "gfx942"})
    e = reg.entries[0]
    assert (e.kernel, e.shape, e.us, e.splitk, e.cu_num, e.dtype, e.out_dtype, e.bias) == \
           ("_ZN5aiter28bf16gemm_outf32_tn_32x64_pf3E", (64, 256, 5120), 8.3, 10, 80, "bf16", "f32", False)
    assert (e.tflops, e.bw, e.code_object, e.extra["libtype"], e.extra["scaleAB"]) == (20.21, 402.69, None, "asm", "False")
    ch = reg.select("gfx942", "bf16", 80, 256, 5120, out_dtype="f32")
    assert ch.how == "tuned" and ch.entry.kernel == "_ZN5aiter28bf16gemm_outf32_tn_48x64_pf3E" and ch.grid is None
    with pytest.raises(Diagnostic, match="has no code_object"):
        ch.entry.load()
    # the rows are times on 80 CUs: on 304 they are no exact hit, and without tiles no heuristic either
    with pytest.raises(Diagnostic, match="no row of that key admits 64x256x5120 on 304 CUs"):
        Registry.from_csv(p, defaults={"target": "gfx942"}).select("gfx942", "bf16", 64, 256, 5120)
    with pytest.raises(Diagnostic, match="lacks required column.*target"):
        Registry.from_csv(p)


@pytest.mark.parametrize("row", [1, 2])
def test_aiter_rates_reproduce_aiters_columns(row):
    """tflops and bw as aiter computes them (bf16 in, f32 out), against AMD's rounded figures."""
    from gcnforge.runtime.registry import aiter_rates

    f = AITER_BF16.splitlines()[row].split(",")
    col = {h: f[i] for i, h in enumerate(AITER_HEADER)}
    tf, bw = aiter_rates(int(col["M"]), int(col["N"]), int(col["K"]), 2, 4, float(col["us"]))
    assert tf == pytest.approx(float(col["tflops"]), abs=0.006) and bw == pytest.approx(float(col["bw"]), abs=0.006)


def test_aiters_whole_table_from_the_cached_wheel():
    import csv
    import io
    import zipfile
    from pathlib import Path

    from gcnforge.runtime.registry import aiter_rates

    wheels = sorted((Path.home() / ".cache" / "gcnforge" / "aiter").glob("amd_aiter-*.whl"))
    if not wheels:  # CI has no network cache; the embedded excerpt above covers the format there
        pytest.skip("no amd-aiter wheel in ~/.cache/gcnforge/aiter (benchmarks/bench_timing_model.py fetches it)")
    text = zipfile.ZipFile(wheels[-1]).read("aiter/configs/bf16_tuned_gemm.csv").decode()
    rows = list(csv.DictReader(io.StringIO(text)))
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "bf16_tuned_gemm.csv"
        p.write_text(text)
        reg = Registry.from_csv(p, defaults={"target": "gfx942"})
    assert len(reg.entries) == len(rows) >= 2
    for e, r in zip(reg.entries, rows):
        assert e.kernel == r["kernelName"] and e.shape == (int(r["M"]), int(r["N"]), int(r["K"]))
        assert e.cu_num == int(r["cu_num"]) and e.us == float(r["us"]) and e.splitk == int(r["splitK"])
        tf, bw = aiter_rates(*e.shape, 2, 4, e.us)
        assert tf == pytest.approx(e.tflops, abs=0.006) and bw == pytest.approx(e.bw, abs=0.006)


def test_writes_aiters_spelling_then_gcnforges_columns(reg, tmp_path):
    p = tmp_path / "a.csv"
    p.write_text(AITER_BF16)
    aiter = Registry.from_csv(p, defaults={"target": "gfx942"}).entries
    out = tmp_path / "out.csv"
    write_csv(out, [*reg.entries, *aiter], comments=["written by: a test"])
    lines = out.read_text().splitlines()
    assert lines[0] == "# written by: a test"
    head = lines[1].split(",")
    ours = head[:head.index("time_kind")]
    assert ours and set(ours) <= set(AITER_HEADER)  # every leading column is one of aiter's names
    assert head.index("kernelName") < head.index("code_object") and head.index("bw") < head.index("tile_m")
    row = dict(zip(head, lines[2 + len(reg.entries)].split(",")))
    assert (row["dtype"], row["outdtype"], row["bias"], row["M"], row["splitK"]) == \
           ("torch.bfloat16", "torch.float32", "False", "64", "10")
    again = Registry.from_csv(out)
    assert [(e.kernel, e.shape, e.us, e.cu_num, e.tflops, e.out_dtype, e.extra.get("solidx", "")) for e in again.entries] == \
           [(e.kernel, e.shape, e.us, e.cu_num, e.tflops, e.out_dtype, e.extra.get("solidx", "")) for e in [*reg.entries, *aiter]]


ROWS = """\
kernelName,code_object,target,op,dtype,M,N,K,cu_num,splitK,us,tile_m,tile_n,tile_k,block,constraints
rms_4096,r4.co,gfx942,rmsnorm,bf16,8192,4096,1,304,1,100.0,1,4096,1,256,N<=4096;N%8
rms_8192,r8.co,gfx942,rmsnorm,bf16,8192,8192,1,304,1,190.0,1,8192,1,256,N<=8192;N%8
g256,g.co,gfx942,gemm,bf16,64,256,5120,80,20,3.0,64,64,32,256,N=256;K=5120
g256b,gb.co,gfx942,gemm,bf16,384,256,5120,80,10,9.0,64,64,32,256,N=256;K=5120
"""


def test_constraints_ops_and_row_grids(tmp_path):
    p = tmp_path / "rows.csv"
    p.write_text(ROWS)
    reg = Registry.from_csv(p, cu_count=80)
    # a row kernel: the tightest N that admits the problem, one work-group per row
    ch = reg.select("gfx942", "bf16", 5, 4000, 1, op="rmsnorm")
    assert ch.how == "heuristic" and ch.entry.kernel == "rms_4096" and ch.grid == (5, 1, 1)
    assert reg.select("gfx942", "bf16", 5, 4104, 1, op="rmsnorm").entry.kernel == "rms_8192"
    with pytest.raises(Diagnostic, match="no row of that key admits 5x4001x1"):  # N % 8
        reg.select("gfx942", "bf16", 5, 4001, 1, op="rmsnorm")
    with pytest.raises(Diagnostic, match="no kernel for gfx942 layernorm bf16"):
        reg.select("gfx942", "bf16", 5, 4096, 1, op="layernorm")
    # gemm rows of a tuned-only table: other M, same N and K, with the split-K the row was tuned with
    ch = reg.select("gfx942", "bf16", 100, 256, 5120)
    assert ch.how == "heuristic" and ch.splitk in (10, 20) and ch.grid[2] == ch.splitk
    assert {c.splitk for c in ch.candidates} == {10, 20}
    with pytest.raises(Diagnostic, match="admits 100x512x5120"):
        reg.select("gfx942", "bf16", 100, 512, 5120)


@pytest.mark.parametrize("text,msg", [("N=", "'N=' is not DIM=v"), ("Q<=4", "'Q<=4' is not"), ("N%0", "'N%0'")])
def test_bad_constraints_are_located(tmp_path, text, msg):
    p = tmp_path / "c.csv"
    p.write_text(f"kernel,code_object,target,dtype,tile_m,tile_n,tile_k,constraints\nk,a.co,gfx942,f32,64,64,16,{text}\n")
    with pytest.raises(Diagnostic, match=msg) as e:
        Registry.from_csv(p)
    assert (e.value.loc.line, e.value.loc.col) == (2, 28)


def test_split_k_folded_into_grid_x(tmp_path):
    """``splitk_grid=x`` rows (aiter's asm_gemm_a8w8.cu launch: x = N tile * splitK + split)."""
    p = tmp_path / "i8.csv"
    p.write_text("kernel,target,dtype,tile_m,tile_n,tile_k,splitk,bias,preshuffle,m,n,k,us,splitk_grid\n"
                 "gemm_i8,gfx942,i8,64,128,64,3,1,1,192,1280,8192,19.1,x\n")
    ch = Registry.from_csv(p, cu_count=80).select("gfx942", "i8", 192, 1280, 8192, bias=True, preshuffle=True)
    assert ch.how == "tuned" and ch.grid == (10 * 3, 3, 1)
