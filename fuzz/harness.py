"""Mutation fuzzing of gcnforge's entry points, in process, on the repository's own corpus.

Inputs: the lit files (``test/**/*.mlir`` split at ``// -----``, ``test/**/*.s``) and code
objects the built-in assembler makes from the ``.s`` corpus. Mutators per kind: IR and
assembly text by tokens (drop, duplicate, swap, replace with extreme integers, types,
registers, SSA names, block labels, directives, quotes) and truncation; code objects by
bytes (flip, overwrite with boundary values, truncate, splice).

Targets: ``ir`` (parse + verify, each gcnforge pass alone, the default pipeline, assembly
text), ``asm`` (the listing assembler and the code-object assembler), ``obj`` (reader,
disassembly, ``info`` description, raise -> compile, emulator launch with a small instruction
budget), ``cli`` (the ``gcnforge`` / ``gcnforge-opt`` command lines with ``--target``
on mutated text and objects: no traceback, no error without a location), ``emu`` (mutations confined to ``.text`` and the kernel descriptors, so the ELF stays
readable: reader and emulator launch, with or without the sanitizer, 1-2 work-groups of 64-256),
``loop`` (generated ``amdgcn.loop`` kernels whose operands, yields and later uses name values
in and out of scope: parse + verify, loop scheduling and lowering, the default pipeline) and
``asmshape`` (generated ``.s``: doubled encoding suffixes, directive operands of the wrong
kind, white space and Unicode in the metadata YAML; the listing with its statement check and
the code-object assembler); both generators are in ``fuzz/shapes.py``.
Emulator launches get seeded random buffer contents (8 KiB per pointer argument: random bit
patterns, so NaN/Inf/denormal fp8/fp4 codes and wild indices reach the numerics) and small
random scalar arguments.

``--mcpu gfx950`` fuzzes the gfx950 paths instead: the corpus is the gfx950 lit IR, every other
lit IR chunk and ``.s`` file retargeted to gfx950, ``tests/emulator/gfx950_kernels.s`` (its
macros expanded), ``fuzz/seeds/gfx950_*.s`` (CDNA4 MFMAs and LDS DMA fed from the input buffer)
and the gfx950 builds of ``examples/gemm_mxfp.py`` and ``examples/gemm_mfma_f16.py`` (IR before
the pipeline, assembly, code object); everything is assembled and checked for gfx950.

A failure is an exception other than ``Diagnostic``, a hang, a ``Diagnostic`` without a ``line``
location for text input, or (``--objdump``) a code object produced that ``llvm-objdump`` rejects.
A hang is an input that uses more than ``--time-bound`` seconds of this process's CPU time
(``ITIMER_PROF``: on a loaded machine an input waiting for a core is not charged, so a slow but
finishing input is not reported) or, for an input that blocks without computing, runs past the
wall-clock backstop ``--wall-bound`` (default 30 x the CPU bound). Failures print with the
input that caused them (``--save DIR`` writes them as files to minimize into tests).

    python -m fuzz.harness --seed 0 --inputs 200 --targets ir,asm,obj
"""

from __future__ import annotations

import argparse
import random
import re
import signal
import sys
import time
import zlib
from collections import Counter
from pathlib import Path

from gcnforge.diagnostics import Diagnostic, SourceLoc

from fuzz import shapes

ROOT = Path(__file__).resolve().parents[1]
INTS = ["0", "-1", "1", "63", "64", "65", "255", "256", "2147483647", "2147483648", "-2147483649", "4294967296",
        "0x7fffffff", "0xffffffffffffffff", "99999999999999999999", "-0", "1e400", "0.5"]
