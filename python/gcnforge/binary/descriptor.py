"""The 64-byte AMDHSA kernel descriptor (code object v3+), as raw words and named fields.

Layout and bit positions: LLVM AMDGPUUsage "Kernel Descriptor" (tables "Kernel Descriptor
for GFX6-GFX12", "compute_pgm_rsrc1/2/3 for GFX6-GFX12", "Kernel Code Properties") and
llvm/Support/AMDHSAKernelDescriptor.h. Field names are those of the ``.amdhsa_*``
directives, so ``kd.system_vgpr_workitem_id`` reads ``.amdhsa_system_vgpr_workitem_id``.

    offset  size  field
    0       4     group_segment_fixed_size
    4       4     private_segment_fixed_size
    8       4     kernarg_size
    12      4     reserved
    16      8     kernel_code_entry_byte_offset (signed, from the descriptor to the entry)
    24      20    reserved
    44      4     compute_pgm_rsrc3
    48      4     compute_pgm_rsrc1
    52      4     compute_pgm_rsrc2
    56      2     kernel_code_properties
    58      2     kernarg_preload
    60      4     reserved
"""

from __future__ import annotations

import struct
from gcnforge.diagnostics import Diagnostic
from gcnforge.isa.target import target as _target
from gcnforge.record import FrozenRecord, set_fields

DESCRIPTOR_SIZE = 64
_LAYOUT = struct.Struct("<IIII q 20s III HH I")

# Granules LLVM uses for gfx90a/gfx940-class targets (AMDGPUBaseInfo.cpp:
# getVGPREncodingGranule = 8 with gfx90a insts, getSGPREncodingGranule = 8 on gfx9).
# the gfx9 granules of the descriptor's granulated counts (every gfx9 target: isa.target)
VGPR_ENCODING_GRANULE = _target().vgpr_encoding_granule
SGPR_ENCODING_GRANULE = _target().sgpr_encoding_granule
ADDRESSABLE_SGPRS = _target().sgprs  # gfx8/gfx9 (AMDGPUBaseInfo.cpp getAddressableNumSGPRs)
# gfx940+ have architected flat scratch: the assembler always adds VCC + FLAT_SCRATCH + XNACK
# (6 SGPRs) to .amdhsa_next_free_sgpr (AMDGPUBaseInfo.cpp getNumExtraSGPRs).
ARCHITECTED_FLAT_SCRATCH_EXTRA_SGPRS = 6


class BitField(FrozenRecord):  # FrozenRecords, not dataclasses: ``gcnforge as`` start-up time
    __slots__ = _fields = ("name", "word", "shift", "width")
    name: str  # directive name without ".amdhsa_" (or a descriptive name for fields without one)
    word: str  # "compute_pgm_rsrc1" | "compute_pgm_rsrc2" | "compute_pgm_rsrc3" | "kernel_code_properties" | "kernarg_preload"
    shift: int
    width: int

    def __init__(self, name: str, word: str, shift: int, width: int) -> None:
        set_fields(self, name, word, shift, width)

    @property
    def mask(self) -> int:
        return ((1 << self.width) - 1) << self.shift


