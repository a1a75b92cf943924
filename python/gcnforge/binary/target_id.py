"""Target ids (``gfx942:sramecc+:xnack-``), the ELF header fields that encode them, and whether
a code object of one target id runs on a device of another.

Values: LLVM AMDGPUUsage, "AMDGPU ELF Header" (EF_AMDGPU_MACH_*, EF_AMDGPU_FEATURE_XNACK_V4,
EF_AMDGPU_FEATURE_SRAMECC_V4, EF_AMDGPU_GENERIC_VERSION) and "Code Object Target
Identification"; llvm/BinaryFormat/ELF.h.
"""

from __future__ import annotations

from gcnforge.diagnostics import Diagnostic
from gcnforge.record import FrozenRecord, set_fields

EM_AMDGPU = 224
ELFOSABI_AMDGPU_HSA = 64
NT_AMDGPU_METADATA = 32

# EI_ABIVERSION for ELFOSABI_AMDGPU_HSA, per code object version.
ABI_VERSION_BY_COV = {4: 2, 5: 3, 6: 4}
COV_BY_ABI_VERSION = {v: k for k, v in ABI_VERSION_BY_COV.items()}

EF_AMDGPU_MACH = 0x0FF
EF_AMDGPU_FEATURE_XNACK_V4 = 0x300
EF_AMDGPU_FEATURE_SRAMECC_V4 = 0xC00
EF_AMDGPU_GENERIC_VERSION = 0xFF000000
_FEATURE_SETTING = {0x0: None, 0x1: "any", 0x2: "off", 0x3: "on"}  # field value >> shift

# gfx9 machines: name -> (EF_AMDGPU_MACH, supports xnack, supports sramecc)
MACHS: dict[str, tuple[int, bool, bool]] = {
    "gfx900": (0x2C, True, False),
    "gfx902": (0x2D, True, False),
    "gfx904": (0x2E, True, False),
    "gfx906": (0x2F, True, True),
    "gfx908": (0x30, True, True),
    "gfx909": (0x31, True, False),
    "gfx90c": (0x32, True, False),
    "gfx90a": (0x3F, True, True),
    "gfx940": (0x40, True, True),
    "gfx941": (0x4B, True, True),
    "gfx942": (0x4C, True, True),
    "gfx950": (0x4F, True, True),
    "gfx9-generic": (0x51, True, False),
    "gfx9-4-generic": (0x5F, True, True),
}
NAME_BY_MACH = {m: n for n, (m, _, _) in MACHS.items()}


class TargetId(FrozenRecord):  # a FrozenRecord, not a dataclass: ``gcnforge as`` start-up time
    __slots__ = _fields = ("processor", "sramecc", "xnack")
    processor: str  # "gfx942"
    sramecc: str  # "any" | "on" | "off" (| "unsupported")
    xnack: str

    def __init__(self, processor: str, sramecc: str = "any", xnack: str = "any") -> None:
        set_fields(self, processor, sramecc, xnack)

    def __str__(self) -> str:
        s = self.processor
        # LLVM prints features in alphabetical order: sramecc before xnack.
        for name, setting in (("sramecc", self.sramecc), ("xnack", self.xnack)):
            if setting in ("on", "off"):
                s += f":{name}{'+' if setting == 'on' else '-'}"
        return s

    @property
    def gfx90a_family(self) -> bool:
        """Unified VGPR/AGPR file, accum_offset, tg_split (gfx90a and gfx94x/gfx950)."""
        return self.processor in ("gfx90a", "gfx940", "gfx941", "gfx942", "gfx950", "gfx9-4-generic")

    @property
    def architected_flat_scratch(self) -> bool:
        return self.processor in ("gfx940", "gfx941", "gfx942", "gfx950", "gfx9-4-generic")

    @property
    def xnack_on_or_any(self) -> bool:
        return self.xnack in ("on", "any")

    def e_flags(self) -> int:
        mach, has_xnack, has_sramecc = MACHS[self.processor]
        flags = mach
        code = {"any": 0x1, "off": 0x2, "on": 0x3}
        if has_xnack:
            flags |= code[self.xnack] << 8
        if has_sramecc:
            flags |= code[self.sramecc] << 10
        if self.processor.endswith("-generic"):
            flags |= 1 << 24  # EF_AMDGPU_GENERIC_VERSION 1
        return flags

    def triple_target(self) -> str:
        """The amdhsa.target metadata string / .amdgcn_target text."""
        return f"amdgcn-amd-amdhsa--{self}"


def _without_triple(text: str) -> str:
    s = text.strip()
    return s[len("amdgcn-amd-amdhsa-"):].lstrip("-") if s.startswith("amdgcn-amd-amdhsa-") else s


def _processor(text: str) -> str:
    return _without_triple(text).split(":")[0]


def parse_target_id(text: str, loc: object | None = None) -> TargetId:
    """Parse ``gfx942``, ``gfx942:xnack-``, ``amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-``."""
    proc, *features = _without_triple(text).split(":")
    if proc not in MACHS:
        raise Diagnostic(f"unknown or unsupported target '{proc}' (supported: {', '.join(MACHS)})", loc)
    _, has_xnack, has_sramecc = MACHS[proc]
    settings = {"xnack": "any" if has_xnack else "unsupported", "sramecc": "any" if has_sramecc else "unsupported"}
    seen = set()
    for feat in features:
        name, sign = feat[:-1], feat[-1:]
        if name not in settings or sign not in "+-" or not sign or name in seen:
            raise Diagnostic(f"invalid target feature '{feat}' in target id '{text}'", loc)
        if settings[name] == "unsupported":
            raise Diagnostic(f"target '{proc}' does not support '{name}'", loc)
        seen.add(name)
        settings[name] = "on" if sign == "+" else "off"
    return TargetId(proc, settings["sramecc"], settings["xnack"])


def target_from_e_flags(e_flags: int, loc: object | None = None) -> TargetId:
    mach = e_flags & EF_AMDGPU_MACH
    proc = NAME_BY_MACH.get(mach)
    if proc is None:
        raise Diagnostic(f"unsupported AMDGPU machine 0x{mach:x} in e_flags 0x{e_flags:x} (gcnforge reads gfx9 code objects)", loc)
    xnack = _FEATURE_SETTING[(e_flags & EF_AMDGPU_FEATURE_XNACK_V4) >> 8] or "unsupported"
    sramecc = _FEATURE_SETTING[(e_flags & EF_AMDGPU_FEATURE_SRAMECC_V4) >> 10] or "unsupported"
    return TargetId(proc, sramecc, xnack)


def compatible(code_object_target: str, device_target: str) -> bool:
    """Whether a code object built for one target id runs on a device of another. Rule (LLVM
    AMDGPUUsage, "Target ID"): the processors must be equal, and each feature the code object
    fixes (``+``/``-``) must equal the device's setting; a feature left "any" runs either way."""
    if _processor(code_object_target) != _processor(device_target):
        return False  # a device of another processor (possibly one gcnforge does not know)
    co, dev = parse_target_id(code_object_target), parse_target_id(device_target)
    fixed = ("on", "off")
    return all(c == d or c not in fixed or d not in fixed
               for c, d in ((co.sramecc, dev.sramecc), (co.xnack, dev.xnack)))


def check_compatible(code_object_target: str, device_target: str, device_name: str) -> None:
    """Raise a Diagnostic naming both targets when the code object cannot run there."""
    if not compatible(code_object_target, device_target):
        raise Diagnostic(
            f"code object is for {code_object_target} but the {device_name} device is {device_target}",
            notes=("rebuild the kernel for the device's target, or choose another device",),
        )