IR_TOKENS = ["!amdgcn.vgpr", "!amdgcn.sgpr<[? + 2]>", "!amdgcn.vgpr<[254 : 258]>", "!amdgcn.agpr", "i32", "i64",
             "%v", "%0", "%missing", "^bb0", "^bb1", "^loop", "{", "}", "(", ")", "<", ">", "[", "]", ",", ":", "=",
             "\"", "amdgcn.end", "amdgcn.yield", "amdgcn.alloca", "sched = array<i64: 0, 1>", "dims [4, 4]",
             "align 3", "#amdgcn.target<gfx90a>", "\n"]
IR_TOKENS_GFX950 = ["#amdgcn.target<gfx950>", "#amdgcn.target<gfx942>", "v_mfma_scale_f32_16x16x128_f8f6f4",
                    "v_mfma_f32_32x32x64_f8f6f4", "v_smfmac_f32_16x16x64_f16", "ds_read_b64_tr_b8",
                    "ds_read_b96_tr_b6", "global_load_lds_dwordx4", "cbsz = 4", "blgp = 7", "abid = 3",
                    "!amdgcn.vgpr<[? + 8]>", "!amdgcn.vgpr<[? + 3]>", "lds_size = 163841 : i32"]
ASM_TOKENS = ["v0", "v255", "v[0:1]", "v[1:2]", "s[0:3]", "s101", "s102", "a0", "vcc", "exec", "m0", "off",
              "lit(1)", "1.5e-50", "lds_direct", "offset:4096", "glc", "sc0", "row_shl:1", ".set x, x+1",
              ".p2align 40", ".amdhsa_kernel k", ".end_amdhsa_kernel", ".amdhsa_next_free_vgpr", "(1<<70)",
              ".globl foo", ",", "\n", "\""]
ASM_TOKENS_GFX950 = ["v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], v[0:3], v20, v21",
                     "v_mfma_f32_32x32x64_f8f6f4", "v_smfmac_f32_16x16x64_f16", "v_mfma_ld_scale_b32 v20, v21",
                     "cbsz:4", "blgp:7", "cbsz:5", "abid:3", "op_sel:[1,1,0]", "op_sel_hi:[1,1,1]",
                     "ds_read_b64_tr_b4", "ds_read_b96_tr_b6", "global_load_lds_dwordx3", "v[4:9]", "v[4:11]",
                     "a[0:15]", ".amdhsa_group_segment_fixed_size 163841", "v_prng_b32", "v_permlane32_swap_b32"]
_TOKEN = re.compile(r"\s+|[A-Za-z_.%^#!$@][\w.$@]*|-?0[xX][0-9a-fA-F]+|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|.")
_LOCATED = re.compile(r"^\S*:\d+(:\d+)?: error: ", re.M)


class Hang(Exception):
    pass


WALL_FACTOR = 30  # the wall-clock backstop's default, x the CPU bound: room for a load of ~30 per core


def _cpu_spent(signum, frame):
    raise Hang("cpu")


def _wall_passed(signum, frame):
    raise Hang("wall")


def run_bounded(f, inp, bound: float, wall: float) -> tuple[str, str, bool]:
    """Runs ``f(inp)``: (kind, detail, whether it reached output). ``bound``: seconds of this
    process's CPU time (user + system, every thread) before the input counts as a hang;
    ``wall``: wall-clock seconds, the backstop for an input that blocks without computing."""
    kind, detail, reached = "ok", "", False
    cpu0, t0 = time.process_time(), time.perf_counter()
    signal.setitimer(signal.ITIMER_PROF, bound)
    signal.setitimer(signal.ITIMER_REAL, wall)
    try:
        reached = bool(f(inp))
    except Hang as e:
        kind = "hang"
        cpu, wall_s = time.process_time() - cpu0, time.perf_counter() - t0
        detail = (f"still running after {cpu:.1f} s of CPU time (bound {bound:g} s; {wall_s:.1f} s wall)"
                  if e.args == ("cpu",) else
                  f"no end after {wall_s:.1f} s wall (backstop {wall:g} s), {cpu:.1f} s of CPU time: blocked?")
    except Unlocated as e:
        kind, detail = "unlocated", str(e)
    except ObjdumpRejects as e:
        kind, detail = "objdump-rejects", str(e)
    except Exception as e:  # noqa: BLE001 - any other exception is the finding
        kind, detail = "crash", f"{type(e).__name__}: {e}"
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
    return kind, detail, reached


