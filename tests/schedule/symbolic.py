"""An independent reference: run amdgcn IR symbolically (instructions as uninterpreted
terms), interpreting ``amdgcn.loop`` sequentially as written. Comparing the loop's result
terms before and after ``amdgcn-schedule`` checks that every use read the right clone."""

from __future__ import annotations

from xdsl.ir import Block

from gcnforge.dialect.constant import ConstantOp
from gcnforge.dialect.inst_ops import InstOp
from gcnforge.dialect.loop_ops import LoopOp, YieldOp


def _rate(op) -> int:
    a = op.attributes.get("sched")
    return int(list(a.get_values())[1]) if a is not None else 1


def run_block(block: Block, env: dict, trace: list, j: int = 0, held: dict | None = None) -> list:
    for op in block.ops:
        if held is not None and op in held and j % _rate(op):
            for r, v in zip(op.results, held[op]):
                env[r] = v
            continue
        if isinstance(op, YieldOp):
            return [env[v] for v in op.values]
        if isinstance(op, ConstantOp):
            env[op.result] = ("const", op.value.value.data)
        elif isinstance(op, LoopOp):
            vals = [env[v] for v in op.inits]
            dims = op.unroll_dims
            from gcnforge.schedule.expr import delinearize

            p = 1
            for d in dims:
                p *= d
            held: dict = {}  # rate > 1: iteration j reuses the clone of j - j % rate
            for j in range(op.trip_count):
                idx = delinearize(j % p, dims, op.order) if dims else ()
                inner = dict(env)
                for a, c in zip(op.index_args, idx):
                    inner[a] = ("const", c)
                for a, v in zip(op.iter_args, vals):
                    inner[a] = v
                vals = run_block(op.block, inner, trace, j, held)
            for r, v in zip(op.res, vals):
                env[r] = v
        elif isinstance(op, InstOp):
            term = (op.mnemonic, tuple(env[v] for v in op.args), op.imm_values)
            if op.info is not None and op.info.family in ("ds", "global", "flat", "smem", "scratch", "mubuf"):
                trace.append(term)
            for i, r in enumerate(op.results):
                env[r] = (term, i)
            if held is not None:
                held[op] = [env[r] for r in op.results]
        else:
            for i, r in enumerate(op.results):
                env[r] = (op.name, tuple(env[v] for v in op.operands), i)
            if held is not None:
                held[op] = [env[r] for r in op.results]
    return []


def run_kernel(module) -> tuple[dict, list]:
    """-> ({result name hint of the kernel's final values: term}, memory trace)."""
    from gcnforge.dialect import KernelOp

    k = next(o for o in module.walk() if isinstance(o, KernelOp))
    env: dict = {}
    trace: list = []
    run_block(k.body.blocks[0], env, trace)
    return env, trace
