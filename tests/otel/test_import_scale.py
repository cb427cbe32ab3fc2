"""OTLP import reads in linear time: a run with a hundred thousand model calls imports.

Each model call whose answer was not recorded takes its tool calls from the spans that
follow it in the run. Looked up from the start of the run each time, as the import once
did, 100,000 model calls cost about 5 * 10^9 steps (well over ten minutes on a laptop);
from each call's own place, they cost one pass. The import runs in a subprocess under a
generous outer limit, so a return of quadratic work fails the test instead of hanging
the suite; nothing here measures time.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from typing import Any

import pytest

from handoff_sim import Trace

OUTER_LIMIT = 120.0  # seconds: the linear import takes a few
MODEL_CALLS = 100_000
TOOLS_EVERY = 10_000  # this model call and every 10,000th after it is followed by 2 tools

_TRACE_ID = "ab" * 16


def one_run(model_calls: int, tools_every: int) -> dict[str, Any]:
    """An OTLP request: one agent run, ``model_calls`` model calls with no recorded answer,
    every ``tools_every``-th followed by two tool calls."""
    operation = "gen_ai.operation.name"
    spans: list[dict[str, Any]] = [
        {
            "traceId": _TRACE_ID,
            "spanId": f"{1:016x}",
            "name": "invoke_agent bot",
            "startTimeUnixNano": 0,
            "endTimeUnixNano": 10 * model_calls + 10,
            "attributes": [{"key": operation, "value": {"stringValue": "invoke_agent"}}],
        }
    ]

    def child(name: str, op: str, start: int, *extra: dict[str, Any]) -> None:
        spans.append(
            {
                "traceId": _TRACE_ID,
                "spanId": f"{len(spans) + 1:016x}",
                "parentSpanId": f"{1:016x}",
                "name": name,
                "startTimeUnixNano": start,
                "endTimeUnixNano": start + 1,
                "attributes": [{"key": operation, "value": {"stringValue": op}}, *extra],
            }
        )

    for index in range(model_calls):
        start = 10 * index + 1
        child("chat m", "chat", start)
        if index % tools_every == 0:
            for n in (1, 2):
                call = {"key": "gen_ai.tool.call.id", "value": {"stringValue": f"c{index}-{n}"}}
                child(f"execute_tool t{n}", "execute_tool", start + 2 * n, call)
    return {"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}


def summary(trace: Trace) -> dict[str, Any]:
    """What the test checks of the imported trace: counts, and which calls got tool calls."""
    responses = list(trace.of_type("model_response"))
    return {
        "responses": len(responses),
        "tool_ends": len(list(trace.of_type("tool_end"))),
        "with_calls": {e.step: list(e.tool_calls) for e in responses if e.tool_calls},
    }


def expected(model_calls: int, tools_every: int) -> dict[str, Any]:
    steps = range(0, model_calls, tools_every)
    return {
        "responses": model_calls,
        "tool_ends": 2 * len(steps),
        "with_calls": {str(s + 1): [f"c{s}-1:t1", f"c{s}-2:t2"] for s in steps},
    }


def test_the_small_version_reads_each_model_calls_own_tool_calls() -> None:
    result = json.loads(json.dumps(summary(Trace.from_otlp(one_run(50, 20)))))
    assert result == expected(50, 20)


@pytest.mark.slow
def test_a_run_of_a_hundred_thousand_model_calls_imports_within_the_outer_limit() -> None:
    script = textwrap.dedent(
        f"""
        import json
        from handoff_sim import Trace
        from tests.otel.test_import_scale import one_run, summary
        trace = Trace.from_otlp(one_run({MODEL_CALLS}, {TOOLS_EVERY}))
        print(json.dumps(summary(trace)))
        """
    )
    try:
        done = subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            timeout=OUTER_LIMIT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"importing {MODEL_CALLS} model calls took over {OUTER_LIMIT:g}s")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == expected(MODEL_CALLS, TOOLS_EVERY)