# -- corpus ----------------------------------------------------------------------------
CORPUS_GLOB = "*"  # --corpus: restrict the corpus files (e.g. 'interleave*')
MCPU = "gfx942"  # --mcpu: the processor the corpus is built, assembled and checked for


def ir_corpus() -> list[str]:
    out = []
    for p in sorted((ROOT / "test").rglob(CORPUS_GLOB + ".mlir")):
        out += [c for c in p.read_text().split("// -----") if "amdgcn" in c]
    if MCPU == "gfx950":
        out = [_retarget_ir(c) for c in out] + [text for text, _ in _gfx950_builds()]
    return out


def _retarget_ir(chunk: str) -> str:
    chunk = re.sub(r"#amdgcn\.target<gfx9\w*>", "#amdgcn.target<gfx950>", chunk)
    return re.sub(r"(amdgcn\.module @[\w.$]+)(?! #amdgcn\.target)", r"\1 #amdgcn.target<gfx950>", chunk)


def asm_corpus() -> list[str]:
    out = [p.read_text() for p in sorted((ROOT / "test").rglob(CORPUS_GLOB + ".s"))]
    if MCPU == "gfx950":
        out = [re.sub(r"--gfx9\w*", "--gfx950", t) for t in out]
        out.append(expand_macros((ROOT / "tests/emulator/gfx950_kernels.s").read_text()))
        out += [p.read_text() for p in sorted((ROOT / "fuzz/seeds").glob("gfx950_*.s"))]
        out += [asm for _, asm in _gfx950_builds()]
    return out


