"""AMDGPU HSA metadata: the ``.amdgpu_metadata`` YAML block <-> the msgpack NT_AMDGPU_METADATA note.

LLVM parses the YAML into a msgpack::Document (MsgPackDocumentYAML.cpp): every scalar,
quoted or not, is typed by its text -- unsigned integer (auto radix: 0x, 0b, 0o, leading
0), then signed integer, then boolean (``parseBool``: true/yes/on/y ...), then float
(strtod syntax), else string. Maps are std::map, so keys come out sorted. The note is
name "AMDGPU", type NT_AMDGPU_METADATA (32), desc = the msgpack bytes, written with the
smallest encodings (the msgpack library does the same for ints and strings).
PyYAML does the YAML syntax; scalar typing is LLVM's, applied to the composed node tree.
PyYAML is imported only to read YAML: a compile hands its map over directly (issue 15).
"""

from __future__ import annotations

import re
import struct

import msgpack

from gcnforge.binary.metadata_schema import verify_metadata
from gcnforge.binary.target_id import NT_AMDGPU_METADATA
from gcnforge.diagnostics import Diagnostic, SourceLoc

# Measured with llvm-mc 22 (tests/binary/test_metadata.py): only "true"/"false" are booleans;
# floats are whatever strtod consumes whole (so "" -> 0.0, "+3" -> 3.0, "inf", "NaN", "0x1p3").
_BOOLS = {"true": True, "false": False}
_FLOAT = re.compile(
    r"\s*[-+]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][-+]?\d+)?"
    r"|[iI][nN][fF](?:[iI][nN][iI][tT][yY])?|[nN][aA][nN])?\Z"
)
MAX_DEPTH = 64


def _auto_radix_uint(s: str) -> int | None:
    """llvm::getAsUnsignedInteger(S, 0, N) (GetAutoSenseRadix), limited to uint64."""
    if not s:
        return None
    radix, digits = 10, s
    if s[:2] in ("0x", "0X"):
        radix, digits = 16, s[2:]
    elif s[:2] in ("0b", "0B"):
        radix, digits = 2, s[2:]
    elif s[:2] == "0o":  # case-sensitive in llvm::GetAutoSenseRadix
        radix, digits = 8, s[2:]
    elif s[0] == "0" and len(s) > 1 and s[1].isdigit():
        radix, digits = 8, s[1:]
    if not digits or not all(c in "0123456789abcdefABCDEF"[: radix if radix <= 10 else 22] for c in digits):
        return None
    v = int(digits, radix)
    return v if v < 1 << 64 else None


def scalar_value(text: str):
    """The msgpack value LLVM gives a YAML scalar's text."""
    u = _auto_radix_uint(text)
    if u is not None:
        return u
    if text.startswith("-"):
        u = _auto_radix_uint(text[1:])
        if u is not None and u <= 1 << 63:
            return -u
    if text in _BOOLS:
        return _BOOLS[text]
    if _FLOAT.match(text):
        body = text.strip()
        if not body.lstrip("+-") or body.lstrip("+-") in (".",):
            return 0.0 if not body else text
        if body.lstrip("+-")[:2] in ("0x", "0X"):
            return float.fromhex(body)
        return float(body)
    return text


