"""The fused-MoE stage-1 family of ``bench_kernels.py`` (issue 25 item 4): examples/moe/stage1.py
side by side with aiter's ``fmoe_stage1_bf16_pertokenFp8_g1u1_*`` objects on the MI300X profile.

Shapes (model dim, inter, experts, top-k): DeepSeek-V3-like (7168, 256 | 512, 256, 8),
Qwen-MoE-like (4096, 384, 128, 8), Mixtral-like (4096, 14336, 8, 2), for 1, 16, 128 and 1024
tokens. Inputs are random (routing logits, fp8 codes of Gaussian activations and weights, scales
in [0.5, 1.5)): never zeros. The weight array holds only the experts the routing picked,
renumbered in order (the kernels read no other); shapes whose weights exceed ``--moe-max-gb``
(default 2.0: every shape; the emulator holds about 4 copies, so DeepSeek-V3 inter 512 at 128 and
1024 tokens, 1.9 GB of weights, needs about 7.5 GB of memory) are skipped and listed.

Each side gets the sorted input of its own block size: ours the candidate's ``m_blk``, aiter's
the block ``get_block_size_M`` picks; aiter's object is the one its launcher's
``get_heuristic_kernel`` picks (the fastest of its ties) for the 304 CUs of the profile
(``moe/aiter_stage1.py``). Both grids cover the valid blocks only (``num_valid_ids[0] / block``,
known on the host after sorting): aiter's launcher launches the allocation's bound, whose extra
blocks exit at once on a GPU, but the timing mode's work-group sampling would take an exiting
block as the pattern of the blocks it did not run and mispredict both kernels.

Ours: of the tile candidates below, the three the rule of aiter's launcher ranks first (fewest
rounds of work-groups over the CUs, then fewest idle CUs) are timed; the fastest is the row (the
same binaries run any shape).
Checked: every work-group the timing mode emulated, its tile against NumPy (``moe/reference``
formulas), plus the whole output of the same binary at a reduced shape (5 tokens, model dim 512,
inter 2 tn, 8 experts, the shape's top-k; run-time sizes: the same code).

``python benchmarks/bench_moe.py --sorting [--tokens T ...]``: the sorting kernel's predicted
times at the same models' routings (``sorting_times``), each output checked whole.
"""

from __future__ import annotations

import time

import numpy as np

SHAPES = [  # name, model dim, inter, experts, top-k
    ("DeepSeek-V3", 7168, 256, 256, 8),
    ("DeepSeek-V3", 7168, 512, 256, 8),
    ("Qwen-MoE", 4096, 384, 128, 8),
    ("Mixtral", 4096, 14336, 8, 2),
]
TOKENS = (1, 16, 128, 1024)
QUICK = [(SHAPES[0], 1), (SHAPES[2], 16)]
CANDIDATES = [  # stage1.build's (m_blk, tn, unroll, wk, depth)
    (32, 32, 2, 4, 2), (32, 64, 2, 2, 2), (32, 128, 2, 1, 2), (32, 256, 2, 1, 2), (32, 512, 2, 1, 2),
    (64, 128, 2, 1, 2), (64, 256, 2, 1, 2),
    (128, 128, 2, 1, 2), (128, 256, 2, 1, 2),  # 128 rows: a block of Mixtral's T=1024 reads its weights half as often
]
EVALUATED = 3  # candidates timed per shape: the first by the rounds rule (see ``ranked``); 3 since the 128-row
# tiles, which the rule puts first at shapes of few rows per expert (DeepSeek T=1024), came in
FAMILY = "moe stage1 fp8 g1u1 (MI300X)"


def _codes(rng, shape, scale=1.0):
    from moe import reference as ref

    return ref.fp8_encode((rng.standard_normal(shape) * scale).astype(np.float32))


def problem(rng, tokens, dim, inter, experts, topk):
    """Routing, inputs and the weights of the picked experts (renumbered), shuffled per expert."""
    from moe import moe_gemm, reference as ref

    w, ids = ref.route(rng.standard_normal((tokens, experts)).astype(np.float32), topk)
    used = np.unique(ids)
    remap = np.full(experts, -1, np.int64)
    remap[used] = np.arange(len(used))
    ids = remap[ids].astype(np.int32)
    e = len(used)
    w1s = np.empty((e, 2 * inter, dim), np.uint8)
    for i in range(e):  # one expert at a time: the Gaussian floats of all of them would not fit
        w1s[i] = moe_gemm.shuffle(_codes(rng, (2 * inter, dim), 8.0))
    return dict(ids=ids, w=w, experts=e, x=_codes(rng, (tokens, dim), 8.0), w1s=w1s,
                sx=rng.uniform(0.5, 1.5, tokens).astype(np.float32) / 64,
                sw=rng.uniform(0.5, 1.5, (e, 2 * inter)).astype(np.float32) / 64)


