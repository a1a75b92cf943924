"""Benchmark: build + verify + print + parse a 10,000-instruction amdgcn kernel.

Anchor, run in the same process: xDSL's own ``riscv`` dialect, a ``riscv_func.func`` of
10,000 register-allocated-style ``riscv.add``/``riscv.addi``/``riscv.mul`` ops built, verified,
printed and parsed the same way. Ratios > 1 mean gcnforge is slower than xDSL's dialect for
the same number of instructions (our ops verify against the ISA table and each fresh
definition carries a destination ``amdgcn.alloca``, so they are ~2x the IR).

    python benchmarks/bench_dialect.py [N] [REPEAT]

Each phase reports the best of REPEAT runs (default 1), as the machine may be shared.
"""

from __future__ import annotations

import io
import sys
import time

from xdsl.context import Context
from xdsl.dialects import riscv, riscv_func
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.ir import Block, Region
from xdsl.parser import Parser
from xdsl.printer import Printer

from gcnforge.builder import Arg, Module
from gcnforge.dialect import context


def _print(op) -> str:
    s = io.StringIO()
    Printer(stream=s).print_op(op)
    return s.getvalue()


def amdgcn_phases(n: int) -> dict[str, float]:
    t: dict[str, float] = {}
    t0 = time.perf_counter()
    m = Module("bench")
    with m.kernel("k", [Arg.ptr("p")]) as k:
        p = k.arg(0)
        tid = k.thread_id()
        acc = k.v_mov_b32(0)
        count = 2
        while count < n:
            # a realistic mix: VALU (VOP2/VOP3), SALU, a global load every 8, MFMA-free
            x, tok = k.global_load_dword(tid, p, offset=(count % 64) * 4)
            k.wait(tok)
            acc = k.v_add_f32(acc, x)
            acc = k.v_fma_f32(acc, x, 0.5)
            s = k.s_add_u32(p[0], 16)
            acc = k.v_add_u32(s, acc)
            acc = k.v_lshlrev_b32(1, acc)
            acc = k.v_max_f32(acc, 1.0)
            acc = k.v_mul_f32(acc, acc)
            count += 8
        k.global_store_dword(tid, acc, p)
    t["build (incl. per-op verify)"] = time.perf_counter() - t0
    n_inst = sum(1 for op in m.top.walk() if op.name.startswith("amdgcn.") and op.name not in (
        "amdgcn.alloca", "amdgcn.wait", "amdgcn.module", "amdgcn.kernel", "amdgcn.load_arg", "amdgcn.thread_id",
        "amdgcn.split_range", "amdgcn.end"))
    t0 = time.perf_counter()
    m.verify()
    t["verify"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    text = _print(m.top)
    t["print"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    again = Parser(context(), text).parse_module()
    t["parse"] = time.perf_counter() - t0
    assert _print(again) == text
    t["_instructions"] = n_inst
    t["_ops"] = sum(1 for _ in m.top.walk())
    return t


def riscv_phases(n: int) -> dict[str, float]:
    t: dict[str, float] = {}
    t0 = time.perf_counter()
    block = Block(arg_types=[riscv.IntRegisterType.unallocated()])
    b = block.args[0]
    ops = []
    acc = b
    for i in range(n):
        if i % 3 == 0:
            op = riscv.AddiOp(acc, i % 2048, rd=riscv.IntRegisterType.unallocated())
        elif i % 3 == 1:
            op = riscv.AddOp(acc, b, rd=riscv.IntRegisterType.unallocated())
        else:
            op = riscv.MulOp(acc, b, rd=riscv.IntRegisterType.unallocated())
        op.verify()
        ops.append(op)
        acc = op.rd
    block.add_ops([*ops, riscv_func.ReturnOp(acc)])
    f = riscv_func.FuncOp("f", Region(block), ((riscv.IntRegisterType.unallocated(),), ()))
    mod = ModuleOp([f])
    t["build (incl. per-op verify)"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    mod.verify()
    t["verify"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    text = _print(mod)
    t["print"] = time.perf_counter() - t0
    ctx = Context()
    for d in (Builtin, riscv.RISCV, riscv_func.RISCV_Func):
        ctx.load_dialect(d)
    t0 = time.perf_counter()
    again = Parser(ctx, text).parse_module()
    t["parse"] = time.perf_counter() - t0
    assert _print(again) == text
    t["_instructions"] = n
    t["_ops"] = sum(1 for _ in mod.walk())
    return t


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    repeat = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    ours = amdgcn_phases(n)
    anchor = riscv_phases(ours["_instructions"])
    for _ in range(repeat - 1):
        for best, again in ((ours, amdgcn_phases(n)), (anchor, riscv_phases(ours["_instructions"]))):
            for k, v in again.items():
                if not k.startswith("_"):
                    best[k] = min(best[k], v)
    print(f"amdgcn kernel: {ours['_instructions']} instructions ({ours['_ops']} ops incl. allocas/waits/constants)")
    print(f"anchor: xDSL riscv func with {anchor['_instructions']} instructions ({anchor['_ops']} ops)")
    print(f"{'phase':<30}{'amdgcn s':>10}{'riscv s':>10}{'ratio':>8}")
    tot_a = tot_b = 0.0
    for phase in ("build (incl. per-op verify)", "verify", "print", "parse"):
        a, b = ours[phase], anchor[phase]
        tot_a += a
        tot_b += b
        print(f"{phase:<30}{a:>10.3f}{b:>10.3f}{a / b:>8.2f}")
    print(f"{'total':<30}{tot_a:>10.3f}{tot_b:>10.3f}{tot_a / tot_b:>8.2f}")


if __name__ == "__main__":
    main()