def _convert(node, depth: int = 0):
    import yaml

    if depth > MAX_DEPTH:
        raise ValueError("metadata nested too deeply")
    if isinstance(node, yaml.ScalarNode):
        tag = node.tag if node.tag.startswith("!") else ""
        if tag:  # explicit tags LLVM's DocNode::fromString honours
            if tag == "!str":
                return node.value
            if tag == "!nil":
                return None
            v = scalar_value(node.value)
            want = {"!int": int, "!bool": bool, "!float": float}.get(tag)
            if want is None or type(v) is not want:
                raise ValueError(f"'{node.value}' is not a valid {tag} value")
            return v
        if node.value == "" and node.style is None:
            return []  # llvm-mc 22 writes an empty plain value as an empty array (measured)
        return scalar_value(node.value)
    if isinstance(node, yaml.SequenceNode):
        return [_convert(n, depth + 1) for n in node.value]
    if isinstance(node, yaml.MappingNode):
        out = {}
        for k, v in node.value:
            key = _convert(k, depth + 1)
            if isinstance(key, (list, dict)):
                raise ValueError("metadata map key must be a scalar")
            if key in out:
                raise ValueError(f"duplicate metadata key '{key}'")
            out[key] = _convert(v, depth + 1)
        return sort_maps(out)
    raise ValueError(f"unsupported YAML node {type(node).__name__}")


def _sort_key(k):
    # msgpack::DocNode ordering: by kind first (Int/UInt/Nil/Boolean/Float/String ...), then value.
    order = {bool: 3, int: 1, float: 4, str: 5, type(None): 2}
    return (order.get(type(k), 9), k if not isinstance(k, (type(None),)) else 0)


def sort_maps(obj):
    """Maps with keys in LLVM's (std::map) order, recursively."""
    if isinstance(obj, dict):
        return {k: sort_maps(obj[k]) for k in sorted(obj, key=_sort_key)}
    if isinstance(obj, list):
        return [sort_maps(v) for v in obj]
    return obj


def _scalars(node, out: list) -> list:
    """(start, end, style) of every scalar under ``node`` (character offsets)."""
    import yaml

    if isinstance(node, yaml.ScalarNode):
        out.append((node.start_mark.index, node.end_mark.index, node.style))
    elif isinstance(node, yaml.SequenceNode):
        for n in node.value:
            _scalars(n, out)
    elif isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            _scalars(k, out)
            _scalars(v, out)
    return out


_COMMENT = re.compile(r"^[ \t]*#", re.M)


def _no_byte_order_mark(text: str, node, loc: SourceLoc) -> None:
    """U+FEFF is no YAML ``nb-char`` (YAML 1.2, 5.2): LLVM's YAML scanner ends a plain or
    single-quoted scalar (or a comment after a value) there and then finds an empty one, so
    llvm-mc 22 refuses it anywhere but inside a double-quoted scalar or a whole-line comment
    ("Got empty plain scalar"); PyYAML takes it as a letter (and drops one at the start), which
    wrote it into the target string (tests/binary/test_llvm_mc_refusals.py)."""
    spans = _scalars(node, []) if node is not None else []
    for i, c in enumerate(text):
        if c != "\ufeff":
            continue
        inside = [st for a, b, st in spans if a <= i < b]
        if inside and inside[0] == '"':
            continue
        start = text.rfind("\n", 0, i) + 1
        if not inside and _COMMENT.search(text, start, i) is not None:
            continue  # (a '#' in a scalar would be inside its span)
        raise Diagnostic("invalid HSA metadata: U+FEFF (byte order mark) outside a double-quoted string",
                         SourceLoc(loc.file, loc.line + 1 + text.count("\n", 0, i), i - start + 1))


def parse_metadata_yaml(text: str, loc: SourceLoc) -> dict:
    """The YAML between ``.amdgpu_metadata`` and ``.end_amdgpu_metadata`` -> a map."""
    import yaml

    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        if "\ufeff" in text:
            _no_byte_order_mark(text, node, loc)
        md = {} if node is None else _convert(node)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark
        where = SourceLoc(loc.file, loc.line + 1 + (mark.line if mark else 0), (mark.column + 1) if mark else 1)
        raise Diagnostic(f"invalid HSA metadata: {e.problem or e}", where) from None
    except (yaml.YAMLError, ValueError, RecursionError) as e:
        raise Diagnostic(f"invalid HSA metadata: {e}", loc) from None
    if not isinstance(md, dict):
        raise Diagnostic("invalid HSA metadata: the document must be a map", loc)
    verify_metadata(md, loc)
    return md


