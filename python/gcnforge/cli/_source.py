"""Reading a CLI's input file so that every way it can be unreadable becomes a
``Diagnostic`` naming the file (and, for bad UTF-8, the line and column of the first bad
byte) instead of a bare ``OSError``/``UnicodeDecodeError`` message or a traceback."""

from __future__ import annotations

import sys
from pathlib import Path

from gcnforge.diagnostics import Diagnostic, SourceLoc


def read_bytes(path: str) -> bytes:
    """The file's bytes ('-' is stdin); a missing file, a directory or an unreadable file is
    a ``Diagnostic`` located at the file."""
    if path == "-":
        return sys.stdin.buffer.read()
    try:
        return Path(path).read_bytes()
    except IsADirectoryError:
        raise Diagnostic("is a directory, not a file", path) from None
    except FileNotFoundError:
        raise Diagnostic("no such file", path) from None
    except OSError as e:
        raise Diagnostic(f"cannot read: {e.strerror or e}", path) from None


def decode_text(data: bytes, name: str) -> str:
    """UTF-8 text; a bad byte is reported at its line and column (1-based, in bytes)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise Diagnostic(f"invalid UTF-8 (byte 0x{data[e.start]:02x}); is this a text file?",
                         SourceLoc(name, line, col)) from None


def read_text(path: str) -> tuple[str, str]:
    """(text, display name) of a text input file ('-' is stdin)."""
    name = "<stdin>" if path == "-" else path
    return decode_text(read_bytes(path), name), name
