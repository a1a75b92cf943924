"""Generators of the input shapes an independent fuzzing round found defects in (issue 28),
for the harness' ``loop`` and ``asmshape`` targets.

``loop_ir``: a kernel of one to three (possibly nested) ``amdgcn.loop``s and ``amdgcn.if``s
(results merged from both branches) whose operands,
yields and later uses are drawn from every name the text has, in scope or not: the loop's own
block arguments as its operands, its own results inside its body or as its operands, a body
value after the loop, a value defined later, a name never defined; with or without unroll
``dims`` and ``sched`` attributes. Most draws are valid (so the passes run), the rest must be
located diagnostics.

``asm_shape``: a small kernel with its ``.amdgpu_metadata`` (``tests/cli/kernel_ok.s``) with
one to three of: an instruction of the corpus with its encoding suffix doubled, swapped or
stacked (``v_add_f32_e64_e64``), a directive with operands of the wrong kind (``.ident -``,
``.file 1``, ``.addrsig x``, ``.cfi_*`` out of a frame, ``.p2align "a"``...), and white space
or Unicode in the metadata YAML (tabs in indentation and after colons, U+FEFF, NBSP, NEL,
U+2028, CR, control characters), in plain, quoted and block scalars alike.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


# -- IR: loops -----------------------------------------------------------------------------------
def _pick(rng: random.Random, good: list[str], bad: list[str], p_bad: float = 0.07) -> str:
    if bad and (not good or rng.random() < p_bad):
        return rng.choice(bad)
    return rng.choice(good)


def _loop(rng: random.Random, scope: list[str], depth: int, names: dict, lines: list[str], ind: str,
          target_bad: list[str]) -> list[str]:
    """Appends one loop (and its body) to ``lines``; returns the names of its results."""
    k = names["n"] = names["n"] + 1
    n_iter = rng.randint(0, 3)
    dims = rng.choice([[], [], [2], [2, 2], [4]])
    count = rng.choice([1, 2, 4, 8, 3, 0, 16]) if dims == [] else 4 * rng.choice([1, 2])
    res = [f"%r{k}_{i}" for i in range(n_iter)]
    idx = [f"%i{k}_{i}" for i in range(len(dims))]
    args = [f"%a{k}_{i}" for i in range(n_iter)]
    body_vals: list[str] = []
    # operands: in scope, or (the defects) the loop's own block arguments / results, a later value
    bad_ops = args + res + [f"%b{k}_0", "%never", f"%late{k}"]
    ops = [_pick(rng, scope, bad_ops + target_bad) for _ in range(n_iter)]
    head = f"{ind}{', '.join(res) + ' = ' if res else ''}amdgcn.loop {count}"
    if dims:
        head += f" dims {dims}"
        if len(dims) > 1 and rng.random() < 0.3:
            head += f" perm {list(reversed(range(len(dims))))}"
    if n_iter:
        head += f" iter({', '.join(ops)} : {', '.join(['!amdgcn.vgpr'] * n_iter)})"
    lines.append(head + " {")
    block_args = [f"{i} : i32" for i in idx] + [f"{a} : !amdgcn.vgpr" for a in args]
    lines.append(f"{ind}^bb0({', '.join(block_args)}):")
    inner_scope = scope + args
    for j in range(rng.randint(0, 3)):
        d, b = f"%d{k}_{j}", f"%b{k}_{j}"
        src = _pick(rng, inner_scope + body_vals, res + [f"%b{k}_{j + 1}", "%never"])
        sched = ""
        if rng.random() < 0.4:
            sched = f" {{sched = array<i64: {rng.randint(0, 2)}, {rng.choice([1, 2])}, {rng.randint(0, 1)}>}}"
        lines.append(f"{ind}  {d} = amdgcn.alloca : !amdgcn.vgpr")
        lines.append(f"{ind}  {b} = amdgcn.vop2 v_add_u32_e32 {d}, %one, {src}{sched} : !amdgcn.vgpr, i32, "
                     "!amdgcn.vgpr")
        body_vals.append(b)
        if depth < 2 and rng.random() < 0.25:
            body_vals += _loop(rng, inner_scope + body_vals, depth + 1, names, lines, ind + "  ", res)
        if depth < 2 and rng.random() < 0.2:
            body_vals += _if(rng, inner_scope + body_vals, depth + 1, names, lines, ind + "  ", res)
    ys = [_pick(rng, inner_scope + body_vals, res + ["%never"], 0.1) for _ in range(n_iter)]
    if ys:
        lines.append(f"{ind}  amdgcn.yield {', '.join(ys)} : {', '.join(['!amdgcn.vgpr'] * n_iter)}")
    else:
        lines.append(f"{ind}  amdgcn.yield")
    lines.append(f"{ind}}}")
    names["body"] += body_vals
    return res


def _if(rng: random.Random, scope: list[str], depth: int, names: dict, lines: list[str], ind: str,
        target_bad: list[str]) -> list[str]:
    """Appends one ``amdgcn.if`` (its branches may hold loops and ifs) to ``lines``; returns the
    names of its results. Defects: a result or another branch's value yielded or used, a name
    never defined."""
    k = names["n"] = names["n"] + 1
    res = [f"%q{k}_{i}" for i in range(rng.randint(0, 2))]
    cmp = rng.choice(["s_cmp_lt_i32", "s_cmp_ge_u32", "s_cmp_eq_u32", "s_cmp_lg_i32"])
    a, b = rng.choice(["%sn", "%one"]), rng.choice(["%sn", "%one"])
    ta, tb = ("!amdgcn.sgpr" if v == "%sn" else "i32" for v in (a, b))
    types = ", ".join(["!amdgcn.vgpr"] * len(res))
    lines.append(f"{ind}{', '.join(res) + ' = ' if res else ''}amdgcn.if {cmp} ({a}, {b} : {ta}, {tb})"
                 + (f" -> ({types})" if res else "") + " {")
    other: list[str] = []
    for branch in range(2):
        if branch:
            lines.append(f"{ind}}} else {{")
        local: list[str] = []
        for j in range(rng.randint(0, 2)):
            d, v = f"%t{k}_{branch}_{j}", f"%c{k}_{branch}_{j}"
            src = _pick(rng, scope + local, res + other + target_bad + ["%never"])
            lines.append(f"{ind}  {d} = amdgcn.alloca : !amdgcn.vgpr")
            lines.append(f"{ind}  {v} = amdgcn.vop2 v_add_u32_e32 {d}, %one, {src} : !amdgcn.vgpr, i32, !amdgcn.vgpr")
            local.append(v)
            if depth < 2 and rng.random() < 0.15:
                local += _loop(rng, scope + local, depth + 1, names, lines, ind + "  ", res)
        ys = [_pick(rng, scope + local, res + other + ["%never"], 0.1) for _ in res]
        lines.append(f"{ind}  amdgcn.yield {', '.join(ys)} : {types}" if ys else f"{ind}  amdgcn.yield")
        other = local
        names["body"] += local
    lines.append(f"{ind}}}")
    return res


def loop_ir(rng: random.Random, target: str = "gfx942") -> str:
    names = {"n": 0, "body": []}
    lines = [f"amdgcn.module @m #amdgcn.target<{target}> {{", "  amdgcn.kernel @k {",
             "    %one = arith.constant 1 : i32", "    %x0 = amdgcn.alloca : !amdgcn.vgpr",
             "    %x = amdgcn.vop1 v_mov_b32_e32 %x0, %one : !amdgcn.vgpr, i32",
             "    %s0 = amdgcn.alloca : !amdgcn.sgpr", "    %sn = amdgcn.sop1 s_mov_b32 %s0, %one : !amdgcn.sgpr, i32"]
    scope = ["%x"]
    for _ in range(rng.randint(1, 2)):
        scope += (_if if rng.random() < 0.25 else _loop)(rng, scope, 0, names, lines, "    ", [])
    for j in range(rng.randint(0, 2)):  # uses after the loops: results, or a body value (out of scope)
        src = _pick(rng, scope, names["body"] + ["%never"], 0.1)
        lines.append(f"    %e{j} = amdgcn.alloca : !amdgcn.vgpr")
        lines.append(f"    %f{j} = amdgcn.vop2 v_add_u32_e32 %e{j}, %one, {src} : !amdgcn.vgpr, i32, !amdgcn.vgpr")
        scope.append(f"%f{j}")
    if rng.random() < 0.1:  # a later definition of a name used above
        lines.append("    %late1 = amdgcn.alloca : !amdgcn.vgpr")
    lines += ["    amdgcn.end", "  }", "}"]
    return "\n".join(lines) + "\n"


# -- assembly: suffixes, directive operands, metadata YAML ---------------------------------------
KERNEL = (ROOT / "tests/cli/kernel_ok.s").read_text()
SUFFIXES = ["_e32", "_e64", "_sdwa", "_dpp", "_e64_dpp", ""]
_SUFFIXED = re.compile(r"^(v_\w+?)(_e32|_e64|_sdwa|_dpp)?$")
DIRECTIVES = [".ident", ".file", ".loc", ".addrsig", ".addrsig_sym", ".cfi_sections", ".cfi_startproc",
              ".cfi_endproc", ".cfi_undefined", ".cfi_def_cfa", ".amdgcn_target", ".amdhsa_code_object_version",
              ".p2align", ".byte", ".long", ".section", ".globl", ".type", ".size", ".set", ".text", ".rodata",
              ".weak", ".hidden", ".protected", ".zero", ".fill", ".string", ".asciz", ".ascii"]
OPERANDS = ["", "-", "5", "0", "-1", "1 2", '"s"', '"a" "b"', '"a", "b"', "x", "x y", "x, y", "1, 2", ".L1",
            "@function", "0x", '"unterminated', "1e5", "%", "\t", "(", ")", "1 <<", "md5 0x1", '1 "a.c"',
            '0 "a.c"', "1 2 3 prologue_end", "1 x", ".debug_frame", ".eh_frame, .sframe", "simple", "k, @function",
            "k, .Lfunc_end0-k", "'c'", "\\", "\"\\q\"", "\ufeff", "\u00a0", "65536", "4294967296"]
YAML_INSERTS = ["\t", " ", "  ", "\ufeff", "\u00a0", "\u2028", "\u0085", "\r", "\x01", "\x7f", "# c", "#", ":", "- ",
                "'", '"', "{", "[", "&a ", "*a", "!!str ", "|", ">", "\t# c\ufeff", "\ufeff\t"]


def _instruction_lines(asm: list[str]) -> list[str]:
    out = []
    for text in asm:
        for ln in text.splitlines():
            s = ln.split("//")[0].split(";")[0].strip()
            if s.startswith("v_") and not s.endswith(":"):
                out.append(s)
    return out or ["v_add_f32_e32 v0, v1, v2"]


def _resuffix(rng: random.Random, line: str) -> str:
    mn, _, rest = line.partition(" ")
    m = _SUFFIXED.match(mn)
    base, suf = (m.group(1), m.group(2) or "") if m else (mn, "")
    r = rng.random()
    if r < 0.4:  # doubled: the suffix it has, or another, stacked
        new = base + (suf or rng.choice(SUFFIXES[:4])) + rng.choice(SUFFIXES[:5])
    elif r < 0.7:
        new = base + rng.choice(SUFFIXES)
    else:
        new = base + suf + suf + rng.choice(SUFFIXES)
    return f"{new} {rest}".rstrip()


def _yaml_edit(rng: random.Random, text: str) -> str:
    a = text.index(".amdgpu_metadata\n") + len(".amdgpu_metadata\n")
    b = text.index("\t.end_amdgpu_metadata")
    yaml = text[a:b]
    lines = yaml.split("\n")
    r = rng.random()
    if r < 0.35:  # a character at a random place
        i = rng.randrange(len(yaml) + 1)
        yaml = yaml[:i] + rng.choice(YAML_INSERTS) + yaml[i:]
    elif r < 0.7:  # indentation: a tab for one of its spaces, or before it
        i = rng.randrange(len(lines))
        ln = lines[i]
        n = len(ln) - len(ln.lstrip(" "))
        if n and rng.random() < 0.6:
            j = rng.randrange(n)
            ln = ln[:j] + rng.choice(["\t", "\t\t", " \t"]) + ln[j + 1:]
        else:
            ln = rng.choice(["\t", " \t", "\ufeff", "\u00a0"]) + ln
        lines[i] = ln
        yaml = "\n".join(lines)
    else:  # a value quoted, single-quoted or in a block scalar, with a character inside
        i = rng.randrange(len(lines))
        m = re.match(r"(\s*(?:- )?[\w.]+:\s+)(\S.*)$", lines[i])
        if m:
            v = m.group(2)
            k = rng.randrange(len(v) + 1)
            v = v[:k] + rng.choice(YAML_INSERTS) + v[k:]
            q = rng.choice(['"{}"', "'{}'", "{}", "|\n" + " " * 8 + "{}", ">\n" + " " * 8 + "{}"])
            lines[i] = m.group(1) + q.format(v)
            yaml = "\n".join(lines)
    return text[:a] + yaml + text[b:]


def asm_shape(rng: random.Random, asm: list[str], target: str = "gfx942") -> str:
    text = KERNEL.replace("gfx942", target)
    insts = _instruction_lines(asm)
    for _ in range(rng.randint(1, 3)):
        r = rng.random()
        if r < 0.35:
            line = _resuffix(rng, rng.choice(insts))
            text = text.replace("\ts_endpgm\n", f"\t{line}\n\ts_endpgm\n", 1)
        elif r < 0.65:
            line = f"{rng.choice(DIRECTIVES)} {rng.choice(OPERANDS)}".rstrip(" ")
            where = rng.choice(["\t.text\n", "\ts_endpgm\n", "add_one:\n", "\t.end_amdhsa_kernel\n"])
            text = text.replace(where, where + f"\t{line}\n", 1)
        else:
            text = _yaml_edit(rng, text)
    return text
