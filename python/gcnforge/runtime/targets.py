"""Target ids (``gfx942:sramecc+:xnack-``) and whether a code object can run on a device.

Rule (LLVM AMDGPUUsage, "Target ID"): the processors must be equal, and each target
feature the code object fixes (``+`` or ``-``) must equal the device's setting; a feature
the code object leaves unspecified ("any") runs either way.
"""

from __future__ import annotations

from dataclasses import dataclass

from gcnforge.diagnostics import Diagnostic


@dataclass(frozen=True, slots=True)
class TargetId:
    processor: str
    features: tuple[tuple[str, str], ...] = ()  # (name, '+'|'-'), sorted

    @classmethod
    def parse(cls, text: str) -> TargetId:
        t = text.strip()
        # Accept the full triple form the metadata uses: amdgcn-amd-amdhsa--gfx942:xnack-
        if "--" in t:
            t = t.split("--", 1)[1]
        parts = [p for p in t.split(":") if p]
        if not parts or not parts[0].startswith("gfx"):
            raise Diagnostic(f"'{text}' is not an AMDGPU target id (expected e.g. gfx942:sramecc+:xnack-)")
        feats = []
        for p in parts[1:]:
            if p[-1:] not in ("+", "-"):
                raise Diagnostic(f"target feature '{p}' in '{text}' must end in + or -")
            feats.append((p[:-1], p[-1]))
        return cls(parts[0], tuple(sorted(feats)))

    def __str__(self) -> str:
        return ":".join([self.processor, *(n + s for n, s in self.features)])


def compatible(code_object_target: str, device_target: str) -> bool:
    co, dev = TargetId.parse(code_object_target), TargetId.parse(device_target)
    if co.processor != dev.processor:
        return False
    devf = dict(dev.features)
    return all(devf.get(n, s) == s for n, s in co.features)


def check_compatible(code_object_target: str, device_target: str, device_name: str) -> None:
    """Raise a Diagnostic naming both targets when the code object cannot run there."""
    if not compatible(code_object_target, device_target):
        raise Diagnostic(
            f"code object is for {code_object_target} but the {device_name} device is {device_target}",
            notes=("rebuild the kernel for the device's target, or choose another device",),
        )
