"""Metaprogramming example: one 32x32 tile of C = A @ B with ``v_mfma_f32_32x32x8_f16``.

Python is the macro language: ``K_STEPS`` MFMA steps are a Python loop (unrolled into
straight-line IR), the step itself is an ``amdgcn.func`` "nanokernel" called once per step
(the inline pass splices it in), the accumulator is sixteen AGPRs built and taken apart with
range helpers, and loads/stores are generated from lists of offsets. Nothing names a physical
register. The operand layout (which lane holds which element) is the MFMA's, as AMD's Matrix
Instruction Calculator lists it; this example only shows how the IR is put together.

    python examples/authoring_mfma_tile.py        # prints the amdgcn IR
"""

from gcnforge.builder import Arg, Module

K_STEPS = 4  # K = 8 * K_STEPS
A_STEP = 64 * 8  # bytes of A (or B) one step consumes per wave: 64 lanes x 4 halves


def build(k_steps: int = K_STEPS) -> Module:
    m = Module("mfma_tile")
    # parameter types by spelling: sixteen AGPRs (the accumulator), two VGPRs (4 halves)
    with m.func("mfma_step", ["a16", "v2", "v2"], ["a16"]) as f:
        acc, a, b = f.params
        f.ret(f.v_mfma_f32_32x32x8_f16(acc, a, b, acc))  # D = A * B + C, in place on acc

    args = [Arg.ptr("a", access="read_only"), Arg.ptr("b", access="read_only"), Arg.ptr("c", access="write_only")]
    with m.kernel("mfma_tile", args, workgroup_size=(64, 1, 1)) as k:
        pa, pb, pc = k.args()
        lane = k.thread_id("x")
        off8 = k.v_lshlrev_b32(3, lane).named("off8")  # 8 bytes (4 halves) per lane and step
        off4 = k.v_lshlrev_b32(2, lane).named("off4")  # 4 bytes per lane for each C row

        # issue every load first, then wait once: Python lists hold the values and tokens
        frags, tokens = [], []
        for step in range(k_steps):
            for base in (pa, pb):
                v, t = k.global_load_dwordx2(off8, base, offset=step * A_STEP)
                frags.append(v)
                tokens.append(t)
        k.wait(*tokens)

        acc = k.concat(*[k.v_accvgpr_write_b32(0) for _ in range(16)]).named("acc")
        for step in range(k_steps):
            acc = k.call("mfma_step", acc, frags[2 * step], frags[2 * step + 1])

        for i, part in enumerate(acc.split()):  # sixteen AGPRs, stored straight from AGPRs
            k.global_store_dword(off4, part, pc, offset=i * 256)
        k.s_endpgm()
    m.verify()
    return m


if __name__ == "__main__":
    print(build(), end="")
