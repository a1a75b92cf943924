"""Human-readable summary of a code object (``gcnforge info``; reusable by ``gcnforge dis``):
target, code object version, kernels with entry, metadata summary and arguments, the
descriptor words and its ``.amdhsa_*`` fields (llvm-objdump's text), warnings."""

from __future__ import annotations

from gcnforge.binary.descriptor import format_directives
from gcnforge.binary.metadata import format_metadata_yaml
from gcnforge.binary.model import CodeObject, KernelInfo
from gcnforge.binary.target_id import parse_target_id

_MD_KEYS = (".kernarg_segment_size", ".kernarg_segment_align", ".group_segment_fixed_size",
            ".private_segment_fixed_size", ".sgpr_count", ".vgpr_count", ".agpr_count", ".wavefront_size",
            ".max_flat_workgroup_size", ".reqd_workgroup_size", ".sgpr_spill_count", ".vgpr_spill_count",
            ".uses_dynamic_stack")


def describe_header(co: CodeObject, name: str = "") -> list[str]:
    out = [f"file: {name}"] if name else []
    return out + [
        f"target: {co.target}",
        f"code object version: {co.code_object_version or 'unknown'}",
        f"e_flags: 0x{co.e_flags:x}",
        f".text: {len(co.text)} bytes at 0x{co.text_address:x}",
        f"kernels: {len(co.kernels)}",
    ] + [f"warning: {p}" for p in co.problems]


def describe_kernel(co: CodeObject, k: KernelInfo) -> list[str]:
    kd, md = k.descriptor, k.metadata
    out = [f"kernel {k.name}: entry 0x{k.entry:x} (.text+0x{k.code_offset:x}), {len(k.code)} bytes of code, "
           f"descriptor at 0x{k.descriptor_address:x}"]
    if md:
        out.append("  metadata: " + ", ".join(f"{key[1:]}={md[key]}" for key in _MD_KEYS if key in md))
        args = md.get(".args", [])
        if not isinstance(args, list):  # a damaged note: say so, describe the rest
            out.append(f"  warning: metadata .args is {type(args).__name__} {args!r:.40}, not a list")
            args = []
        for i, a in enumerate(args):
            if not isinstance(a, dict):
                continue
            extra = " ".join(f"{key[1:]}={a[key]}" for key in (".address_space", ".access", ".type_name", ".name")
                             if key in a)
            out.append(f"    arg {i}: offset {a.get('.offset')} size {a.get('.size')} {a.get('.value_kind')} "
                       f"{extra}".rstrip())
    out.append(f"  compute_pgm_rsrc1 0x{kd.compute_pgm_rsrc1:08x}  compute_pgm_rsrc2 0x{kd.compute_pgm_rsrc2:08x}  "
               f"compute_pgm_rsrc3 0x{kd.compute_pgm_rsrc3:08x}  kernel_code_properties 0x{kd.kernel_code_properties:04x}")
    out += [f"  warning: {p}" for p in kd.problems()]
    if k.entry % 256:  # the hardware fetches kernels from 256-byte aligned entry points
        out.append(f"  warning: kernel entry 0x{k.entry:x} is not 256-byte aligned")
    gfx90a = parse_target_id(co.target).gfx90a_family
    out += ["  " + line for line in format_directives(k.name, kd, gfx90a, reassemble=False).splitlines()]
    return out


def describe(co: CodeObject, name: str = "", kernels: list[str] | None = None, metadata: bool = False) -> str:
    """The whole summary as text (``kernels`` limits it to those kernels)."""
    out = describe_header(co, name)
    for kname in kernels if kernels is not None else list(co.kernels):
        out.append("")
        out += describe_kernel(co, co.kernel(kname))
    if metadata and co.metadata:
        out += ["", format_metadata_yaml(co.metadata).rstrip()]
    return "\n".join(out) + "\n"
