"""The wait and hazard verifiers on raised code, each finding named by the original pc.

Runs ``amdgcn-insert-waits`` in ``verify`` mode and ``amdgcn-hazards`` in ``verify`` mode
(``gcnforge.passes``) over every raised kernel: the counter model (``gcnforge.isa.counters``)
and the hazard table (``gcnforge.isa.hazards``) the compiler and the sanitizer use. Those passes word their findings per
instruction; here each one is prefixed with the ``pc`` attribute of the op it was found
at (the pass computes the op's machine view just before recording a finding for it, which
is where the op is captured). ``lift.inst`` ops are opaque to both analyses.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Operation

from gcnforge.diagnostics import Diagnostic
from gcnforge.dialect.structure_ops import KernelOp
from gcnforge.passes import hazards, waits


class _Findings(list):
    """Prefixes each finding with the pc of the op being analysed."""

    def __init__(self, owner):
        super().__init__()
        self.owner = owner

    def append(self, text: str) -> None:
        op = self.owner.current
        pc = op.attributes.get("pc") if op is not None else None
        where = f"pc 0x{pc.value.data:x}" if isinstance(pc, IntegerAttr) else "pc ?"
        src = op.attributes.get("src") if op is not None else None
        if src is not None:
            where += f" ({src.data})"
        super().append(f"{where}: {text}")


class _Tracking:
    current: Operation | None = None

    def _minst(self, op):  # noqa: D401 - same contract as the passes' own
        self.current = op
        return super()._minst(op)


class _Waits(_Tracking, waits._Kernel):  # noqa: SLF001 - reuse the pass's analysis unchanged
    def __init__(self, k):
        super().__init__(k, "verify")
        self.findings = _Findings(self)


class _Hazards(_Tracking, hazards._Kernel):  # noqa: SLF001
    def __init__(self, k):
        super().__init__(k, True)
        self.findings = _Findings(self)


CHECKS = {"waits": (_Waits, "missing s_waitcnt"), "hazards": (_Hazards, "hazard")}


def verify_module(module: Operation, checks=("waits", "hazards")) -> list[str]:
    """Findings as ``@kernel pc 0x...: <what>`` lines ([] when the code is clean), with the
    rows of the module's ``#amdgcn.target``."""
    from gcnforge.dialect.value_ops import input_target
    from gcnforge.isa import table

    with table.use_target(input_target(module)):
        return _verify(module, checks)


def _verify(module: Operation, checks) -> list[str]:
    out = []
    for c in checks:
        if c not in CHECKS:
            raise Diagnostic(f"unknown check '{c}' (expected {', '.join(CHECKS)})")
    for k in module.walk():
        if not isinstance(k, KernelOp):
            continue
        for c in checks:
            cls, what = CHECKS[c]
            run = cls(k)
            try:
                run.run()
            except Diagnostic:
                pass  # the pass raises its summary; the findings are what we report
            out += [f"@{k.sym_name.data} {f} [{what}]" for f in run.findings]
    return out
