"""What LLVM 22's AMDGPU HSA metadata verifier (AMDGPUMetadataVerifier.cpp, V3+) accepts,
as a schema: required keys, scalar types, enumerations, array lengths. Unknown keys are
allowed, as in LLVM. Like its non-strict mode, a string where a number or boolean is
expected is re-typed from its text (a ``!str`` tagged ``'8'`` becomes 8)."""

from __future__ import annotations

from gcnforge.diagnostics import Diagnostic, SourceLoc

INT, STR, BOOL = "integer", "string", "boolean"

VALUE_KINDS = frozenset("""by_value global_buffer dynamic_shared_pointer sampler image pipe queue
hidden_block_count_x hidden_block_count_y hidden_block_count_z hidden_group_size_x hidden_group_size_y
hidden_group_size_z hidden_remainder_x hidden_remainder_y hidden_remainder_z hidden_global_offset_x
hidden_global_offset_y hidden_global_offset_z hidden_grid_dims hidden_none hidden_printf_buffer
hidden_hostcall_buffer hidden_heap_v1 hidden_default_queue hidden_completion_action hidden_multigrid_sync_arg
hidden_dynamic_lds_size hidden_private_base hidden_shared_base hidden_queue_ptr""".split())
ADDRESS_SPACES = frozenset(("private", "global", "constant", "local", "generic", "region"))
ACCESS = frozenset(("read_only", "write_only", "read_write"))
# How clang 22 spells an element type in an argument's ``.type_name`` (OpenCL C names;
# measured: `clang -cl-std=CL2.0 -target amdgcn-amd-amdhsa -mcpu=gfx942 -nogpulib -O2` on
# kernels taking `__global float*`, `float`, `int`, `uchar`, `__bf16`, ... writes `'float*'`,
# `float`, `int`, `uchar`, `__bf16`; a pointer's is its pointee's followed by `*`). Keys are the
# dialect's `#amdgcn.arg` type names; gcnforge writes these, and the runtime reads them back.
TYPE_NAMES = {"i8": "char", "u8": "uchar", "i16": "short", "u16": "ushort", "f16": "half", "bf16": "__bf16",
              "i32": "int", "u32": "uint", "f32": "float", "i64": "long", "u64": "ulong", "f64": "double"}
LANGUAGES = frozenset(("OpenCL C", "OpenCL C++", "HCC", "HIP", "OpenMP", "Assembler"))


def arr(item, length: int | None = None) -> tuple:
    return ("array", item, length)


# key -> (required, type or array spec or nested schema name, allowed values)
ARG = {
    ".name": (False, STR, None), ".type_name": (False, STR, None), ".size": (True, INT, None),
    ".offset": (True, INT, None), ".value_kind": (True, STR, VALUE_KINDS), ".pointee_align": (False, INT, None),
    ".address_space": (False, STR, ADDRESS_SPACES), ".access": (False, STR, ACCESS),
    ".actual_access": (False, STR, ACCESS), ".is_const": (False, BOOL, None), ".is_restrict": (False, BOOL, None),
    ".is_volatile": (False, BOOL, None), ".is_pipe": (False, BOOL, None),
}
KERNEL = {
    ".name": (True, STR, None), ".symbol": (True, STR, None), ".language": (False, STR, LANGUAGES),
    ".language_version": (False, arr(INT, 2), None), ".args": (False, arr(ARG), None),
    ".reqd_workgroup_size": (False, arr(INT, 3), None), ".workgroup_size_hint": (False, arr(INT, 3), None),
    ".vec_type_hint": (False, STR, None), ".device_enqueue_symbol": (False, STR, None),
    ".kernarg_segment_size": (True, INT, None), ".group_segment_fixed_size": (True, INT, None),
    ".private_segment_fixed_size": (True, INT, None), ".uses_dynamic_stack": (False, BOOL, None),
    ".workgroup_processor_mode": (False, INT, None), ".kernarg_segment_align": (True, INT, None),
    ".wavefront_size": (True, INT, None), ".sgpr_count": (True, INT, None), ".vgpr_count": (True, INT, None),
    ".max_flat_workgroup_size": (True, INT, None), ".sgpr_spill_count": (False, INT, None),
    ".vgpr_spill_count": (False, INT, None), ".uniform_work_group_size": (False, INT, None),
    ".cluster_dims": (False, arr(INT, 3), None),
}
# llvm-mc 22 does not check amdhsa.globals (measured: `amdhsa.globals: 5` is accepted).
ROOT = {
    "amdhsa.version": (True, arr(INT, 2), None), "amdhsa.printf": (False, arr(STR), None),
    "amdhsa.kernels": (True, arr(KERNEL), None),
}
_PY = {INT: int, STR: str, BOOL: bool}


def verify_metadata(md: dict, loc: SourceLoc) -> None:
    """Raise a Diagnostic naming the first thing LLVM's verifier would reject (retypes in place)."""
    _map(md, ROOT, "metadata", loc)


def _bad(where: str, msg: str, loc: SourceLoc) -> Diagnostic:
    return Diagnostic(f"invalid HSA metadata: {where}: {msg}", loc)


def _map(node, schema: dict, where: str, loc: SourceLoc) -> None:
    if not isinstance(node, dict):
        raise _bad(where, "expected a map", loc)
    for key, (required, spec, allowed) in schema.items():
        if key not in node:
            if required:
                raise _bad(where, f"required key '{key}' is missing", loc)
            continue
        node[key] = _value(node[key], spec, allowed, f"{where} {key}", loc)


def _value(v, spec, allowed, where: str, loc: SourceLoc):
    if isinstance(spec, dict):
        _map(v, spec, where, loc)
        return v
    if isinstance(spec, tuple):
        _, item, length = spec
        if not isinstance(v, list):
            raise _bad(where, "expected an array", loc)
        if length is not None and len(v) != length:
            raise _bad(where, f"expected {length} elements, got {len(v)}", loc)
        label = (lambda i, x: f"{where}[{i}]" + (f" ({x['.name']})" if isinstance(x, dict) and
                                                 isinstance(x.get(".name"), str) else ""))
        return [_value(x, item, None, label(i, x), loc) for i, x in enumerate(v)]
    if isinstance(v, (dict, list)) or v is None:
        raise _bad(where, f"expected a {spec}", loc)
    if type(v) is not _PY[spec]:
        if not isinstance(v, str):
            raise _bad(where, f"expected a {spec}, got {v!r}", loc)
        from gcnforge.binary.metadata import scalar_value  # non-strict: retype a string by its text

        retyped = scalar_value(v)
        if type(retyped) is not _PY[spec]:
            raise _bad(where, f"expected a {spec}, got {v!r}", loc)
        v = retyped
    if allowed is not None and v not in allowed:
        raise _bad(where, f"'{v}' is not one of: {', '.join(sorted(allowed))}", loc)
    return v