def _gfx950_builds() -> list[tuple[str, str]]:
    """(IR before the pipeline, assembly after it) of the repository's gfx950 examples."""
    import importlib.util

    from gcnforge.raising import print_module
    from gcnforge.passes import pipeline
    from gcnforge.translate import to_assembly

    out = []
    for name, kw in (("gemm_mxfp", {}), ("gemm_mfma_f16", {"target": "gfx950"})):
        spec = importlib.util.spec_from_file_location(f"_fuzz_{name}", ROOT / "examples" / f"{name}.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        m = mod.build(**kw)
        ir = print_module(m.top)
        pipeline.run(m.top, pipeline.parse(pipeline.DEFAULT))
        out.append((ir, to_assembly(m.top)))
    return out


def expand_macros(text: str) -> str:
    """GNU-as ``.macro NAME ARG[=DEFAULT], ...`` / ``.endm`` and ``.irp`` expansion, one level
    (the corpus' gfx950 kernels use them; the built-in assembler does not)."""
    macros: dict[str, tuple[list[tuple[str, str]], list[str]]] = {}
    out: list[str] = []
    lines = iter(text.splitlines())
    for line in lines:
        head = line.split()
        if head and head[0] == ".macro":
            params = [(a.split("=")[0], a.partition("=")[2]) for a in re.split(r"[\s,]+", line.split(None, 2)[2])
                      if a] if len(head) > 2 else []
            body = []
            for b in lines:
                if b.strip() == ".endm":
                    break
                body.append(b)
            macros[head[1]] = (params, body)
        elif head and head[0] == ".irp":  # .irp SYM, V1, V2, ... / .endr
            sym, *vals = [a.strip() for a in line.split(None, 1)[1].split(",")]
            body = []
            for b in lines:
                if b.strip() == ".endr":
                    break
                body.append(b)
            out += [b.replace("\\" + sym, v) for v in vals for b in body]
        elif head and head[0] in macros:
            params, body = macros[head[0]]
            args = [a.strip() for a in line.strip()[len(head[0]):].split(",")]
            vals = {p: (args[i] if i < len(args) and args[i] else d) for i, (p, d) in enumerate(params)}
            for b in body:
                for p, v in vals.items():
                    b = b.replace("\\" + p, v)
                out.append(b)
        else:
            out.append(line)
    return "\n".join(out) + "\n"


def obj_corpus(asm: list[str]) -> list[bytes]:
    from gcnforge.binary import assemble

    out = []
    for text in asm:
        if ".amdhsa_kernel" not in text:
            continue
        try:
            out.append(assemble(text, target=MCPU))
        except Diagnostic:
            continue
    return out


# -- mutators --------------------------------------------------------------------------
def mutate_text(text: str, rng: random.Random, pool: list[str]) -> str:
    toks = _TOKEN.findall(text)
    ints = [i for i, t in enumerate(toks) if re.fullmatch(r"-?(0[xX][0-9a-fA-F]+|\d+)", t)]
    if ints and rng.random() < 0.5:  # keeps the syntax: reaches verifiers and passes
        toks[rng.choice(ints)] = rng.choice(INTS + [str(rng.randint(-300, 300))])
        return "".join(toks)
    for _ in range(rng.randint(1, 3)):
        if not toks:
            break
        i = rng.randrange(len(toks))
        r = rng.random()
        if r < 0.2:
            del toks[i]
        elif r < 0.35:
            toks.insert(i, toks[rng.randrange(len(toks))])
        elif r < 0.6 and re.fullmatch(r"-?(0[xX])?[0-9a-fA-F]+", toks[i] or ""):
            toks[i] = rng.choice(INTS)
        elif r < 0.9:
            toks.insert(i, rng.choice(pool) + rng.choice(["", " "]))
        else:
            toks = toks[:i]
    return "".join(toks)


def mutate_bytes(data: bytes, rng: random.Random) -> bytes:
    b = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        if not b:
            break
        i = rng.randrange(len(b))
        r = rng.random()
        if r < 0.5:
            b[i] ^= 1 << rng.randrange(8)
        elif r < 0.8:
            v = rng.choice([0, 0xFF, 0x7F, 0x80])
            for k in range(rng.choice([1, 4, 8])):
                if i + k < len(b):
                    b[i + k] = v
        elif r < 0.9:
            b = b[:i]
        else:
            j = rng.randrange(len(b))
            b[i:i] = b[j:j + rng.randint(1, 64)]
    return bytes(b)


_REGIONS: dict = {}  # id of a corpus object -> (the object, [(start, end)] file ranges of .text and the descriptors)


def _regions(data: bytes) -> list[tuple[int, int]]:
    # the object is kept with its ranges: an id is reused once its object is freed (another run's corpus)
    obj, found = _REGIONS.get(id(data), (None, None))
    if obj is not data:
        import io

        from elftools.elf.elffile import ELFFile

        elf = ELFFile(io.BytesIO(data))
        found = [(s["sh_offset"], s["sh_offset"] + s["sh_size"]) for s in elf.iter_sections()
                 if s.name in (".text", ".rodata") and s["sh_type"] == "SHT_PROGBITS" and s["sh_size"]]
        _REGIONS[id(data)] = (data, found)
    return found


def mutate_code(data: bytes, rng: random.Random) -> bytes:
    """Bytes of ``.text`` (instructions) and ``.rodata`` (kernel descriptors) only, so the ELF
    stays readable and most mutants reach the emulator: bit flips and boundary dwords."""
    b = bytearray(data)
    regions = _regions(data)
    for _ in range(rng.randint(1, 4)):
        lo, hi = rng.choice(regions)
        i = rng.randrange(lo, hi)
        if rng.random() < 0.6:
            b[i] ^= 1 << rng.randrange(8)
        else:
            i = min(i & ~3, hi - 4)
            v = rng.choice([0, 0xFFFFFFFF, 0x7FFFFFFF, 0x80000000, rng.getrandbits(32), rng.randrange(256)])
            b[i : i + 4] = v.to_bytes(4, "little")
    return bytes(b)


# -- targets ---------------------------------------------------------------------------
def run_ir(text: str) -> bool:
    from gcnforge.dialect.source import parse_module
    from gcnforge.passes import pipeline as pl
    from gcnforge.passes.registry import PASSES
    from gcnforge.schedule.dialect import context
    from gcnforge.translate import to_assembly

    ctx = context()
    errors = []
    compiled = False
    for spec in [*PASSES, "amdgcn-regalloc{max_vgprs=2}", pl.DEFAULT]:
        try:
            m = parse_module(text, "f.mlir", ctx)
        except Diagnostic as d:
            errors.append(d)
            break
        try:
            pl.run(m, pl.parse(spec), ctx=ctx)
            if spec == pl.DEFAULT:
                from gcnforge.binary import assemble
                from gcnforge.dialect.value_ops import input_target

                check_objdump(assemble(to_assembly(m), target=input_target(m), filename="f.s"))
                compiled = True
        except Diagnostic as d:
            errors.append(d)
    for d in errors:
        if not _LOCATED.search(str(d)):
            raise Unlocated(str(d))
    return compiled


def run_loop(text: str) -> bool:
    """``loop``: a generated loop kernel (``fuzz.shapes.loop_ir``) parsed and verified, then the
    default pipeline (loop scheduling and lowering first) down to assembly text."""
    from gcnforge.dialect.source import parse_module
    from gcnforge.passes import pipeline as pl
    from gcnforge.schedule.dialect import context
    from gcnforge.translate import to_assembly

    try:  # (the default pipeline starts with amdgcn-schedule, amdgcn-lower-loops)
        m = parse_module(text, "f.mlir", context())
        pl.run(m, pl.parse(pl.DEFAULT))
        to_assembly(m)
        return True
    except Diagnostic as d:
        if not _LOCATED.search(str(d)):
            raise Unlocated(str(d)) from None
        return False


def run_asmshape(text: str) -> bool:
    """``asmshape``: a generated kernel (``fuzz.shapes.asm_shape``) through the listing, its
    statement check (``gcnforge as FILE.s``) and the code-object assembler."""
    from gcnforge.asm.listing import show_encoding
    from gcnforge.binary import assemble
    from gcnforge.binary.assembler import check_statements

    try:  # (what the statement check refuses, the assembler refuses too: it runs only on the rest)
        show_encoding(text, "f.s", target=MCPU)
        check_statements(text, MCPU, "f.s")
        check_objdump(assemble(text, target=MCPU, filename="f.s"))
        return True
    except Diagnostic as d:
        if not _LOCATED.search(str(d)):
            raise Unlocated(str(d)) from None
        return False


def run_asm(text: str) -> bool:
    from gcnforge.asm.listing import show_encoding
    from gcnforge.binary import assemble

    made = False
    for f in (lambda: show_encoding(text, "f.s", target=MCPU),
              lambda: check_objdump(assemble(text, target=MCPU, filename="f.s"))):
        try:
            f()
            made = True
        except Diagnostic as d:
            if not _LOCATED.search(str(d)):
                raise Unlocated(str(d)) from None
    return made


PROGRESS = 0  # --progress N: print the counts every N inputs per target
LAUNCH = True  # --no-launch: reader, dis, info, raise and raise -> compile only


def raise_and_compile(co) -> None:
    """``gcnforge raise`` (code object -> IR text -> parsed again) and raise -> compile."""
    from gcnforge import raising

    module = raising.raise_code_object(co)
    module = raising.parse_module(raising.print_module(module), "raised.mlir")
    raising.module_code_object(module)


def launch(data: bytes, kernels) -> None:
    """Launch the first kernel on the emulator with a small budget; the launch shape and the
    sanitizer vary with the input (deterministically), so several waves and work-groups reach
    barriers, LDS and the sanitizer's checks."""
    import numpy as np

    import gcnforge
    from gcnforge.runtime.emulator_backend import EmulatorBackend

    h = zlib.crc32(data)
    rng = np.random.default_rng(h)  # buffer contents and scalars: random but fixed by the input
    grid, block, sanitize = (1 + (h >> 2) % 2, 1, 1), (64 << (h % 3), 1, 1), bool(h & 8)
    names = list(kernels)
    for name in names[(h >> 5) % len(names):][:1]:  # one kernel, picked by the input
        if not _has_args_metadata(data, name):  # e.g. tests/emulator/gfx950_kernels.s: kernarg = in, out
            launch_raw(data, name, rng, grid, block, sanitize)
            continue
        lib = gcnforge.load(data, device=EmulatorBackend(max_instructions=20_000))
        k = lib[name]
        args = [rng.integers(0, 1 << 32, 2048, np.uint32).view(np.float32) if f.kind == "ptr"
                else int(rng.integers(0, 64)) for f in k.layout._explicit]
        reqd = isinstance(k.metadata, dict) and ".reqd_workgroup_size" in k.metadata  # its own block
        k(*args, grid=grid, block=None if reqd else block, sanitize=sanitize)


def _has_args_metadata(data: bytes, name: str) -> bool:
    from gcnforge.binary.reader import read_code_object

    md = read_code_object(data).metadata or {}
    return any(k.get(".name") == name and ".args" in k for k in md.get("amdhsa.kernels", []) or []
               if isinstance(k, dict))


def launch_raw(data: bytes, name: str, rng, grid, block, sanitize) -> None:
    """A kernel without argument metadata: two 16 KiB random buffers, their addresses as the
    kernarg (the convention of the corpus' metadata-free kernels)."""
    import struct

    from gcnforge.emulator import Device

    dev = Device()
    ptrs = []
    for _ in range(2):
        a = dev.memory.alloc(16384)
        dev.memory.write(a, rng.integers(0, 256, 16384, dtype="u1").tobytes())
        ptrs.append(a)
    dev.run(data, name, struct.pack("<QQ", *ptrs), grid, block, sanitize=sanitize, max_instructions=20_000)


def run_obj(data: bytes) -> bool:
    from gcnforge.asm.listing import objdump_lines
    from gcnforge.binary.describe import describe
    from gcnforge.binary.reader import read_code_object

    try:
        co = read_code_object(data)
        describe(co)
        from gcnforge.isa import table

        proc = table.processor(co.target)
        objdump_lines(co.text, co.text_address, target=proc if proc in table.known_targets() else None)
        raise_and_compile(co)
        if LAUNCH:
            launch(data, co.kernels)
        return True
    except Diagnostic:
        return False


def run_emu(data: bytes) -> bool:
    """``emu``: read and launch (whether or not the object still raises)."""
    from gcnforge.binary.reader import read_code_object

    try:
        launch(data, read_code_object(data).kernels)
        return True
    except Diagnostic:
        return False


_CLI_DIR: Path | None = None


def run_cli(inp: tuple[str, bytes]) -> bool:
    """``cli``: the command lines with ``--target MCPU`` on a mutated ``.s`` (as, as -o, stats,
    raise), ``.mlir`` (stats, compile, gcnforge-opt) or code object (info, dis, stats, raise).
    A failure: an exception out of ``main``, an internal error, or an error printed without a
    location (no ``file:`` / ``file:line:`` before ``error:``)."""
    import contextlib
    import io
    import tempfile

    from gcnforge.cli.main import main
    from gcnforge.cli.opt import main as opt_main

    global _CLI_DIR
    if _CLI_DIR is None:
        _CLI_DIR = Path(tempfile.mkdtemp(prefix="gcnforge-fuzz-"))
    kind, data = inp
    f = _CLI_DIR / f"in.{kind}"
    f.write_bytes(data)
    out = str(_CLI_DIR / "out")
    cmds = {"s": [["as"], ["as", "-o", out], ["stats"], ["raise", "-o", out]],
            "mlir": [["stats"], ["compile", "-o", out], ["opt"]],
            "hsaco": [["info"], ["dis"], ["stats"], ["raise", "-o", out]]}[kind]
    ok = True
    for c in cmds:
        argv = [str(f), "--mcpu", MCPU] if c[0] == "opt" else [c[0], str(f), "--target", MCPU, *c[1:]]
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            try:
                rc = (opt_main if c[0] == "opt" else main)(argv)
            except SystemExit as e:  # argparse
                rc = e.code
        e = err.getvalue()
        if "internal error" in e or "Traceback" in e:
            raise RuntimeError(f"{c[0]}: {e[-300:]}")
        if rc and re.search(r"^error: ", e, re.M):
            raise Unlocated(f"{c[0]}: {e[:300]}")
        ok = ok and not rc
    return ok


class Unlocated(Exception):
    pass


class ObjdumpRejects(Exception):
    pass


OBJDUMP: str | None = None  # --objdump: every code object produced must satisfy llvm-objdump


def check_objdump(data: bytes) -> None:
    if OBJDUMP is None:
        return
    import subprocess
    import tempfile

    with tempfile.NamedTemporaryFile(suffix=".hsaco") as f:
        f.write(data)
        f.flush()
        r = subprocess.run([OBJDUMP, "-d", f"--mcpu={MCPU}", f.name], capture_output=True, text=True, timeout=60)
    if r.returncode != 0 or "error" in r.stderr or "warning" in r.stderr:
        raise ObjdumpRejects(r.stderr.strip()[:300])


def fuzz(targets: list[str], inputs: int, seed: int, bound: float, save: Path | None = None,
         out=sys.stdout, mcpu: str = "gfx942", wall: float | None = None) -> Counter:
    """Counts per (target, outcome). ``bound``: CPU seconds per input before it is a hang;
    ``wall``: the wall-clock backstop (default ``WALL_FACTOR`` x ``bound``)."""
    handlers = signal.signal(signal.SIGPROF, _cpu_spent), signal.signal(signal.SIGALRM, _wall_passed)
    try:
        return _fuzz(targets, inputs, seed, bound, WALL_FACTOR * bound if wall is None else wall, save, out, mcpu)
    finally:
        signal.signal(signal.SIGPROF, handlers[0])
        signal.signal(signal.SIGALRM, handlers[1])


def _fuzz(targets, inputs, seed, bound, wall, save, out, mcpu) -> Counter:
    global MCPU
    MCPU = mcpu
    rng = random.Random(seed)
    ir, asm = ir_corpus(), asm_corpus()
    ir_pool = IR_TOKENS + (IR_TOKENS_GFX950 if MCPU == "gfx950" else [])
    asm_pool = ASM_TOKENS + (ASM_TOKENS_GFX950 if MCPU == "gfx950" else [])
    objs = obj_corpus(asm) if {"obj", "emu", "cli"} & set(targets) else []
    kernels = [o for o in objs if _regions(o)]  # emu: objects with instructions and a descriptor
    counts: Counter = Counter()
    for target in targets:
        for n in range(inputs):
            if target == "ir":
                inp: str | bytes = mutate_text(rng.choice(ir), rng, ir_pool)
                f = run_ir
            elif target == "asm":
                inp = mutate_text(rng.choice(asm), rng, asm_pool)
                f = run_asm
            elif target == "cli":
                kind = rng.choice(["s", "mlir", "hsaco"])
                if kind == "s":
                    data = mutate_text(rng.choice(asm), rng, asm_pool).encode()
                elif kind == "mlir":
                    data = mutate_text(rng.choice(ir), rng, ir_pool).encode()
                else:
                    data = mutate_code(rng.choice(kernels), rng) if rng.random() < 0.5 else \
                        mutate_bytes(rng.choice(objs), rng)
                inp = (kind, data)
                f = run_cli
            elif target == "loop":
                inp = shapes.loop_ir(rng, MCPU)
                f = run_loop
            elif target == "asmshape":
                inp = shapes.asm_shape(rng, asm, MCPU)
                f = run_asmshape
            elif target == "emu":
                inp = mutate_code(rng.choice(kernels), rng)
                f = run_emu
            else:
                inp = mutate_bytes(rng.choice(objs), rng)
                f = run_obj
            t0 = time.perf_counter()
            kind, detail, reached = run_bounded(f, inp, bound, wall)
            if reached:
                counts[(target, "reached output")] += 1
            counts[(target, kind)] += 1
            if PROGRESS and (n + 1) % PROGRESS == 0:  # a bounded run stopped early still says how far it got
                print(f"[{target}] {n + 1} inputs: " + ", ".join(f"{k} {counts[(target, k)]}" for k in
                      ("ok", "crash", "hang", "unlocated", "reached output")), file=out, flush=True)
            if kind != "ok":
                print(f"[{target} #{n}] {kind} ({time.perf_counter() - t0:.1f}s): {detail[:200]}", file=out)
                if save is not None:
                    save.mkdir(parents=True, exist_ok=True)
                    if target == "cli":
                        ext, inp = "." + inp[0], inp[1]
                    else:
                        ext = {"ir": ".mlir", "asm": ".s", "obj": ".hsaco", "emu": ".hsaco", "loop": ".mlir",
                               "asmshape": ".s"}[target]
                    p = save / f"{target}-{MCPU}-{seed}-{n}-{kind}{ext}"
                    p.write_bytes(inp if isinstance(inp, bytes) else inp.encode())
    return counts


def _seconds(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        v = 0.0
    if not v > 0 or v == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number of seconds > 0, got {text!r}")
    return v


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m fuzz.harness", description=__doc__.split("\n\n")[0])
    ap.add_argument("--targets", default="ir,asm,obj,emu", help="of ir, asm, obj, emu, cli, loop, asmshape")
    ap.add_argument("--inputs", type=int, default=100, help="mutated inputs per target")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--time-bound", type=_seconds, default=20.0,
                    help="seconds of CPU time per input before it counts as a hang")
    ap.add_argument("--wall-bound", type=_seconds, help="wall-clock seconds per input before it counts as a hang "
                    f"(a backstop for inputs that block; default {WALL_FACTOR} x --time-bound)")
    ap.add_argument("--save", type=Path, help="write failing inputs here")
    ap.add_argument("--no-launch", action="store_true", help="obj: do not launch on the emulator")
    ap.add_argument("--corpus", default="*", help="only corpus files matching this glob (without extension)")
    ap.add_argument("--objdump", action="store_true", help="ir: check every code object with llvm-objdump")
    ap.add_argument("--mcpu", default="gfx942", choices=("gfx942", "gfx950"), help="the corpus' processor")
    ap.add_argument("--progress", type=int, default=0, help="print the counts every N inputs per target")
    a = ap.parse_args(argv)
    global LAUNCH, OBJDUMP, CORPUS_GLOB, PROGRESS
    PROGRESS = a.progress
    LAUNCH = not a.no_launch
    CORPUS_GLOB = a.corpus
    if a.objdump:
        from gcnforge.llvm_tools import find_tool

        OBJDUMP = find_tool("llvm-objdump")
    counts = fuzz(a.targets.split(","), a.inputs, a.seed, a.time_bound, a.save, mcpu=a.mcpu, wall=a.wall_bound)
    for t in a.targets.split(","):
        print(f"{t}: " + ", ".join(f"{k} {counts[(t, k)]}" for k in ("ok", "crash", "hang", "unlocated",
                                                                         "objdump-rejects", "reached output")))
    return 0 if all(k in ("ok", "reached output") for (_, k) in counts) else 1


if __name__ == "__main__":
    sys.exit(main())