def unshuffle(ws: np.ndarray) -> np.ndarray:
    """Inverse of ``moe_gemm.shuffle`` for one expert's [N, K]."""
    n, kk = ws.shape
    return ws.reshape(n // 16, kk // 32, 2, 16, 16).transpose(0, 3, 1, 2, 4).reshape(n, kk)


def tiles_ok(out, p, s, ids, grid, tn: int, inter: int, topk: int) -> bool:
    """Each listed work-group's tile (block ``y``, columns ``x tn ..``) against NumPy (f64)."""
    from moe import reference as ref

    xf = ref.fp8_decode(p["x"]).astype(np.float64)
    for lin in ids:
        gx, by = lin % grid[0], lin // grid[0]
        raw = s.sorted_ids[by * s.block_m:(by + 1) * s.block_m].astype(np.int64)
        tok, slot = raw & ref.TOKEN_MASK, raw >> ref.SLOT_SHIFT
        ok = tok < p["x"].shape[0]
        tok, slot, e = tok[ok], slot[ok], int(s.sorted_expert_ids[by])
        cols = np.arange(gx * tn, (gx + 1) * tn)
        w = ref.fp8_decode(unshuffle(p["w1s"][e])).astype(np.float64)[np.concatenate([cols, inter + cols])]
        h = (xf[tok] @ w.T) * p["sx"][tok, None] * p["sw"][e][np.concatenate([cols, inter + cols])]
        want = ref.silu(h[:, :tn]) * h[:, tn:]
        got = ref.from_bf16_bits(out[tok, slot][:, cols]).astype(np.float64)
        if not np.all(np.abs(got - want) <= 2.0 ** -7 * (np.abs(want) + np.abs(want).max())):
            return False
    return True


def reduced_ok(kern, cand, topk: int) -> bool:
    """The whole output of the same binary at 5 tokens, model dim 512, inter 2 tn, 8 experts."""
    from moe import moe_gemm, reference as ref

    m_blk, tn = cand[:2]
    tokens, dim, inter, experts = 5, 512, 2 * tn, 8
    hidden, logits, w1_q, w1_s, _, _ = ref.random_problem(tokens, dim, inter, experts, seed=25)
    w, ids = ref.route(logits, topk)
    s = ref.sort_tokens(ids, w, experts, m_blk)
    x_q, x_s = ref.quant_per_token(hidden)
    out = np.full((tokens, topk, inter), 0xFFFF, np.uint16)
    kern(out, x_q, moe_gemm.shuffle(w1_q), s.num_valid_ids, x_s, w1_s, s.sorted_ids, s.sorted_expert_ids,
         np.uint32(dim), np.uint32(inter), np.uint32(tokens), np.uint32(topk),
         grid=(inter // tn, len(s.sorted_expert_ids), 1), block=(256,), device="emulator")
    got, want = ref.from_bf16_bits(out), ref.stage1(x_q, x_s, w1_q, w1_s, s, topk)
    return bool(np.all(np.abs(got - want) <= 2.0 ** -7 * (np.abs(want) + np.abs(want).max())))


def ranked(p, dim, inter, cus: int) -> list[tuple]:
    """The candidates that fit the shape, fewest rounds of work-groups over the CUs first, then
    fewest idle CUs in the last round (the rule of aiter's ``get_heuristic_kernel``)."""
    from moe import reference as ref

    out = []
    for cand in CANDIDATES:
        m_blk, tn, unroll, wk, depth = cand
        if dim % (32 * unroll * depth * wk) or inter % tn:
            continue
        n_wg = inter // tn * ref.sort_tokens(p["ids"], p["w"], p["experts"], m_blk).blocks
        rounds = -(-n_wg // cus)
        out.append(((rounds, rounds * cus - n_wg), cand))
    return [c for _, c in sorted(out)]


def ours(p, dim, inter, topk, prof, compiled):
    """(us, name, check, report) of the fastest of the ``EVALUATED`` best-ranked candidates;
    every timed candidate's sampled tiles checked."""
    from moe import reference as ref, stage1

    tokens = p["x"].shape[0]
    best = None
    for cand in ranked(p, dim, inter, prof.cus)[:EVALUATED]:
        m_blk, tn = cand[:2]
        name = stage1.kernel_name(*cand)
        if name not in compiled:
            from lib.compile import compile_module

            c = compile_module(stage1.build(*cand), schedule=True)
            kern = c.load("emulator")[name]
            compiled[name] = (kern, reduced_ok(kern, cand, topk))
        kern, full = compiled[name]
        s = ref.sort_tokens(p["ids"], p["w"], p["experts"], m_blk)
        g = (inter // tn, s.blocks, 1)
        out = np.full((tokens, topk, inter), 0xFFFF, np.uint16)
        rep = kern(out, p["x"], p["w1s"], s.num_valid_ids, p["sx"], p["sw"], s.sorted_ids, s.sorted_expert_ids,
                   np.uint32(dim), np.uint32(inter), np.uint32(tokens), np.uint32(topk), grid=g, block=(256,),
                   timing=prof, flops=4.0 * tokens * topk * inter * dim).timing
        ok = tiles_ok(out, p, s, rep.sampled_ids, g, tn, inter, topk)
        print(f"    ours {name}: {rep.us:.2f} us ({rep.limiter}); {len(rep.sampled_ids)}/{rep.workgroups} WG tiles "
              f"{'ok' if ok else 'MISMATCH'}; reduced shape {'ok' if full else 'MISMATCH'}")
        if best is None or rep.us < best[0]:
            best = (rep.us, name, (ok, len(rep.sampled_ids), rep.workgroups, full), rep)
    return best


def theirs(p, dim, inter, topk, prof, whl, table):
    """(us, object) of aiter's heuristic pick (the fastest of its ties), or None."""
    from moe import aiter_stage1 as ai, reference as ref

    tokens, experts = p["x"].shape[0], p["experts"]
    block = ai.block_size_m(tokens, topk, experts, inter, prof.cus)
    m_num = ref.max_blocks(tokens, topk, experts, block)
    s = ref.sort_tokens(p["ids"], p["w"], experts, block)
    best = None
    for obj in ai.heuristic(table, m_num, inter, block, prof.cus):
        out = np.full((tokens, topk, inter), 0xFFFF, np.uint16)
        rep = ai.launch(ai.load(whl, obj["name"]), out, p["x"], p["w1s"], s, p["sx"], p["sw"], dim, inter, tokens,
                        experts, topk, obj["tile_n"], n_blocks=s.blocks, timing=prof,
                        flops=4.0 * tokens * topk * inter * dim).timing
        print(f"    aiter {obj['name']} (block_m {block}): {rep.us:.2f} us ({rep.limiter})")
        if best is None or rep.us < best[0]:
            best = (rep.us, obj["name"])
    return best


def run(add_row, status, quick: bool, cache: str | None, max_gb: float = 2.0, pattern: str | None = None) -> None:
    """Adds one row per shape through bench_kernels' ``add_row`` / ``status``; ``pattern``: a
    regular expression, only the shapes whose label it matches (``re.search``)."""
    import re

    from gcnforge.perfmodel import profiles
    from gcnforge.testing import aiter_wheel

    from moe import aiter_stage1 as ai

    prof = profiles.get("mi300x")
    whl = str(aiter_wheel()) if cache is not None else None
    table = ai.objects(whl) if whl else []
    compiled: dict = {}
    todo = QUICK if quick else [(sh, t) for sh in SHAPES for t in TOKENS]
    print(f"\nfused MoE stage 1 (fp8 per-token / per-channel, g1u1 silu, bf16 out) on MI300X; random inputs")
    for (model, dim, inter, experts, topk), tokens in todo:
        shape = f"{model} {dim}/{inter}/{experts}/top{topk} T={tokens}"
        if pattern and not re.search(pattern, shape):
            continue
        picked = min(experts, tokens * topk)  # at most; the routing decides
        if picked * 2 * inter * dim > max_gb * 1e9:
            print(f"  {shape}: skipped (up to {picked} experts x {2 * inter * dim / 1e6:.0f} MB of weights > "
                  f"--moe-max-gb {max_gb})")
            continue
        t0 = time.perf_counter()
        print(f"  {shape}:")
        # inputs seeded by the shape alone: a --moe-shapes subset gives each shape the launches (and the
        # bench_kernels trace-cache entries) of the whole run
        rng = np.random.default_rng([25, SHAPES.index((model, dim, inter, experts, topk)), tokens])
        p = problem(rng, tokens, dim, inter, experts, topk)
        us, name, chk, rep = ours(p, dim, inter, topk, prof, compiled)
        ref_ = theirs(p, dim, inter, topk, prof, whl, table) if whl else None
        st = status(chk[0], chk[1], chk[2], chk[3], "5 tokens, 512/2tn/8 experts")
        add_row(FAMILY, name, f"{model} T={tokens}", us, ref_, st,
                f"{dim}/{inter}/{p['experts']} of {experts} experts/top{topk}; {rep.limiter}")
        print(f"    -> ours {us:.2f} us" + (f", aiter {ref_[0]:.2f} us, ratio {us / ref_[0]:.2f}" if ref_ else "")
              + f"; {st[0]} ({time.perf_counter() - t0:.0f} s)")


def sorting_times(tokens=TOKENS, block_m: int = 32) -> list[tuple]:
    """The sorting kernel (``moe/sorting.py``) at each model's routing (experts, top-k) and token
    count on random logits: (model, tokens, predicted us on MI300X, the launch overhead in it, the
    whole output equal to ``reference.sort_tokens``'s). The floor is the launch overhead: a launch
    of nothing takes it. Every work-group is emulated (``timing_complete``) so the check is whole."""
    from gcnforge.perfmodel import profiles
    from lib.compile import compile_module

    from moe import reference as ref, sorting

    prof = profiles.get("mi300x")
    rows = []
    for model, experts, topk in dict.fromkeys((m, e, k) for m, _, _, e, k in SHAPES):
        kern = compile_module(sorting.build(experts, topk, block_m)).load("emulator")[
            sorting.kernel_name(experts, topk, block_m)]
        for t in tokens:
            rng = np.random.default_rng([25, experts, topk, t])
            w, ids = ref.route(rng.standard_normal((t, experts)).astype(np.float32), topk)
            p = ref.max_padded(t, topk, experts, block_m)
            got = ref.Sorted(np.full(p, -7, np.int32), np.full(p, np.nan, np.float32),
                             np.full(ref.max_blocks(t, topk, experts, block_m), -7, np.int32), np.zeros(2, np.int32),
                             block_m)
            rep = kern(ids, w, got.sorted_ids, got.sorted_weights, got.sorted_expert_ids, got.num_valid_ids,
                       np.int32(t), grid=sorting.grid(t, experts, topk, block_m), block=sorting.BLOCK, timing=prof,
                       timing_complete=True).timing
            want = ref.sort_tokens(ids, w, experts, block_m)
            n = want.valid
            ok = (got.num_valid_ids.tolist() == want.num_valid_ids.tolist()
                  and np.array_equal(got.sorted_ids[:n], want.sorted_ids[:n])
                  and np.array_equal(got.sorted_weights[:n], want.sorted_weights[:n])
                  and np.array_equal(got.sorted_expert_ids[:want.blocks], want.sorted_expert_ids[:want.blocks]))
            rows.append((model, t, rep.us, rep.launch_seconds * 1e6, ok))
            print(f"  {model} {experts} experts top{topk} T={t}: {rep.us:.2f} us ({rep.launch_seconds * 1e6:.2f} us "
                  f"launch, {rep.us / (rep.launch_seconds * 1e6):.2f}x it; {rep.workgroups} WGs); "
                  f"{'ok' if ok else 'MISMATCH'}", flush=True)
    return rows


if __name__ == "__main__":
    import argparse
    import sys
    from pathlib import Path

    ap = argparse.ArgumentParser(description="the fused-MoE sorting kernel's predicted times (the stage-1 family "
                                 "runs from bench_kernels.py --only moe)")
    ap.add_argument("--sorting", action="store_true", required=True)
    ap.add_argument("--tokens", type=int, nargs="+", default=list(TOKENS))
    a = ap.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
    print("fused MoE sorting (moe/sorting.py, block_m 32) on MI300X; random routing")
    rows = sorting_times(a.tokens)
    sys.exit(0 if all(r[-1] for r in rows) else 1)
