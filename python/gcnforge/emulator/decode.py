"""Decode a kernel once into ``XInst`` records keyed by pc, with handlers bound.

Decoding goes only through ``gcnforge.asm.disassemble`` (the project's decoder), and each
record is built from the decoder's operand values (``program.record``); the result is
cached per (code bytes, entry, target) so repeated launches do not decode again. The cache
is bounded (least recently used programs go first once ``CACHE_INSTRUCTIONS`` records are
held), so a process that launches many different kernels keeps a fixed footprint.

An instruction the decoder reads but the emulator cannot execute (a form it does not model)
becomes a record whose handler raises ``Unsupported`` with the reason; the handler carries
the reason as ``handler.unsupported`` for the form census (``emulator.forms``).
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict

from gcnforge.emulator.core import Unsupported, WaveFault
from gcnforge.emulator.program import XInst, XOp, record
from gcnforge.perfmodel.costs import issue_cycles, sem_of

# Decoded records kept across launches, counted in instructions: a record with its operands,
# modifiers and decoded instruction takes ~1.6 KB (tracemalloc over an aiter MoE kernel of
# 6,830 instructions), so the cache stays under ~160 MB and holds a dozen of aiter's largest
# kernels, or thousands of small ones.
CACHE_INSTRUCTIONS = 100_000
_CACHE: OrderedDict = OrderedDict()  # key -> program, least recently used first
_CACHED = [0]  # instructions held by _CACHE


def _sext16(v: int) -> int:
    v &= 0xFFFF
    return v - 0x10000 if v & 0x8000 else v


def handlers(target: str = "gfx942") -> dict:
    """Semantics by mnemonic for ``target``: gfx942's, with a later target's
    ``TARGET_HANDLERS[target]`` of each module on top (new instructions, and instructions
    whose meaning changed: gfx950's FP8 conversions use the OCP formats)."""
    from gcnforge.emulator import ops_gfx950, ops_mem, ops_mfma, ops_scalar, ops_smem, ops_valu, ops_vop3p

    mods = (ops_scalar, ops_smem, ops_valu, ops_vop3p, ops_mem, ops_mfma, ops_gfx950)
    h = {}
    for mod in mods:
        h.update({k: v for k, v in mod.HANDLERS.items() if v is not None})
    if target != "gfx942":
        for mod in mods:
            extra = getattr(mod, "TARGET_HANDLERS", {}).get(target, {})
            h.update({k: v for k, v in extra.items() if v is not None})
    return h


_HANDLERS: dict = {}  # target -> handlers
_CYCLES: dict = {}


def bind(ins: XInst, target: str = "gfx942") -> None:
    hs = _HANDLERS.get(target)
    if hs is None:
        hs = _HANDLERS[target] = handlers(target)
    h = hs.get(ins.base) or hs.get(ins.mnemonic)
    if h is None:
        from gcnforge.emulator import ops_mem, ops_mfma, ops_smem

        h = ops_mem.lookup_mem(ins.base) or ops_mfma.lookup(ins.base) or ops_smem.lookup_scalar(ins.base)
    if h is None:
        h = _unsupported_handler(f"instruction '{ins.mnemonic}' is not implemented by the emulator")
    ins.handler = h
    if ins.sem == "":
        ins.sem = sem_of(ins.base)
    key = (ins.sem, ins.base)
    c = _CYCLES.get(key)
    if c is None:
        c = _CYCLES[key] = issue_cycles(ins.sem, ins.base)  # the one cost model (perfmodel.costs)
    ins.cycles = c
    if ins.sem == "branch" or ins.base == "s_call_b64":
        imm = [o for o in ins.ops if o.kind == "imm"]
        if imm:
            ins.target = ins.pc + 4 + 4 * _sext16(imm[-1].value)


def _unsupported_handler(message: str, reason: str | None = None):
    def h(x, i, w):
        raise Unsupported(message)

    h.unsupported = reason or message
    return h


def unsupported(di, pc: int, reason: str) -> XInst:
    """The record of a decoded instruction whose form the emulator cannot execute."""
    inst = di.inst
    ins = XInst(pc, di.size, inst.mnemonic, inst.base, "", (), sem="unsupported", di=di)
    ins.handler = _unsupported_handler(f"'{ins.text}': {reason}", reason)
    return ins


def undecodable(pc: int, size: int, text: str) -> XInst:
    ins = XInst(pc, size, ".long", ".long", "", (), text=text)

    def h(x, i, w):
        raise WaveFault(f"cannot execute undecodable bytes '{text}'")

    ins.handler = h
    ins.sem = "invalid"
    return ins


def from_decoded(decoded, target: str = "gfx942") -> dict[int, XInst]:
    """``decoded``: iterable of (pc, DecodedInst) -> program dict (handlers of ``target``)."""
    prog: dict[int, XInst] = {}
    for pc, di in decoded:
        if di.inst is None:
            prog[pc] = undecodable(pc, di.size, di.text(pc))
            continue
        try:
            ins = record(di, pc)
        except (ValueError, IndexError) as e:
            prog[pc] = unsupported(di, pc, str(e))
            continue
        bind(ins, target)
        prog[pc] = ins
    return prog


def decode_code(code: bytes, entry: int, target: str = "gfx942") -> dict[int, XInst]:
    """Decode ``code`` (starting at address ``entry``) with ``target``'s instruction table and
    bind its semantics; not cached (``decode_kernel`` is what a launch calls)."""
    from gcnforge.asm import disassemble
    from gcnforge.isa import table

    with table.use_target(target):
        return from_decoded(disassemble(code, entry), target)


def decode_kernel(text: bytes, text_address: int, entry: int, end: int, target: str = "gfx942") -> dict[int, XInst]:
    """The program of the kernel at ``entry`` (``decode_code``), cached least-recently-used."""
    code = text[entry - text_address : end - text_address]
    key = (hashlib.sha1(code).hexdigest(), entry, target)
    prog = _CACHE.get(key)
    if prog is not None:
        _CACHE.move_to_end(key)
        return prog
    prog = decode_code(code, entry, target)
    _CACHE[key] = prog
    _CACHED[0] += len(prog)
    while _CACHED[0] > CACHE_INSTRUCTIONS and len(_CACHE) > 1:
        _CACHED[0] -= len(_CACHE.popitem(last=False)[1])
    return prog


def cached_instructions() -> int:
    """Decoded records the cache holds now."""
    return _CACHED[0]


__all__ = ["decode_kernel", "decode_code", "XInst", "XOp"]