# gfx9 (incl. gfx90a/gfx940/gfx942) bit fields. Names follow the .amdhsa_ directives where one
# exists; the others follow the AMDGPUUsage bit names in lower case.
BIT_FIELDS: tuple[BitField, ...] = (
    BitField("granulated_workitem_vgpr_count", "compute_pgm_rsrc1", 0, 6),
    BitField("granulated_wavefront_sgpr_count", "compute_pgm_rsrc1", 6, 4),
    BitField("priority", "compute_pgm_rsrc1", 10, 2),
    BitField("float_round_mode_32", "compute_pgm_rsrc1", 12, 2),
    BitField("float_round_mode_16_64", "compute_pgm_rsrc1", 14, 2),
    BitField("float_denorm_mode_32", "compute_pgm_rsrc1", 16, 2),
    BitField("float_denorm_mode_16_64", "compute_pgm_rsrc1", 18, 2),
    BitField("priv", "compute_pgm_rsrc1", 20, 1),
    BitField("dx10_clamp", "compute_pgm_rsrc1", 21, 1),
    BitField("debug_mode", "compute_pgm_rsrc1", 22, 1),
    BitField("ieee_mode", "compute_pgm_rsrc1", 23, 1),
    BitField("bulky", "compute_pgm_rsrc1", 24, 1),
    BitField("cdbg_user", "compute_pgm_rsrc1", 25, 1),
    BitField("fp16_overflow", "compute_pgm_rsrc1", 26, 1),
    BitField("enable_private_segment", "compute_pgm_rsrc2", 0, 1),
    BitField("user_sgpr_count", "compute_pgm_rsrc2", 1, 5),
    BitField("enable_trap_handler", "compute_pgm_rsrc2", 6, 1),
    BitField("system_sgpr_workgroup_id_x", "compute_pgm_rsrc2", 7, 1),
    BitField("system_sgpr_workgroup_id_y", "compute_pgm_rsrc2", 8, 1),
    BitField("system_sgpr_workgroup_id_z", "compute_pgm_rsrc2", 9, 1),
    BitField("system_sgpr_workgroup_info", "compute_pgm_rsrc2", 10, 1),
    BitField("system_vgpr_workitem_id", "compute_pgm_rsrc2", 11, 2),
    BitField("enable_exception_address_watch", "compute_pgm_rsrc2", 13, 1),
    BitField("enable_exception_memory", "compute_pgm_rsrc2", 14, 1),
    BitField("granulated_lds_size", "compute_pgm_rsrc2", 15, 9),
    BitField("exception_fp_ieee_invalid_op", "compute_pgm_rsrc2", 24, 1),
    BitField("exception_fp_denorm_src", "compute_pgm_rsrc2", 25, 1),
    BitField("exception_fp_ieee_div_zero", "compute_pgm_rsrc2", 26, 1),
    BitField("exception_fp_ieee_overflow", "compute_pgm_rsrc2", 27, 1),
    BitField("exception_fp_ieee_underflow", "compute_pgm_rsrc2", 28, 1),
    BitField("exception_fp_ieee_inexact", "compute_pgm_rsrc2", 29, 1),
    BitField("exception_int_div_zero", "compute_pgm_rsrc2", 30, 1),
    BitField("accum_offset_granules", "compute_pgm_rsrc3", 0, 6),  # accum_offset / 4 - 1
    BitField("tg_split", "compute_pgm_rsrc3", 16, 1),
    BitField("user_sgpr_private_segment_buffer", "kernel_code_properties", 0, 1),
    BitField("user_sgpr_dispatch_ptr", "kernel_code_properties", 1, 1),
    BitField("user_sgpr_queue_ptr", "kernel_code_properties", 2, 1),
    BitField("user_sgpr_kernarg_segment_ptr", "kernel_code_properties", 3, 1),
    BitField("user_sgpr_dispatch_id", "kernel_code_properties", 4, 1),
    BitField("user_sgpr_flat_scratch_init", "kernel_code_properties", 5, 1),
    BitField("user_sgpr_private_segment_size", "kernel_code_properties", 6, 1),
    BitField("wavefront_size32", "kernel_code_properties", 10, 1),
    BitField("uses_dynamic_stack", "kernel_code_properties", 11, 1),
    BitField("user_sgpr_kernarg_preload_length", "kernarg_preload", 0, 7),
    BitField("user_sgpr_kernarg_preload_offset", "kernarg_preload", 7, 9),
)
FIELD_BY_NAME = {f.name: f for f in BIT_FIELDS}

# Bits no gfx9 field owns (must be zero in a well-formed gfx9 descriptor).
RESERVED_MASKS = {
    "compute_pgm_rsrc1": 0xFFFFFFFF & ~sum(f.mask for f in BIT_FIELDS if f.word == "compute_pgm_rsrc1"),
    "compute_pgm_rsrc2": 0xFFFFFFFF & ~sum(f.mask for f in BIT_FIELDS if f.word == "compute_pgm_rsrc2"),
    "compute_pgm_rsrc3": 0xFFFFFFFF & ~sum(f.mask for f in BIT_FIELDS if f.word == "compute_pgm_rsrc3"),
    "kernel_code_properties": 0xFFFF & ~sum(f.mask for f in BIT_FIELDS if f.word == "kernel_code_properties"),
}


