"""Malformed text never crashes the parser or verifier: random edits of a valid file give a
ParseError / verifier error (what gcnforge-opt reports with a location) or valid IR."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.parser import Parser
from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException

from gcnforge.dialect import context

SRC = (Path(__file__).resolve().parents[2] / "test" / "dialect" / "ops.mlir").read_text()
BODY = SRC[SRC.index("amdgcn.module @ops") : SRC.index("// -----")]
TOKENS = ["%v", ",", ":", "!amdgcn.vgpr", "!amdgcn.sgpr<[? + 2]>", "off", "-1", "99999999999", "clamp", "=",
          "[", "]", "<", ">", "?", "+", "v_add_f32_e32", "s_nop", "amdgcn.vop2", "}", "{", "\n", "offset = ", "#amdgcn.inst<"]
CTX = context()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, len(BODY)), st.integers(0, 12), st.sampled_from(TOKENS)), min_size=1, max_size=4))
def test_random_edits_fail_cleanly(edits):
    text = BODY
    for pos, cut, tok in edits:
        pos = min(pos, len(text))
        text = text[:pos] + tok + text[pos + cut :]
    try:
        Parser(CTX, text, "fuzz").parse_module().verify()
    except (ParseError, VerifyException, DiagnosticException):
        pass
