"""OpenInference spans read into a trace without any OpenTelemetry package: what each span
kind becomes, the workflow span read through, names from the attributes the
instrumentations write, and a span kind no convention has refused with its field path."""

from __future__ import annotations

from typing import Any

import pytest

from handoff_sim import Trace, check_invariants
from handoff_sim.errors import OtlpFormatError

TRACE_ID = "ab" * 16
MS = 1_000_000
EPOCH = 1_767_225_600 * 1_000_000_000


def attr(key: str, value: object) -> dict[str, Any]:
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    return {"key": key, "value": {"stringValue": value}}


def span(
    n: int, parent: int | None, name: str, kind: object, start: int, end: int, **attributes: object
) -> dict[str, Any]:
    found = [attr("openinference.span.kind", kind)] if kind is not None else []
    found += [attr(key.replace("__", "."), value) for key, value in attributes.items()]
    data: dict[str, Any] = {
        "traceId": TRACE_ID,
        "spanId": f"{n:016x}",
        "name": name,
        "startTimeUnixNano": str(EPOCH + start * MS),
        "endTimeUnixNano": str(EPOCH + end * MS),
        "attributes": found,
    }
    if parent is not None:
        data["parentSpanId"] = f"{parent:016x}"
    return data


def request(*spans: dict[str, Any]) -> dict[str, Any]:
    return {"resourceSpans": [{"resource": {}, "scopeSpans": [{"spans": list(spans)}]}]}


def delegation(**root: object) -> dict[str, Any]:
    """workflow → triage (LLM, TOOL lookup, TOOL ask → CHAIN → expert (LLM)) as openai-agents
    instrumented by OpenInference writes it."""
    return request(
        span(1, None, "Agent workflow", "AGENT", 0, 100, **root),
        span(2, 1, "triage", "AGENT", 1, 99, agent__name="triage", graph__node__id="triage"),
        span(
            3,
            2,
            "generation",
            "LLM",
            2,
            10,
            llm__model_name="sim-model",
            llm__input_messages__0__message__role="user",
            llm__input_messages__0__message__content="go",
        ),
        span(
            4,
            2,
            "lookup",
            "TOOL",
            11,
            20,
            tool__name="lookup",
            input__value='{"q":1}',
            output__value="row",
        ),
        span(5, 2, "ask", "TOOL", 21, 80, input__value="{}", output__value="answer"),
        span(6, 5, "turn", "CHAIN", 22, 79),
        span(7, 6, "expert", "AGENT", 23, 78, graph__node__id="expert"),
        span(
            8,
            7,
            "generation",
            "LLM",
            24,
            77,
            llm__output_messages__0__message__role="assistant",
            llm__output_messages__0__message__content="answer",
        ),
        span(
            9,
            2,
            "generation",
            "LLM",
            81,
            98,
            llm__output_messages__0__message__role="assistant",
            llm__output_messages__0__message__content="done",
        ),
    )


def test_spans_become_runs_model_calls_tool_calls_and_a_handoff() -> None:
    trace = Trace.from_otlp(delegation())
    assert check_invariants(trace) == []
    runs = [(e.agent, e.depth) for e in trace if e.type == "run_start"]
    assert runs == [("triage", 0), ("expert", 1)]  # the workflow span is read through
    [handoff] = trace.handoffs()
    assert (handoff.agent, handoff.subagent, handoff.tool, handoff.depth) == (
        "triage",
        "expert",
        "ask",
        1,
    )  # the tool's span name; the agent from graph.node.id
    assert handoff.duration_ms == 59.0
    answers = [e.text for e in trace.of_type("model_response")]  # type: ignore[attr-defined]
    assert answers == [None, "answer", "done"]
    assert [e.messages for e in trace.of_type("model_request")] == [1, 0, 0]  # type: ignore[attr-defined]
    assert [(e.tool, e.arguments) for e in trace.of_type("tool_start")] == [  # type: ignore[attr-defined]
        ("lookup", '{"q":1}'),
        ("ask", "{}"),
    ]
    reasons = {u.name: u.reason for u in trace.unmapped}
    assert reasons == {
        "Agent workflow": "an OpenInference AGENT span naming no agent around agent spans "
        "(a workflow)",
        "turn": "OpenInference span kind CHAIN is not an agent run, model call or tool call",
    }


def test_an_unnamed_agent_span_alone_is_a_run_named_after_its_span() -> None:
    trace = Trace.from_otlp(request(span(1, None, "planner", "AGENT", 0, 5)))
    assert [e.agent for e in trace if e.type == "run_start"] == ["planner"]


def test_a_named_workflow_root_is_a_run_of_its_own() -> None:
    """An AGENT span that names its agent is a run, even with agent spans inside."""
    trace = Trace.from_otlp(delegation(agent__name="boss"))
    assert next((e.agent, e.depth) for e in trace if e.type == "run_start") == ("boss", 0)


@pytest.mark.parametrize(
    ("kind", "shown"),
    [("AGENTS", "'AGENTS'"), (7, "7"), ("", "''")],
)
def test_a_span_kind_no_convention_has_is_refused_naming_the_attribute(
    kind: object, shown: str
) -> None:
    with pytest.raises(OtlpFormatError) as caught:
        Trace.from_otlp(request(span(1, None, "x", kind, 0, 1)))
    text = str(caught.value)
    assert "resourceSpans[0].scopeSpans[0].spans[0].attributes[openinference.span.kind]" in text
    assert f"{shown} is not an OpenInference span kind (AGENT, CHAIN," in text


def test_lowercase_kinds_read_as_their_uppercase_names() -> None:
    trace = Trace.from_otlp(request(span(1, None, "a", "agent", 0, 5, agent__name="a")))
    assert [e.agent for e in trace if e.type == "run_start"] == ["a"]


def test_an_openai_agents_handoff_is_a_tool_call_and_a_new_top_level_run() -> None:
    """Control passes to billing (a TOOL span, then billing's AGENT span beside triage's,
    naming it in graph.node.parent_id): no delegation, as capture() records a transfer."""
    trace = Trace.from_otlp(
        request(
            span(1, None, "Agent workflow", "AGENT", 0, 100),
            span(2, 1, "triage", "AGENT", 1, 50, agent__name="triage"),
            span(
                3,
                2,
                "handoff to billing",
                "TOOL",
                10,
                11,
                input__value="triage",
                output__value="billing",
            ),
            span(
                4,
                1,
                "billing",
                "AGENT",
                51,
                99,
                agent__name="billing",
                graph__node__parent_id="triage",
            ),
        )
    )
    assert trace.handoffs() == []
    assert [(e.agent, e.depth) for e in trace if e.type == "run_start"] == [
        ("triage", 0),
        ("billing", 0),
    ]
    assert [e.tool for e in trace.of_type("tool_start")] == ["handoff to billing"]  # type: ignore[attr-defined]
