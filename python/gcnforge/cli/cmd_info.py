"""``gcnforge info FILE.hsaco``: what a code object holds -- target, code object version,
kernels with their decoded kernel descriptors (``.amdhsa_*`` fields) and metadata summary.

    gcnforge info vadd.hsaco
    gcnforge info vadd.hsaco --kernel vadd --metadata     # also the full metadata YAML
    gcnforge info fatbin.co --target gfx942               # one entry of a HIP offload bundle
"""

from __future__ import annotations

import sys

from gcnforge.diagnostics import Diagnostic


def register(subparsers) -> None:
    p = subparsers.add_parser("info", help="describe a code object: target, kernels, descriptors, metadata",
                              description=__doc__.split("\n\n")[0])
    p.add_argument("code_object", help="code object (.hsaco / .co)")
    p.add_argument("--kernel", default=None, help="only this kernel")
    p.add_argument("--metadata", action="store_true", help="print the whole metadata map as YAML")
    p.add_argument("--target", "--mcpu", "-mcpu", dest="target", default=None,
                   help="which entry of an offload bundle (HIP fat binary) to read (default: the only one, else gfx942's)")
    p.set_defaults(func=run)


def run(args) -> int:
    from gcnforge.binary import read_code_object
    from gcnforge.binary.describe import describe

    if args.target is None:
        try:  # a plain ELF names its target; so does a bundle with one amdgcn entry
            co = read_code_object(args.code_object, target=None)
        except Diagnostic:  # e.g. a bundle with several entries: gfx942's, as before gfx950 existed
            co = read_code_object(args.code_object, target="gfx942")
    else:
        co = read_code_object(args.code_object, target=args.target)
    if args.target and args.target.split(":")[0] != str(co.target).split(":")[0].rsplit("-", 1)[-1]:
        # a plain ELF has one target: a --target naming another is a mistake, not a no-op
        raise Diagnostic(f"--target {args.target}: the code object is for {co.target}", args.code_object)
    if args.metadata and not co.metadata:
        raise Diagnostic("code object has no AMDGPU metadata note", args.code_object)
    kernels = [co.kernel(args.kernel).name] if args.kernel is not None else None
    sys.stdout.write(describe(co, args.code_object, kernels, args.metadata))
    return 0
