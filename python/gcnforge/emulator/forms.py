"""Instruction forms and whether the emulator can execute them (the form census).

A *form* is what the executor dispatches on, not just the mnemonic: the mnemonic, each
operand's kind and width with its source modifiers (neg/abs/sext), and the modifiers whose
value selects behaviour (the DPP control, SDWA selects, op_sel/op_sel_hi/neg_lo/neg_hi, omod,
the MFMA cbsz/abid/blgp, a buffer format, the hwreg id, the message of s_sendmsg, the mode of
ds_swizzle_b32's offset) or whose presence does (glc, clamp, bound_ctrl, ...). Counts such as
offsets, wait counts and DPP row/bank masks are values, not forms.

A form is *executable* when its record was built (``decode.from_decoded``: the decoder read it
and ``program.record`` understood every field), a handler is bound, and running that handler
once, in the launch state of the kernel it comes from, raises no ``Unsupported`` (the
emulator's "not modelled" faults) and no Python error. The run is a probe: its faults of the
kernel's own kind (an unmapped address, a trap) are fine, and after one the form is run again
with EXEC = 0, so that the checks past the memory access still run.
"""

from __future__ import annotations

import hashlib

import numpy as np

from gcnforge.diagnostics import Diagnostic
from gcnforge.emulator.core import WAVE, Unsupported
from gcnforge.emulator.program import EXEC, XInst

# modifiers whose value is part of the form (the rest count by presence, or not at all)
_VALUED = frozenset(("dpp", "dst_sel", "dst_unused", "src0_sel", "src1_sel", "op_sel", "op_sel_hi", "neg_lo",
                     "neg_hi", "mul", "div", "cbsz", "abid", "blgp", "format", "sendmsg"))
_VALUES = frozenset(("offset", "offset0", "offset1", "row_mask", "bank_mask", "vmcnt", "expcnt", "lgkmcnt"))


def _frozen(v):
    return tuple(_frozen(x) for x in v) if isinstance(v, (list, tuple)) else v


def form(ins: XInst) -> tuple:
    """The form key of a decoded record: (mnemonic, operands, modifiers); hashable."""
    if getattr(ins.handler, "unsupported", None) and not ins.ops:  # a record program.record refused
        return ins.mnemonic, (), (("unsupported", ins.handler.unsupported),)
    ops = tuple((o.kind, o.dwords, o.neg, o.abs, o.sext) for o in ins.ops)
    mods = []
    for k, v in ins.mods.items():
        if k in _VALUED:
            mods.append((k, _frozen(v)))
        elif k == "hwreg":
            mods.append((k, v[0]))  # the register id; offset and size are values
        elif k == "offset" and ins.base == "ds_swizzle_b32":
            mods.append((k, v))  # the offset is the swizzle mode
        elif k not in _VALUES:
            mods.append((k, None))
    return ins.mnemonic, ops, tuple(sorted(mods, key=lambda m: m[0]))


def describe(key: tuple) -> str:
    """A short text of a form key for reports."""
    mnem, ops, mods = key
    parts = [mnem]
    if ops:
        parts.append(",".join(f"{'-' if n else ''}{'|' if a else ''}{k}{d if k != 'imm' else ''}{'(sext)' if s else ''}"
                              for k, d, n, a, s in ops))
    parts += [k if v is None else f"{k}:{v}" for k, v in mods]
    return " ".join(str(p) for p in parts)


class Probe:
    """Runs single records on an executor in the launch state of one kernel."""

    def __init__(self, image, prog, target: str):
        from gcnforge.emulator.device import Device
        from gcnforge.emulator.executor import Executor

        d = image.descriptor
        self.device = dev = Device()
        ka = dev.memory.alloc(max(d.kernarg_size, 64), 256, name="kernarg")
        dispatch = dev._dispatch_packet((1, 1, 1), (WAVE, 1, 1), ka, d.private_segment_fixed_size,
                                        d.group_segment_fixed_size)
        queue = dev.memory.alloc(256, 64, name="queue")
        self.target = target
        self.ex = Executor(dev, image, prog, [(0, 0, 0)], (WAVE, 1, 1), ka, dispatch, queue,
                           d.group_segment_fixed_size)
        self.exec0 = self.ex.S[0, EXEC : EXEC + 2].copy()

    def reason(self, ins: XInst) -> str | None:
        """None when ``ins`` executes; else why the emulator cannot execute its form."""
        why = getattr(ins.handler, "unsupported", None)
        if why:
            return why
        from gcnforge.isa import table

        ex, w = self.ex, np.array([0])
        with table.use_target(self.target), np.errstate(all="ignore"):
            for exec_mask in (self.exec0, (0, 0)):  # as launched, then (after a fault) with EXEC = 0
                ex.S[0, EXEC : EXEC + 2] = exec_mask
                ex.done[:] = False
                try:
                    ins.handler(ex, ins, w)
                    return None
                except Unsupported as e:
                    return e.message
                except Diagnostic:
                    continue  # a fault of the probe's data: run it again past the access
                except Exception as e:  # noqa: BLE001 - an emulator bug is a form it cannot execute
                    return f"emulator error {type(e).__name__}: {e}"
        return None