class KernelDescriptor(FrozenRecord):
    """The descriptor's words. Named bit fields read as attributes (``kd.ieee_mode``)."""

    __slots__ = _fields = ("group_segment_fixed_size", "private_segment_fixed_size", "kernarg_size",
                           "kernel_code_entry_byte_offset", "compute_pgm_rsrc1", "compute_pgm_rsrc2",
                           "compute_pgm_rsrc3", "kernel_code_properties", "kernarg_preload", "reserved0", "reserved1",
                           "reserved2")
    group_segment_fixed_size: int
    private_segment_fixed_size: int
    kernarg_size: int
    kernel_code_entry_byte_offset: int
    compute_pgm_rsrc1: int
    compute_pgm_rsrc2: int
    compute_pgm_rsrc3: int
    kernel_code_properties: int
    kernarg_preload: int
    reserved0: int  # bytes 12..15
    reserved1: bytes  # bytes 24..43
    reserved2: int  # bytes 60..63

    def __init__(self, group_segment_fixed_size: int = 0, private_segment_fixed_size: int = 0, kernarg_size: int = 0,
                 kernel_code_entry_byte_offset: int = 0, compute_pgm_rsrc1: int = 0, compute_pgm_rsrc2: int = 0,
                 compute_pgm_rsrc3: int = 0, kernel_code_properties: int = 0, kernarg_preload: int = 0,
                 reserved0: int = 0, reserved1: bytes = bytes(20), reserved2: int = 0) -> None:
        for name, value in zip(self._fields, (
                group_segment_fixed_size, private_segment_fixed_size, kernarg_size, kernel_code_entry_byte_offset,
                compute_pgm_rsrc1, compute_pgm_rsrc2, compute_pgm_rsrc3, kernel_code_properties, kernarg_preload,
                reserved0, reserved1, reserved2)):
            object.__setattr__(self, name, value)

    def __getattr__(self, name: str) -> int:
        f = FIELD_BY_NAME.get(name)
        if f is None:
            raise AttributeError(name)
        return (getattr(self, f.word) >> f.shift) & ((1 << f.width) - 1)

    def with_fields(self, **values: int) -> KernelDescriptor:
        """A copy with named bit fields (or whole words) replaced."""
        words = {}
        for name, value in values.items():
            f = FIELD_BY_NAME.get(name)
            if f is None:
                words[name] = value
                continue
            word = words.get(f.word, getattr(self, f.word))
            words[f.word] = (word & ~f.mask) | ((value << f.shift) & f.mask)
        return self.replace(**words)

    # Derived values in the units of the directives.
    @property
    def next_free_vgpr(self) -> int:
        """VGPRs (arch + AGPR, unified file) the descriptor allocates: what objdump prints."""
        return (self.granulated_workitem_vgpr_count + 1) * VGPR_ENCODING_GRANULE

    @property
    def next_free_sgpr(self) -> int:
        """SGPRs allocated, including VCC/flat-scratch/XNACK extras (objdump prints this with reserve_* 0)."""
        return (self.granulated_wavefront_sgpr_count + 1) * SGPR_ENCODING_GRANULE

    @property
    def accum_offset(self) -> int:
        return (self.accum_offset_granules + 1) * 4

    def to_bytes(self) -> bytes:
        return _LAYOUT.pack(
            self.group_segment_fixed_size,
            self.private_segment_fixed_size,
            self.kernarg_size,
            self.reserved0,
            self.kernel_code_entry_byte_offset,
            self.reserved1,
            self.compute_pgm_rsrc3,
            self.compute_pgm_rsrc1,
            self.compute_pgm_rsrc2,
            self.kernel_code_properties,
            self.kernarg_preload,
            self.reserved2,
        )

    @classmethod
    def from_bytes(cls, data: bytes, where: object | None = None) -> KernelDescriptor:
        if len(data) != DESCRIPTOR_SIZE:
            raise Diagnostic(f"kernel descriptor must be {DESCRIPTOR_SIZE} bytes, got {len(data)}", where)
        (g, p, k, r0, off, r1, rsrc3, rsrc1, rsrc2, props, preload, r2) = _LAYOUT.unpack(data)
        return cls(g, p, k, off, rsrc1, rsrc2, rsrc3, props, preload, r0, r1, r2)

    def problems(self) -> list[str]:
        """What a gfx9 loader would reject or what LLVM never emits (empty when well-formed)."""
        out = []
        if self.reserved0 or any(self.reserved1) or self.reserved2:
            out.append("reserved descriptor bytes are not zero")
        for word, mask in RESERVED_MASKS.items():
            if getattr(self, word) & mask:
                out.append(f"reserved bits 0x{getattr(self, word) & mask:x} set in {word}")
        if self.priority:
            out.append("compute_pgm_rsrc1.priority must be 0")
        return out

    def directives(self, gfx90a: bool = True, reassemble: bool = False) -> dict[str, int]:
        """The descriptor as ``.amdhsa_*`` directive values, in llvm-objdump's order.

        By default GPR counts come back as allocated (granule-rounded, extras included), with
        ``reserve_vcc``/``reserve_xnack_mask`` 0, exactly as llvm-objdump prints them. That text
        does not reassemble to the same descriptor on gfx940+ (the assembler always adds the 6
        architected-flat-scratch SGPRs and rejects a reserve_xnack_mask that disagrees with the
        target id), so ``reassemble=True`` instead gives next_free_sgpr minus those 6, no
        reserve_* lines, and an explicit user_sgpr_count.
        """
        d: dict[str, int] = {
            "group_segment_fixed_size": self.group_segment_fixed_size,
            "private_segment_fixed_size": self.private_segment_fixed_size,
            "kernarg_size": self.kernarg_size,
        }
        if gfx90a:
            d["accum_offset"] = self.accum_offset
            d["tg_split"] = self.tg_split
        d["next_free_vgpr"] = self.next_free_vgpr
        if reassemble:
            d["next_free_sgpr"] = min(max(0, self.next_free_sgpr - ARCHITECTED_FLAT_SCRATCH_EXTRA_SGPRS), ADDRESSABLE_SGPRS)
            d["user_sgpr_count"] = self.user_sgpr_count
        else:
            d["reserve_vcc"] = 0
            d["reserve_xnack_mask"] = 0
            d["next_free_sgpr"] = self.next_free_sgpr
        for name in (
            "float_round_mode_32", "float_round_mode_16_64", "float_denorm_mode_32",
            "float_denorm_mode_16_64", "dx10_clamp", "ieee_mode", "fp16_overflow",
            "enable_private_segment", "system_sgpr_workgroup_id_x", "system_sgpr_workgroup_id_y",
            "system_sgpr_workgroup_id_z", "system_sgpr_workgroup_info", "system_vgpr_workitem_id",
            "exception_fp_ieee_invalid_op", "exception_fp_denorm_src", "exception_fp_ieee_div_zero",
            "exception_fp_ieee_overflow", "exception_fp_ieee_underflow", "exception_fp_ieee_inexact",
            "exception_int_div_zero", "user_sgpr_dispatch_ptr", "user_sgpr_queue_ptr",
            "user_sgpr_kernarg_segment_ptr", "user_sgpr_dispatch_id",
            "user_sgpr_private_segment_size", "uses_dynamic_stack",
        ):
            d[name] = getattr(self, name)
        # llvm-objdump prints each kernarg preload field last and only when non-zero.
        if self.user_sgpr_kernarg_preload_length:
            d["user_sgpr_kernarg_preload_length"] = self.user_sgpr_kernarg_preload_length
        if self.user_sgpr_kernarg_preload_offset:
            d["user_sgpr_kernarg_preload_offset"] = self.user_sgpr_kernarg_preload_offset
        return d

    def all_fields(self) -> dict[str, int]:
        """Every named bit field and whole word (for ``gcnforge info``)."""
        out = {n: getattr(self, n) for n in self._fields if not n.startswith("reserved")}
        out.update({f.name: getattr(self, f.name) for f in BIT_FIELDS})
        return out


