"""The modelled execution as a Chrome / Perfetto trace (JSON "Trace Event Format": an object
with ``traceEvents``; load it in ui.perfetto.dev or chrome://tracing).

Tracks: process "CU 0 (<device>)", one thread per wave ("WG g wave w / SIMD s") whose slices
are the instructions it issued (name = mnemonic, duration = its pipe occupancy); counter
"outstanding vector memory" (requests in flight on the CU). Times in microseconds.
"""

from __future__ import annotations

import json
from pathlib import Path


def trace_events(report) -> list[dict]:
    cu = report.cu
    us = 1e6 / report.clock_hz
    ev: list[dict] = [{"ph": "M", "pid": 0, "name": "process_name", "args": {"name": f"CU 0 ({report.device})"}}]
    tids: dict[tuple[int, int], int] = {}
    for s in cu.slices:
        key = (s.wg, s.wave)
        if key not in tids:
            tids[key] = len(tids) + 1
            ev.append({"ph": "M", "pid": 0, "tid": tids[key], "name": "thread_name",
                       "args": {"name": f"WG {s.wg} wave {s.wave} / SIMD {s.simd}"}})
        ev.append({"ph": "X", "pid": 0, "tid": tids[key], "name": s.name, "cat": "issue",
                   "ts": s.start * us, "dur": max(s.dur, 1.0) * us})
    level = 0
    for t, d in sorted(cu.mem.outstanding):
        level += d
        ev.append({"ph": "C", "pid": 0, "name": "outstanding vector memory", "ts": t * us, "args": {"requests": level}})
    return ev


def write_trace(report, path) -> Path:
    if report.cu is None or not report.cu.slices:
        from gcnforge.diagnostics import Diagnostic

        raise Diagnostic("the timing report holds no timeline (run the timing mode with a trace requested)")
    p = Path(path)
    p.write_text(json.dumps({"traceEvents": trace_events(report), "displayTimeUnit": "ns",
                             "otherData": {"kernel": report.kernel, "device": report.device,
                                           "predicted_us": report.us}}))
    return p


__all__ = ["trace_events", "write_trace"]