_F32_MIN, _F32_MAX = 1.1754943508222875e-38, 3.4028234663852886e38


def _pack(obj, out: bytearray, depth: int = 0) -> None:
    """msgpack like llvm::msgpack::Writer: the library encodes scalars; floats whose magnitude
    is in float's normal range are written as float32 (Writer::write(double)), others float64."""
    if depth > MAX_DEPTH:
        raise ValueError("metadata nested too deeply")
    if isinstance(obj, float):
        a = abs(obj)
        if _F32_MIN <= a <= _F32_MAX:
            out += b"\xca" + struct.pack(">f", obj)
        else:
            out += b"\xcb" + struct.pack(">d", obj)
    elif isinstance(obj, dict):
        n = len(obj)
        out += bytes([0x80 | n]) if n < 16 else (b"\xde" + struct.pack(">H", n) if n < 1 << 16 else b"\xdf" + struct.pack(">I", n))
        for k, v in obj.items():
            _pack(k, out, depth + 1)
            _pack(v, out, depth + 1)
    elif isinstance(obj, list):
        n = len(obj)
        out += bytes([0x90 | n]) if n < 16 else (b"\xdc" + struct.pack(">H", n) if n < 1 << 16 else b"\xdd" + struct.pack(">I", n))
        for v in obj:
            _pack(v, out, depth + 1)
    else:
        out += msgpack.packb(obj, use_bin_type=True)


def pack_metadata(md: dict) -> bytes:
    out = bytearray()
    _pack(sort_maps(md), out)
    return bytes(out)


def note_bytes(name: bytes, ntype: int, desc: bytes) -> bytes:
    """One ELF note record with 4-byte padding of name and desc."""
    n = name + b"\0"
    pad = lambda b: b + bytes(-len(b) % 4)  # noqa: E731
    return struct.pack("<III", len(n), len(desc), ntype) + pad(n) + pad(desc)


def metadata_note(md: dict) -> bytes:
    return note_bytes(b"AMDGPU", NT_AMDGPU_METADATA, pack_metadata(md))


def format_metadata_yaml(md: dict) -> str:
    """The map as a ``.amdgpu_metadata`` YAML body (strings quoted when LLVM would retype them)."""
    def q(v):
        if isinstance(v, str) and scalar_value(v) != v:
            return "!str '" + v.replace("'", "''") + "'"  # would be retyped: tag it, as LLVM does
        if isinstance(v, str) and (not v or re.search(r"[:#*&!|>'\"%@`{}\[\],]|^[-?\s]|\s$", v)):
            return "'" + v.replace("'", "''") + "'"
        if isinstance(v, bool):
            return "true" if v else "false"
        if v is None:
            return "~"
        return str(v)

    lines: list[str] = ["---"]

    def emit(obj, indent: str) -> None:
        if isinstance(obj, dict):
            for k, v in obj.items():
                if isinstance(v, (dict, list)) and v:
                    lines.append(f"{indent}{q(k)}:")
                    emit(v, indent + "  ")
                else:
                    lines.append(f"{indent}{q(k)}: {q(v) if not isinstance(v, (dict, list)) else ('{}' if isinstance(v, dict) else '[]')}")
        else:
            for v in obj:
                if isinstance(v, dict) and v:
                    sub: list[str] = []
                    lines_before = len(lines)
                    emit(v, indent + "  ")
                    sub = lines[lines_before:]
                    del lines[lines_before:]
                    sub[0] = indent + "- " + sub[0][len(indent) + 2:]
                    lines.extend(sub)
                elif isinstance(v, list) and v:
                    lines.append(f"{indent}-")
                    emit(v, indent + "  ")
                else:
                    lines.append(f"{indent}- {q(v) if not isinstance(v, (dict, list)) else '[]'}")

    emit(md, "")
    lines.append("...")
    return "\n".join(lines) + "\n"
