"""``gcnforge info FILE.hsaco``: what a code object holds -- target, code object version,
kernels with their decoded kernel descriptors (``.amdhsa_*`` fields) and metadata summary.

    gcnforge info vadd.hsaco
    gcnforge info vadd.hsaco --kernel vadd --metadata     # also the full metadata YAML
"""

from __future__ import annotations

from gcnforge.diagnostics import Diagnostic


def register(subparsers) -> None:
    p = subparsers.add_parser("info", help="describe a code object: target, kernels, descriptors, metadata",
                              description=__doc__.split("\n\n")[0])
    p.add_argument("code_object", help="code object (.hsaco / .co)")
    p.add_argument("--kernel", default=None, help="only this kernel")
    p.add_argument("--metadata", action="store_true", help="print the whole metadata map as YAML")
    p.add_argument("--target", default="gfx942", help="which entry of an offload bundle (HIP fat binary) to read")
    p.set_defaults(func=run)


def run(args) -> int:
    from gcnforge.binary import read_code_object
    from gcnforge.binary.descriptor import format_directives
    from gcnforge.binary.metadata import format_metadata_yaml
    from gcnforge.binary.target_id import parse_target_id

    co = read_code_object(args.code_object, target=args.target)
    kernels = co.kernels
    if args.kernel is not None:
        kernels = {args.kernel: co.kernel(args.kernel)}
    gfx90a = parse_target_id(co.target).gfx90a_family
    out = [
        f"file: {args.code_object}",
        f"target: {co.target}",
        f"code object version: {co.code_object_version or 'unknown'}",
        f"e_flags: 0x{co.e_flags:x}",
        f".text: {len(co.text)} bytes at 0x{co.text_address:x}",
        f"kernels: {len(co.kernels)}",
    ]
    for name, k in kernels.items():
        kd = k.descriptor
        md = k.metadata
        out.append("")
        out.append(f"kernel {name}: entry 0x{k.entry:x} (.text+0x{k.code_offset:x}), {len(k.code)} bytes of code, "
                   f"descriptor at 0x{k.descriptor_address:x}")
        if md:
            summary = [f"{key[1:]}={md[key]}" for key in (
                ".kernarg_segment_size", ".kernarg_segment_align", ".group_segment_fixed_size",
                ".private_segment_fixed_size", ".sgpr_count", ".vgpr_count", ".agpr_count", ".wavefront_size",
                ".max_flat_workgroup_size", ".reqd_workgroup_size", ".sgpr_spill_count", ".vgpr_spill_count",
                ".uses_dynamic_stack") if key in md]
            out.append("  metadata: " + ", ".join(summary))
            for i, a in enumerate(md.get(".args", [])):
                if not isinstance(a, dict):
                    continue
                extra = " ".join(f"{key[1:]}={a[key]}" for key in (".address_space", ".access", ".type_name", ".name")
                                 if key in a)
                out.append(f"    arg {i}: offset {a.get('.offset')} size {a.get('.size')} "
                           f"{a.get('.value_kind')} {extra}".rstrip())
        out.append(f"  compute_pgm_rsrc1 0x{kd.compute_pgm_rsrc1:08x}  compute_pgm_rsrc2 0x{kd.compute_pgm_rsrc2:08x}  "
                   f"compute_pgm_rsrc3 0x{kd.compute_pgm_rsrc3:08x}  kernel_code_properties 0x{kd.kernel_code_properties:04x}")
        for problem in kd.problems():
            out.append(f"  warning: {problem}")
        if k.entry % 256:  # the hardware fetches kernels from 256-byte aligned entry points
            out.append(f"  warning: kernel entry 0x{k.entry:x} is not 256-byte aligned")
        out.extend("  " + line for line in format_directives(name, kd, gfx90a, reassemble=False).splitlines())
    if args.metadata:
        if not co.metadata:
            raise Diagnostic("code object has no AMDGPU metadata note", args.code_object)
        out.append("")
        out.append(format_metadata_yaml(co.metadata).rstrip())
    print("\n".join(out))
    return 0