# The order in which clang 22 (AMDGPUTargetAsmStreamer) prints a gfx942 block; every directive
# is written, defaults included.
CLANG_ORDER = (
    "group_segment_fixed_size", "private_segment_fixed_size", "kernarg_size", "user_sgpr_count",
    "user_sgpr_dispatch_ptr", "user_sgpr_queue_ptr", "user_sgpr_kernarg_segment_ptr", "user_sgpr_dispatch_id",
    "user_sgpr_kernarg_preload_length", "user_sgpr_kernarg_preload_offset", "user_sgpr_private_segment_size",
    "uses_dynamic_stack", "enable_private_segment", "system_sgpr_workgroup_id_x", "system_sgpr_workgroup_id_y",
    "system_sgpr_workgroup_id_z", "system_sgpr_workgroup_info", "system_vgpr_workitem_id", "next_free_vgpr",
    "next_free_sgpr", "accum_offset", "reserve_vcc", "float_round_mode_32", "float_round_mode_16_64",
    "float_denorm_mode_32", "float_denorm_mode_16_64", "dx10_clamp", "ieee_mode", "fp16_overflow", "tg_split",
    "exception_fp_ieee_invalid_op", "exception_fp_denorm_src", "exception_fp_ieee_div_zero",
    "exception_fp_ieee_overflow", "exception_fp_ieee_underflow", "exception_fp_ieee_inexact",
    "exception_int_div_zero",
)


def format_directives(name: str, kd: KernelDescriptor, gfx90a: bool = True, reassemble: bool = True,
                      style: str = "objdump") -> str:
    """An ``.amdhsa_kernel`` block for ``kd``.

    ``style="objdump"``: llvm-objdump's order and fields (with ``reassemble`` it assembles back
    to ``kd`` on gfx942); ``style="clang"``: every directive in the order clang -S writes them,
    which also assembles back to ``kd`` (gfx940-class targets)."""
    lines = [f".amdhsa_kernel {name}"]
    if style == "clang":
        d = kd.directives(gfx90a, reassemble=True)
        d.update(reserve_vcc=1, user_sgpr_kernarg_preload_length=kd.user_sgpr_kernarg_preload_length,
                 user_sgpr_kernarg_preload_offset=kd.user_sgpr_kernarg_preload_offset)
        lines += [f"\t.amdhsa_{k} {d[k]}" for k in CLANG_ORDER if k in d]
    else:
        lines += [f"\t.amdhsa_{k} {v}" for k, v in kd.directives(gfx90a, reassemble).items()]
    lines.append(".end_amdhsa_kernel")
    return "\n".join(lines) + "\n"
