"""Spans emitted by pydantic-ai's own OpenTelemetry instrumentation, read back as a trace.

The same agents run twice: once instrumented by pydantic-ai into the OpenTelemetry SDK
(the spans written to an OTLP JSON file and imported), once under the adapter's
``capture()``. Both must show the same delegations.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tests.otel._support import NEEDS_OTEL

pytest.importorskip("opentelemetry.sdk", reason=NEEDS_OTEL)
pytest.importorskip(
    "pydantic_ai",
    reason="needs the optional extra 'pydantic-ai': pip install 'handoff-sim[pydantic-ai]'",
)

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from pydantic_ai import Agent, RunContext
from pydantic_ai.capabilities import Instrumentation
from pydantic_ai.models.instrumented import InstrumentationSettings

from handoff_sim import Trace, check_invariants
from handoff_sim.adapters.pydantic_ai import SimModel, simulate_run
from handoff_sim.cli import main
from handoff_sim.otel import OtlpJsonFileExporter
from handoff_sim.testing import ScriptedModel


def agents(instrument: InstrumentationSettings | None) -> Agent[None, str]:
    """A boss that delegates twice in one turn (one delegate fails once and is retried by
    the tool) and calls a plain tool alongside."""
    extra: dict[str, Any] = {}
    if instrument is not None:  # per agent, so no global instrumentation is left behind
        extra["capabilities"] = [Instrumentation(settings=instrument)]
    joker = Agent(
        SimModel(ScriptedModel([{"error": "flaky"}, {"text": "joke!"}])), name="joker", **extra
    )
    poet = Agent(SimModel(ScriptedModel([{"text": "poem"}])), name="poet", **extra)
    boss = Agent(
        SimModel(
            ScriptedModel(
                [
                    {
                        "tool_calls": [
                            {"id": "c1", "name": "tell_joke", "arguments": {"task": "a joke"}},
                            {"id": "c2", "name": "add", "arguments": {"a": 1, "b": 2}},
                            {"id": "c3", "name": "write_poem", "arguments": {"task": "a poem"}},
                        ]
                    },
                    {"text": "done"},
                ]
            )
        ),
        name="boss",
        **extra,
    )

    @boss.tool
    async def tell_joke(ctx: RunContext[None], task: str) -> str:
        try:
            return (await joker.run(task, usage=ctx.usage)).output
        except Exception:
            return (await joker.run(task, usage=ctx.usage)).output

    @boss.tool
    async def write_poem(ctx: RunContext[None], task: str) -> str:
        return (await poet.run(task, usage=ctx.usage)).output

    @boss.tool_plain
    def add(a: int, b: int) -> int:
        return a + b

    return boss


def recorded(tmp_path: Path) -> Path:
    path = tmp_path / "pydantic-ai.json"
    exporter = OtlpJsonFileExporter(path)
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    settings = InstrumentationSettings(tracer_provider=provider, include_content=True)
    result = asyncio.run(agents(settings).run("go"))
    assert result.output == "done"
    provider.shutdown()
    return path


def shape(trace: Trace) -> list[tuple[Any, ...]]:
    return [
        (
            r.agent,
            r.subagent,
            r.tool,
            r.call_id,
            r.status,
            r.attempts,
            r.depth,
            r.attempt_outcomes,
            r.output,
        )
        for r in trace.handoffs()
    ]


def test_pydantic_ai_spans_import_as_the_delegations_capture_records(tmp_path: Path) -> None:
    imported = Trace.from_otlp(recorded(tmp_path))
    captured = simulate_run(lambda: agents(None).run("go")).trace
    assert check_invariants(imported) == []
    assert imported.unmapped == ()
    assert shape(imported) == shape(captured)
    assert shape(imported) == [
        ("boss", "joker", "tell_joke", "c1", "completed", 2, 1, ("error", "ok"), "joke!"),
        ("boss", "poet", "write_poem", "c3", "completed", 1, 1, ("ok",), "poem"),
    ]

    def calls(trace: Trace) -> list[str]:
        return [f"{e.agent}:{e.to_dict()['tool']}" for e in trace.of_type("tool_start")]

    assert calls(imported) == calls(captured)
    [first_try] = [
        e.to_dict() for e in imported.of_type("run_end") if e.to_dict()["status"] == "failed"
    ]
    assert first_try["agent"] == "joker"
    assert "flaky" in first_try["error"]


def test_handoff_sim_check_reads_the_file_pydantic_ai_wrote(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = recorded(tmp_path)
    expect = tmp_path / "expect.yaml"
    expect.write_text(
        "expect:\n"
        "  output: done\n"
        "  handoffs:\n"
        "    - {tool: tell_joke, status: completed, attempts: 2}\n"
        "    - {tool: write_poem, status: completed, attempts: 1}\n",
        encoding="utf-8",
    )
    assert main(["check", str(path), "--expect", str(expect)]) == 0
    assert "== 1 passed, 0 failed ==" in capsys.readouterr().out