class Census:
    """Forms seen over many code objects: ``forms[key] = [instructions, reason or None, example]``.

    Each kernel is walked as a launch decodes it (``asm.decode`` one instruction after the
    other from the entry, then ``decode.from_decoded``: ``program.record`` and the handler
    binding). A record depends only on the instruction's bytes (and its pc, which no form
    reads), so a walk remembers the form of every byte string of at most 8 bytes it decoded
    (gfx9 instructions are 4 or 8 bytes, a literal included) and decodes only new ones: the
    full walk of aiter's ~6M instructions per target then takes minutes, not hours."""

    MEMO = 1_000_000  # remembered byte strings per target (~200 B each) before the memo restarts

    def __init__(self):
        self.forms: dict[tuple, list] = {}
        self.kernels = 0
        self.instructions = 0
        self.objects = 0
        self.failed_objects: list[tuple[str, str]] = []  # (name, why the object could not be read)
        self.blocked_objects = 0  # objects with a kernel holding a form the emulator cannot execute
        self.undecodable = 0  # words in kernels' code ranges the decoder cannot read (not counted as forms)
        self._seen: dict[tuple, dict] = {}  # (code sha1, entry, target) -> form counts
        self._memo: dict[str, dict] = {}  # target -> {instruction bytes: (size, form key or None)}

    def add_object(self, data: bytes, name: str = "") -> None:
        """Walk every kernel of a code object as a launch decodes it."""
        from gcnforge.binary import read_code_object
        from gcnforge.emulator.device import emulated_target
        from gcnforge.emulator.launch import kernel_image

        self.objects += 1
        try:
            kernels = list(read_code_object(data).kernels)
            images = [kernel_image(data, k) for k in kernels]
        except Diagnostic as e:
            self.failed_objects.append((name, e.message))
            return
        blocked = False
        for image in images:
            self.kernels += 1
            target = emulated_target(image.processor).name
            code = image.text[image.entry - image.text_address : image.end - image.text_address]
            seen_key = (hashlib.sha1(code).digest(), image.entry, target)
            counts = self._seen.get(seen_key)
            if counts is None:  # else the same code in another object: count it again, do not walk it
                counts = self._seen[seen_key] = self._walk(image, code, target, name)
            for key, n in counts.items():
                if key is None:  # undecodable words: no form
                    self.undecodable += n
                    continue
                f = self.forms[key]
                f[0] += n
                self.instructions += n
                blocked = blocked or f[1] is not None
        self.blocked_objects += blocked

    def _walk(self, image, code: bytes, target: str, where: str) -> dict:
        """Form counts of one kernel's code (probing forms not seen before); None counts the
        words the decoder cannot read."""
        from gcnforge.asm import decode
        from gcnforge.emulator.decode import from_decoded
        from gcnforge.isa import table

        memo = self._memo.setdefault(target, {})
        if len(memo) > self.MEMO:
            memo.clear()
        counts: dict[tuple, int] = {}
        probe = None
        off, n = 0, len(code)
        with table.use_target(target):
            while off < n:
                got = memo.get(code[off : off + 8])
                if got is None:
                    di = decode(code, off)
                    ins = from_decoded([(image.entry + off, di)], target)[image.entry + off]
                    key = None if ins.sem == "invalid" else form(ins)  # undecodable bytes (data): no form
                    if key is not None and key not in self.forms:
                        probe = probe or Probe(image, {}, target)
                        self.forms[key] = [0, probe.reason(ins), f"{where}:{image.name}: {ins.text}"]
                    got = (di.size, key)
                    if di.size <= 8:
                        memo[code[off : off + 8]] = got
                size, key = got
                counts[key] = counts.get(key, 0) + 1
                off += size
        return counts

    # ---- figures ----------------------------------------------------------------------------
    def unsupported(self) -> dict[tuple, list]:
        return {k: v for k, v in self.forms.items() if v[1] is not None}

    def summary(self) -> str:
        bad = self.unsupported()
        n_ins = sum(v[0] for v in bad.values())
        return (f"{len(self.forms)} forms ({len({k[0] for k in self.forms})} mnemonics), "
                f"{len(self.forms) - len(bad)} executable, {len(bad)} not "
                f"({n_ins} of {self.instructions} instructions); {self.kernels} kernels in {self.objects} objects, "
                f"{self.blocked_objects} with a form it cannot execute; {self.undecodable} undecodable words")


__all__ = ["form", "describe", "Probe", "Census"]
