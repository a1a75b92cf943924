"""DWARF 5 line tables (issue 24 item 5): the built-in assembler turns ``.file``/``.loc`` into
``.debug_line`` (+ a compile unit), LLVM 22 reads it, and its rows equal those llvm-mc +
ld.lld write for the same ``.s``; every example's code object names its source file; the
emulator's sanitizer names the author's line of a planted out-of-bounds store."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

from gcnforge.binary import assemble
from gcnforge.builder import Arg, Module
from gcnforge.diagnostics import Diagnostic
from gcnforge.testing import require_llvm

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(p for p in (ROOT / "examples").glob("*.py"))


def _build(m: Module, toolchain: str = "builtin") -> bytes:
    from gcnforge.passes import pipeline
    from gcnforge.translate import to_code_object

    pipeline.run(m.top, pipeline.parse(pipeline.DEFAULT))
    return to_code_object(m.top, toolchain=toolchain)


def _kernel(line_of: dict) -> Module:
    import inspect

    m = Module("lt")
    with m.kernel("lt", [Arg.ptr("y", access="write_only")], workgroup_size=(64, 1, 1)) as k:
        (y,) = k.args()
        off = k.v_lshlrev_b32(2, k.thread_id("x")); line_of["shift"] = inspect.currentframe().f_lineno  # noqa: E702
        k.global_store_dword(off, k.v_mov_b32(7), y, offset=256); line_of["store"] = inspect.currentframe().f_lineno  # noqa: E702
    return m


def _rows(tool: str, path: Path) -> list[str]:
    out = subprocess.run([tool, "--debug-line", str(path)], capture_output=True, text=True, check=True).stdout
    return [ln for ln in out.splitlines() if ln.startswith("0x")]


def test_builtin_rows_equal_llvm_mc_and_ld_lld(tmp_path):
    tools = require_llvm("llvm-dwarfdump", "llvm-mc", "ld.lld")
    lines: dict = {}
    built = tmp_path / "b.hsaco"
    built.write_bytes(_build(_kernel(lines)))
    ref = tmp_path / "l.hsaco"
    ref.write_bytes(_build(_kernel({}), toolchain="llvm"))
    rows = _rows(tools["llvm-dwarfdump"], built)
    assert rows == _rows(tools["llvm-dwarfdump"], ref)
    assert any(re.match(rf"0x[0-9a-f]+\s+{lines['store']}\s+9\s", r) for r in rows), rows
    dump = subprocess.run([tools["llvm-dwarfdump"], "--debug-line", str(built)], capture_output=True, text=True).stdout
    assert f'"{Path(__file__).name}"' in dump and f'"{Path(__file__).parent}"' in dump

    # the compile unit: the built-in assembler's equals the one written as directives for llvm-mc
    def unit(p):
        out = subprocess.run([tools["llvm-dwarfdump"], "--debug-info", str(p)], capture_output=True, text=True,
                             check=True).stdout
        return out.split(".debug_info contents:")[1]
    assert unit(built) == unit(ref) and "DW_AT_producer\t(\"gcnforge\")" in unit(built)


@pytest.mark.parametrize("toolchain", ["builtin", "llvm"])
def test_objdump_line_numbers_name_the_author_line(tmp_path, toolchain):
    tools = require_llvm("llvm-objdump", "llvm-mc", "ld.lld")
    lines: dict = {}
    p = tmp_path / "k.hsaco"
    p.write_bytes(_build(_kernel(lines), toolchain))
    out = subprocess.run([tools["llvm-objdump"], "-d", "--line-numbers", str(p)], capture_output=True, text=True,
                         check=True).stdout
    store = out.index("global_store_dword")
    assert out.rindex(f"; {__file__}:{lines['store']}", 0, store) > out.rindex(f"; {__file__}:{lines['shift']}", 0, store)


@pytest.mark.parametrize("example", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_every_example_names_its_source_file(example, tmp_path):
    tools = require_llvm("llvm-dwarfdump")
    from gcnforge.cli.cmd_compile import compile_file
    from gcnforge.passes import pipeline

    co = tmp_path / "x.hsaco"
    co.write_bytes(compile_file(example, pipeline.DEFAULT, None, "builtin", False))
    out = subprocess.run([tools["llvm-dwarfdump"], "--debug-line", str(co)], capture_output=True, text=True,
                         check=True).stdout
    names = set(re.findall(r'name: "([^"]+)"', out))
    # the example's own file, or the example module it builds its kernel with (gemm_fp8 -> gemm_lds)
    own = {example.name} | {f"{m}.py" for m in re.findall(r"^(?:from|import) (\w+)", example.read_text(), re.M)
                            if (example.parent / f"{m}.py").exists()}
    assert names and names <= own, (names, own)
    assert f'include_directories[  0] = "{example.parent}"' in out
    assert _rows(tools["llvm-dwarfdump"], co)


def test_sanitizer_names_the_author_line_of_an_out_of_bounds_store():
    import gcnforge

    lines: dict = {}
    kern = gcnforge.load(_build(_kernel(lines)), device="emulator")["lt"]
    with pytest.raises(Diagnostic) as e:
        kern(np.zeros(64, np.float32), grid=(1, 1, 1), block=(64, 1, 1), device="emulator", sanitize=True)
    msg = str(e.value)
    assert msg.startswith(f"{__file__}:{lines['store']}:9: lt: pc=0x"), msg
    assert "outside the 256-byte allocation" in msg


def test_loc_directives_errors_and_the_elf_file_form():
    text = "\t.text\nk:\n\t.loc\t3 1 1\n\ts_endpgm\n"
    with pytest.raises(Diagnostic, match="unassigned file number in '.loc' directive"):
        assemble(text)  # (llvm-mc's words; the compiled fast path checks a '.loc' the first time it is seen)
    plain = assemble('\t.file\t"x.cl"\n\t.text\nk:\n\ts_endpgm\n')  # the ELF file symbol: no table
    assert b".debug_line" not in plain
    one = assemble('\t.file\t1 "/d" "x.cl"\n\t.text\nk:\n\t.loc\t1 4 2\n\ts_nop 0\n\t.loc\t1 4 2\n\ts_endpgm\n')
    assert b".debug_line" in one and b"x.cl\0" in one


def test_a_fault_without_the_sanitizer_names_the_author_line():
    """A store to an address no buffer maps stops the emulated kernel (sanitizer off): the
    error leads with the line and column of the store's call."""
    import inspect

    import gcnforge

    m = Module("f")
    with m.kernel("f", [Arg.ptr("y", access="write_only")], workgroup_size=(64, 1, 1)) as k:
        k.args()
        far = k.concat(k.s_mov_b32(0), k.s_mov_b32(0x7000))  # 0x7000_0000_0000: unmapped
        k.global_store_dword(k.v_mov_b32(0), k.v_mov_b32(1), far); line = inspect.currentframe().f_lineno  # noqa: E702
    kern = gcnforge.load(_build(m), device="emulator")["f"]
    with pytest.raises(Diagnostic) as e:
        kern(np.zeros(64, np.float32), grid=(1, 1, 1), block=(64, 1, 1), device="emulator")
    assert str(e.value).startswith(f"{__file__}:{line}:9: f: pc=0x"), str(e.value)
