"""Export: a trace becomes GenAI spans through the OpenTelemetry SDK, into any SpanExporter."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import pytest

from tests.otel._support import NEEDS_OTEL, NESTED_PARALLEL

pytest.importorskip("opentelemetry.sdk", reason=NEEDS_OTEL)

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from handoff_sim import Trace
from handoff_sim.otel import export_trace, trace_spans
from handoff_sim.scenarios import run_scenario

EPOCH_NS = 1_767_225_600 * 1_000_000_000  # 2026-01-01T00:00:00Z


@pytest.fixture(scope="module")
def trace() -> Trace:
    result = run_scenario(NESTED_PARALLEL)
    assert result.passed, result.render_failure()
    return result.trace


@pytest.fixture(scope="module")
def spans(trace: Trace) -> tuple[ReadableSpan, ...]:
    exporter = InMemorySpanExporter()
    export_trace(trace, exporter, name="nested-parallel")
    return exporter.get_finished_spans()


def by_name(spans: Sequence[ReadableSpan], name: str) -> list[ReadableSpan]:
    found = sorted((s for s in spans if s.name == name), key=lambda s: s.start_time or 0)
    assert found, f"no span named {name!r} among {sorted({s.name for s in spans})}"
    return found


def one(spans: Sequence[ReadableSpan], name: str) -> ReadableSpan:
    [span] = by_name(spans, name)
    return span


def parent_of(spans: Sequence[ReadableSpan], span: ReadableSpan) -> ReadableSpan | None:
    if span.parent is None:
        return None
    [parent] = [s for s in spans if s.context.span_id == span.parent.span_id]
    return parent


def children(spans: Sequence[ReadableSpan], span: ReadableSpan) -> list[str]:
    mine = [s for s in spans if s.parent is not None and s.parent.span_id == span.context.span_id]
    return [
        s.name
        for s in sorted(
            mine, key=lambda s: (s.start_time or 0, s.attributes["handoff_sim.seq.start"])
        )
    ]


def ms(span: ReadableSpan) -> tuple[float, float]:
    assert span.start_time is not None
    assert span.end_time is not None
    return (span.start_time - EPOCH_NS) / 1e6, (span.end_time - EPOCH_NS) / 1e6


def attrs(span: ReadableSpan, *keys: str) -> dict[str, Any]:
    return {key: span.attributes.get(key) for key in keys}


def test_runs_model_calls_and_tool_calls_are_genai_spans_nested_like_the_delegation(
    spans: tuple[ReadableSpan, ...],
) -> None:
    manager = one(spans, "invoke_agent manager")
    assert manager.parent is None
    assert children(spans, manager) == [
        "chat",
        "execute_tool delegate_research",
        "execute_tool delegate_slow",
        "execute_tool delegate_secret",
        "chat",
    ]
    research_tool = one(spans, "execute_tool delegate_research")
    assert children(spans, research_tool) == ["handoff attempt 1 delegate_research"]
    attempt = one(spans, "handoff attempt 1 delegate_research")
    assert children(spans, attempt) == ["invoke_agent research"]
    research = one(spans, "invoke_agent research")
    assert children(spans, research) == ["chat", "execute_tool delegate_worker", "chat"]
    worker = one(spans, "invoke_agent worker")
    chain = []
    node: ReadableSpan | None = worker
    while node is not None:
        chain.append(node.name)
        node = parent_of(spans, node)
    assert chain == [
        "invoke_agent worker",
        "handoff attempt 1 delegate_worker",
        "execute_tool delegate_worker",
        "invoke_agent research",
        "handoff attempt 1 delegate_research",
        "execute_tool delegate_research",
        "invoke_agent manager",
    ]
    assert {s.context.trace_id for s in spans} == {manager.context.trace_id}


def test_genai_attributes_name_operation_agent_tool_call_and_conversation(
    trace: Trace, spans: tuple[ReadableSpan, ...]
) -> None:
    manager = one(spans, "invoke_agent manager")
    session = trace.events[0].to_dict()["session_id"]
    assert attrs(
        manager,
        "gen_ai.operation.name",
        "gen_ai.agent.name",
        "gen_ai.agent.id",
        "gen_ai.conversation.id",
        "gen_ai.provider.name",
    ) == {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": "manager",
        "gen_ai.agent.id": "manager",
        "gen_ai.conversation.id": session,
        "gen_ai.provider.name": "handoff_sim",
    }
    assert manager.kind is SpanKind.INTERNAL
    slow_tool = one(spans, "execute_tool delegate_slow")
    assert attrs(
        slow_tool,
        "gen_ai.operation.name",
        "gen_ai.tool.name",
        "gen_ai.tool.call.id",
        "gen_ai.tool.call.arguments",
        "handoff_sim.handoff.id",
        "handoff_sim.handoff.subagent",
        "handoff_sim.handoff.status",
        "handoff_sim.handoff.attempts",
        "handoff_sim.handoff.depth",
        "handoff_sim.handoff.duration_ms",
        "handoff_sim.handoff.output",
    ) == {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "delegate_slow",
        "gen_ai.tool.call.id": "s",
        "gen_ai.tool.call.arguments": '{"task":"wait"}',
        "handoff_sim.handoff.id": "handoff:s",
        "handoff_sim.handoff.subagent": "slow",
        "handoff_sim.handoff.status": "completed",
        "handoff_sim.handoff.attempts": 2,
        "handoff_sim.handoff.depth": 1,
        "handoff_sim.handoff.duration_ms": 1300.0,
        "handoff_sim.handoff.output": "on-time",
    }
    child_runs = by_name(spans, "invoke_agent slow")
    handoff_session = next(
        e for e in trace if e.type == "handoff_start" and e.to_dict()["tool"] == "delegate_slow"
    ).to_dict()["session_id"]
    assert {s.attributes["gen_ai.conversation.id"] for s in child_runs} == {handoff_session}
    for chat in by_name(spans, "chat"):
        assert chat.kind is SpanKind.CLIENT
        assert chat.attributes["gen_ai.operation.name"] == "chat"


def test_a_retried_timeout_is_an_error_attempt_then_an_ok_attempt_at_virtual_times(
    spans: tuple[ReadableSpan, ...],
) -> None:
    tool = one(spans, "execute_tool delegate_slow")
    assert children(spans, tool) == [
        "handoff attempt 1 delegate_slow",
        "handoff attempt 2 delegate_slow",
    ]
    first, second = (one(spans, f"handoff attempt {n} delegate_slow") for n in (1, 2))
    assert ms(first) == (0.0, 1000.0)
    assert ms(second) == (1000.0, 1300.0)
    assert ms(tool) == (0.0, 1300.0)
    assert first.status.status_code is StatusCode.ERROR
    assert first.attributes["error.type"] == "timeout"
    assert first.attributes["handoff_sim.outcome"] == "timeout"
    assert "handoff timeout for subagent tool delegate_slow after 1000 ms" in str(
        first.status.description
    )
    assert second.status.status_code is StatusCode.UNSET
    timed_out_run, retried_run = by_name(spans, "invoke_agent slow")
    assert timed_out_run.status.status_code is StatusCode.ERROR
    assert timed_out_run.attributes["error.type"] == "cancelled"
    assert retried_run.attributes["handoff_sim.output"] == "on-time"
    assert tool.status.status_code is StatusCode.UNSET  # the handoff completed


def test_a_denied_handoff_is_an_error_tool_span_without_attempts(
    spans: tuple[ReadableSpan, ...],
) -> None:
    denied = one(spans, "execute_tool delegate_secret")
    assert children(spans, denied) == []
    assert denied.status.status_code is StatusCode.ERROR
    assert denied.status.description == "tool is in denied_tools"
    assert attrs(
        denied,
        "error.type",
        "handoff_sim.handoff.status",
        "handoff_sim.handoff.reason",
        "handoff_sim.handoff.attempts",
    ) == {
        "error.type": "denied:denied_tool",
        "handoff_sim.handoff.status": "denied",
        "handoff_sim.handoff.reason": "denied_tool",
        "handoff_sim.handoff.attempts": 0,
    }
    assert [e.name for e in denied.events] == [
        "handoff_sim.handoff_start",
        "handoff_sim.handoff_end",
    ]


def test_parallel_branches_overlap_in_time(spans: tuple[ReadableSpan, ...]) -> None:
    research, slow = (one(spans, f"execute_tool delegate_{n}") for n in ("research", "slow"))
    assert ms(research) == (0.0, 200.0)
    assert ms(slow)[0] < ms(research)[1]


def test_ids_and_times_are_derived_from_the_trace_and_epoch_not_random(trace: Trace) -> None:
    def ids(spans: Sequence[ReadableSpan]) -> list[tuple[str, int, int, int | None]]:
        return [(s.name, s.context.trace_id, s.context.span_id, s.start_time) for s in spans]

    first = trace_spans(trace, name="nested-parallel")
    assert ids(first) == ids(trace_spans(trace, name="nested-parallel"))
    other = trace_spans(trace, name="another-name")
    assert other[0].context.trace_id != first[0].context.trace_id
    shifted = trace_spans(trace, name="nested-parallel", epoch=datetime(2030, 6, 1, tzinfo=UTC))
    delta = (datetime(2030, 6, 1, tzinfo=UTC) - datetime(2026, 1, 1, tzinfo=UTC)).total_seconds()
    assert [s.start_time for s in shifted] == [
        (s.start_time or 0) + int(delta) * 1_000_000_000 for s in first
    ]


def test_one_exporter_takes_many_traces_and_is_not_shut_down(trace: Trace) -> None:
    exporter = InMemorySpanExporter()
    first = export_trace(trace, exporter, name="a")
    second = export_trace(trace, exporter, name="b")
    finished = exporter.get_finished_spans()
    assert len(finished) == 2 * len(trace_spans(trace, name="a"))
    assert {f"{s.context.trace_id:032x}" for s in finished} == {first, second}
    assert {s.resource.attributes["handoff_sim.trace.name"] for s in finished} == {"a", "b"}


def test_a_span_open_at_the_end_of_a_sliced_trace_still_ends(trace: Trace) -> None:
    head = trace[:10]  # the manager's run and the research handoff never end here
    spans = trace_spans(head)
    assert all(s.end_time is not None for s in spans)
    manager = one(spans, "invoke_agent manager")
    assert "handoff_sim.seq.end" not in manager.attributes
    assert "handoff_sim.status" not in manager.attributes


def test_attribute_names_are_those_of_the_semantic_conventions_package() -> None:
    semconv = pytest.importorskip(
        "opentelemetry.semconv._incubating.attributes.gen_ai_attributes",
        reason="opentelemetry-semantic-conventions (installed with the SDK) is missing",
    )
    from opentelemetry.semconv.attributes import error_attributes

    from handoff_sim._otlp import _names

    pairs = {
        _names.GEN_AI_OPERATION: semconv.GEN_AI_OPERATION_NAME,
        _names.GEN_AI_PROVIDER: semconv.GEN_AI_PROVIDER_NAME,
        _names.GEN_AI_AGENT_NAME: semconv.GEN_AI_AGENT_NAME,
        _names.GEN_AI_AGENT_ID: semconv.GEN_AI_AGENT_ID,
        _names.GEN_AI_CONVERSATION_ID: semconv.GEN_AI_CONVERSATION_ID,
        _names.GEN_AI_TOOL_NAME: semconv.GEN_AI_TOOL_NAME,
        _names.GEN_AI_TOOL_CALL_ID: semconv.GEN_AI_TOOL_CALL_ID,
        _names.GEN_AI_TOOL_TYPE: semconv.GEN_AI_TOOL_TYPE,
        _names.GEN_AI_TOOL_ARGUMENTS: semconv.GEN_AI_TOOL_CALL_ARGUMENTS,
        _names.GEN_AI_TOOL_RESULT: semconv.GEN_AI_TOOL_CALL_RESULT,
        _names.ERROR_TYPE: error_attributes.ERROR_TYPE,
    }
    assert list(pairs) == list(pairs.values())
    operations = semconv.GenAiOperationNameValues
    assert {"invoke_agent", "execute_tool", "chat"} <= {op.value for op in operations}
