"""aiter's fused-MoE stage-1 code objects (``hsa/gfx942/fmoe_2stages/fmoe_stage1_bf16_pertokenFp8_g1u1_*``
in the amd-aiter wheel): how aiter launches them and which one it picks, so tests and benchmarks
can run them on the same inputs as ``moe/stage1.py``.

Facts from the wheel's sources (aiter 0.1.7): ``csrc/py_itfs_cu/asm_moe_2stage.cu``
(``KernelArgs``: a packed struct of 16-byte slots, a pointer followed by 8 bytes of padding, a
u32 by 12; grid ``(inter / tile_N, sorted_expert_ids.size(0), 2^ksplit)``, 256 work-items;
``get_heuristic_kernel``) and ``aiter/fused_moe.py`` (``get_block_size_M``; ``asm_stage1``'s out
``[tokens, topk, inter]`` bf16). The object list is the wheel's
``fmoe_stage1_bf16_pertokenFp8_g1u1.csv`` (tile_m, tile_n, kernel name, object).
"""

from __future__ import annotations

import csv
import io
import zipfile

import numpy as np

DIR = "aiter_meta/hsa/gfx942/fmoe_2stages/"
TABLE = DIR + "fmoe_stage1_bf16_pertokenFp8_g1u1.csv"
SLOTS = ["O:u16*", "X:u8*", "GU:u8*", "XC:i32*", "XQ:f32*", "GUQ:f32*", "SMQ:f32*", "STP:i32*", "SEP:i32*",
         "dim:u32", "hidden_dim:u32", "token_cnt:u32", "eprt_cnt:u32", "Xs:u32", "GUs:u32", "Os:u32", "eGUs:u32",
         "eGUQs:u32", "eSMQs:u32", "topk:u32", "splitk:u32", "activation:u32", "SW:f32*"]
BLOCK_SIZES = (32, 64, 128)  # get_block_size_M's support_list (also asm_stage1's allowed block_m)


def objects(whl: str) -> list[dict]:
    """The table's rows: tile_m, tile_n, name (the object's file name without .co)."""
    z = zipfile.ZipFile(whl)
    rows = csv.DictReader(io.StringIO(z.read(TABLE).decode()))
    return [dict(tile_m=int(r["tile_m"]), tile_n=int(r["tile_n"]), name=r["co_name"][:-3]) for r in rows]


def block_size_m(tokens: int, topk: int, experts: int, inter: int, cu_num: int) -> int:
    """aiter ``get_block_size_M``: the block size of the fewest rounds of work-groups over the
    CUs, then the fewest idle CUs in the last round (tile_N 128)."""
    tg_n = -(-inter // 128)
    best = []
    for el in BLOCK_SIZES:
        max_tokens = tokens * topk + experts * el - topk
        tg_num = tg_n * (max_tokens + el - 1) // el
        best.append(((tg_num + cu_num - 1) // cu_num, cu_num - tg_num % cu_num, el))
    return sorted(best, key=lambda x: x[:2])[0][-1]


def heuristic(table: list[dict], m_num: int, inter: int, block_m: int, cu_num: int) -> list[dict]:
    """The objects ``get_heuristic_kernel`` may pick (``m_num`` = sorted_expert_ids.size(0)): tile_M
    = block_m, inter a multiple of tile_N, the fewest rounds, then the fewest idle CUs; every
    object that ties (the launcher takes the first its unordered map yields)."""
    scored = []
    for r in table:
        if r["tile_m"] != block_m or inter % r["tile_n"]:
            continue
        tg = -(-inter // r["tile_n"]) * m_num
        rnd = -(-tg // cu_num)
        scored.append(((rnd, rnd * cu_num - tg), r))
    if not scored:
        return []
    top = min(s for s, _ in scored)
    return [r for s, r in scored if s == top]


def launch(kern, out, x_q, w1_shuffled, s, x_scale, w1_scale, dim: int, inter: int, tokens: int, experts: int,
           topk: int, tile_n: int, n_blocks: int | None = None, **kw):
    """One launch as ``moe_stage1_g1u1`` makes it (ksplit 0, SiLU, no sorted weights) on ``s``
    (``reference.Sorted``); ``n_blocks``: the grid's blocks (default: the allocation's, as aiter)."""
    none = np.zeros(4, np.float32)
    nblk = len(s.sorted_expert_ids) if n_blocks is None else n_blocks
    return kern(out, x_q, w1_shuffled, s.num_valid_ids, x_scale, w1_scale, none, s.sorted_ids, s.sorted_expert_ids,
                dim, inter, tokens, experts, dim, dim, 2 * topk * inter, 2 * inter * dim, 2 * inter * 4, inter * 4,
                topk, 0, 0, none, grid=(inter // tile_n, nblk, 1), block=(256,), **kw)


def load(whl: str, name: str):
    """The object ``name`` from the wheel as a runtime kernel with the 16-byte-slot layout."""
    import gcnforge.runtime as rt
    from gcnforge.runtime.kernargs import ArgLayout

    lib = rt.load(zipfile.ZipFile(whl).read(DIR + name + ".co"))
    return lib.kernel(next(iter(lib.kernels)), layout=ArgLayout.slots16(SLOTS))
