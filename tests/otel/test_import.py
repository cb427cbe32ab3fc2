"""Import: OTLP JSON written by other frameworks becomes a trace; ill-formed files are clear errors.

None of these needs the OpenTelemetry SDK: reading OTLP is plain JSON.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from handoff_sim import Trace, check_invariants
from handoff_sim.errors import HandoffSimError, OtlpError, OtlpFormatError
from handoff_sim.trace import read_otlp
from pytest_handoff import assert_handoffs_balanced
from tests.otel._support import FIXTURES

ADK = FIXTURES / "adk_agent_tool.json"
OLD_PYDANTIC_AI = FIXTURES / "pydantic_ai_old_names.jsonl"


def adk() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(ADK.read_text(encoding="utf-8"))
    return data


def spans_of(data: dict[str, Any]) -> list[dict[str, Any]]:
    spans: list[dict[str, Any]] = data["resourceSpans"][0]["scopeSpans"][0]["spans"]
    return spans


def test_adk_shaped_spans_become_runs_a_handoff_and_tool_calls() -> None:
    trace = Trace.from_otlp(ADK)
    assert check_invariants(trace) == []
    assert_handoffs_balanced(trace)
    [handoff] = trace.handoffs()
    assert handoff.summary() == {
        "tool": "helper",
        "status": "completed",
        "reason": None,
        "attempts": 1,
        "depth": 1,
    }
    assert (handoff.agent, handoff.subagent, handoff.call_id) == ("root", "helper", "adk-1")
    assert handoff.output == "report read"
    assert handoff.duration_ms == 490.0
    assert handoff.session_id == "conv-2"
    assert trace.render_tree() == (
        "└─ root → helper via helper [handoff:adk-1] status=completed attempts=1 depth=1 490ms\n"
    )
    ends = {e.agent: e.to_dict() for e in trace.of_type("run_end")}
    assert ends["root"]["output"] == "summary: report read"
    assert ends["root"]["steps"] == 3
    [start] = [e.to_dict() for e in trace.of_type("run_start") if e.agent == "root"]
    assert (start["input"], start["session_id"], start["t"]) == (
        "summarise the report",
        "conv-1",
        0.01,
    )
    [failed] = [e.to_dict() for e in trace.of_type("tool_end") if e.to_dict()["tool"] == "lookup"]
    assert (failed["status"], failed["output"]) == ("error", "ToolError: index offline")


def test_spans_we_cannot_map_are_kept_and_reported() -> None:
    trace = Trace.from_otlp(ADK)
    assert [(u.name, u.span_id) for u in trace.unmapped] == [
        ("invoke_workflow root", "0000000000000001"),
        ("invoke_workflow helper", "0000000000000005"),
    ]
    workflow = trace.unmapped[1]
    assert workflow.attributes["gen_ai.workflow.nested"] is True
    assert workflow.parent_span_id == "0000000000000004"
    assert "gen_ai.operation.name 'invoke_workflow'" in str(workflow)
    assert str(workflow).startswith("resourceSpans[0].scopeSpans[0].spans[4]: ")


def test_old_pydantic_ai_names_in_protobuf_json_lines_are_read() -> None:
    trace = Trace.from_otlp(OLD_PYDANTIC_AI)
    assert check_invariants(trace) == []
    [handoff] = trace.handoffs()
    assert (handoff.tool, handoff.subagent, handoff.status, handoff.attempts) == (
        "delegate",
        "joker",
        "completed",
        2,
    )
    assert handoff.attempt_outcomes == ("error", "ok")
    assert [e.to_dict()["error"] for e in trace.of_type("handoff_attempt_end")] == [
        "RuntimeError: boom",
        None,
    ]
    calls = [e.to_dict()["tool_calls"] for e in trace.of_type("model_response")]
    assert calls[0] == ["c1:delegate"]  # not recorded: read from the tool calls that follow
    assert trace.unmapped == ()


def test_a_mapping_reads_like_a_file() -> None:
    assert Trace.from_otlp(adk()) == Trace.from_otlp(ADK)


def test_a_span_outside_any_agent_run_is_kept_as_unmapped() -> None:
    data = adk()
    spans = spans_of(data)
    lonely = copy.deepcopy(spans[8])  # the failing tool call, as a root of its own
    lonely["spanId"] = "00000000000000ff"
    del lonely["parentSpanId"]
    spans.append(lonely)
    trace = Trace.from_otlp(data)
    assert [u.reason for u in trace.unmapped][-1] == "a tool call outside any agent run"


def test_a_parent_missing_from_the_file_is_noted_and_its_child_read_as_a_root() -> None:
    data = adk()
    spans_of(data)[0]["parentSpanId"] = "00000000000000aa"
    trace = Trace.from_otlp(data)
    assert len(trace.handoffs()) == 1
    assert trace.notes == (
        "resourceSpans[0].scopeSpans[0].spans[0]: parent span 00000000000000aa is not in the "
        "file; span 'invoke_workflow root' is read as a root",
    )


def test_a_file_with_several_traces_needs_a_choice() -> None:
    data = adk()
    other = copy.deepcopy(spans_of(data))
    for span in other:
        span["traceId"] = "1" * 32
    spans_of(data).extend(other)
    assert len(read_otlp(data)) == 2
    with pytest.raises(OtlpError, match="holds 2 traces; choose one with trace_id="):
        Trace.from_otlp(data)
    assert Trace.from_otlp(data, trace_id="1" * 32).handoffs()[0].tool == "helper"


def test_an_empty_export_is_an_empty_trace() -> None:
    trace = Trace.from_otlp({"resourceSpans": []})
    assert len(trace) == 0
    assert trace.render_tree() == "(no handoffs)\n"


def broken(path: str, value: object) -> dict[str, Any]:
    data = adk()
    target: Any = data
    *parents, last = path.split(".")
    for key in parents:
        target = target[int(key)] if key.isdigit() else target[key]
    target[int(last) if last.isdigit() else last] = value
    return data


SPAN = "resourceSpans.0.scopeSpans.0.spans.3"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            broken(f"{SPAN}.startTimeUnixNano", "12.5"),
            "<dict>: resourceSpans[0].scopeSpans[0].spans[3].startTimeUnixNano: "
            "not an integer from 0 to 2^64-1",
        ),
        (
            broken(f"{SPAN}.traceId", "xyz"),
            "<dict>: resourceSpans[0].scopeSpans[0].spans[3].traceId: 'xyz' is not 32 hex "
            "digits (nor 16 bytes in base64)",
        ),
        (
            broken(f"{SPAN}.spanId", "0000000000000000"),
            "spans[3].spanId: is all zeros, which is not a valid id",
        ),
        (
            broken(f"{SPAN}.kind", "SPAN_KIND_WHATEVER"),
            "spans[3].kind: 'SPAN_KIND_WHATEVER' is not one of",
        ),
        (
            broken(f"{SPAN}.attributes.0", {"value": {}}),
            "spans[3].attributes[0].key: expected a string",
        ),
        (
            broken(f"{SPAN}.attributes.0.value", {"intValue": "ten"}),
            "spans[3].attributes[0].value.intValue: not a 64-bit integer",
        ),
        (
            broken(f"{SPAN}.attributes.0.value", {"stringValue": "a", "intValue": "1"}),
            "spans[3].attributes[0].value: expected one value field, got intValue, stringValue",
        ),
        (broken("resourceSpans.0.scopeSpans", {}), "resourceSpans[0].scopeSpans: expected a list"),
        (
            broken(f"{SPAN}.spanId", "0000000000000001"),
            "spans[3].spanId: 0000000000000001 repeats "
            "the span at resourceSpans[0].scopeSpans[0].spans[0]",
        ),
        ({"spans": []}, "<dict>: no resourceSpans: not an OTLP trace export"),
        (broken(f"{SPAN}.status", {"code": 7}), "spans[3].status.code: 7 is not one of"),
    ],
    ids=[
        "time-not-integer",
        "bad-trace-id",
        "zero-span-id",
        "bad-kind",
        "attribute-without-key",
        "bad-int",
        "two-values",
        "scope-spans-not-a-list",
        "duplicate-span-id",
        "not-otlp",
        "bad-status",
    ],
)
def test_an_ill_formed_export_names_the_field_and_what_is_wrong(
    data: dict[str, Any], message: str
) -> None:
    with pytest.raises(OtlpFormatError) as caught:
        Trace.from_otlp(data)
    assert message in str(caught.value)
    assert isinstance(caught.value, HandoffSimError)
    assert isinstance(caught.value, ValueError)


def test_parent_links_that_loop_are_an_error() -> None:
    data = adk()
    spans_of(data)[1]["parentSpanId"] = "0000000000000006"  # invoke_agent root under helper
    with pytest.raises(
        OtlpFormatError, match=r"parentSpanId: the parent links of this span form a cycle"
    ):
        Trace.from_otlp(data)


def test_attribute_values_nested_too_deep_are_an_error() -> None:
    value: dict[str, Any] = {"stringValue": "leaf"}
    for _ in range(70):
        value = {"arrayValue": {"values": [value]}}
    data = broken(f"{SPAN}.attributes.0.value", value)
    with pytest.raises(OtlpFormatError, match="nested deeper than 64 levels"):
        Trace.from_otlp(data)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "is empty: expected an OTLP JSON object with resourceSpans"),
        ("{not json", "not valid JSON"),
        ('{"resourceSpans": []}\n{oops}\n', "line 2: not valid JSON"),
        ("[1, 2]", "expected an object, got a list"),
        ("[" * 100_000, "nested too deeply"),
    ],
    ids=["empty", "not-json", "bad-json-line", "not-an-object", "deep"],
)
def test_an_unreadable_file_names_itself_and_the_problem(
    tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "trace.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(OtlpFormatError) as caught:
        Trace.from_otlp(path)
    assert str(caught.value).startswith(f"{path}: ")
    assert message in str(caught.value)


def test_a_missing_file_or_a_directory_is_a_format_error(tmp_path: Path) -> None:
    with pytest.raises(OtlpFormatError, match="cannot read"):
        Trace.from_otlp(tmp_path / "nope.json")
    with pytest.raises(OtlpFormatError, match="is a directory"):
        Trace.from_otlp(tmp_path)


def test_bytes_that_are_not_utf8_name_the_line(tmp_path: Path) -> None:
    path = tmp_path / "trace.json"
    path.write_bytes(b'{"resourceSpans": []}\n{"x": "\xff"}\n')
    with pytest.raises(OtlpFormatError, match=r"line 2: not valid UTF-8"):
        Trace.from_otlp(path)


def test_agent_runs_nested_deeper_than_the_runtime_ever_nests_are_refused() -> None:
    spans: list[dict[str, Any]] = []
    parent = None
    for depth in range(205):
        run, tool = f"{2 * depth + 1:016x}", f"{2 * depth + 2:016x}"
        spans.append(
            {"traceId": "1" * 32, "spanId": run, "name": "invoke_agent a", "attributes": []}
            | ({"parentSpanId": parent} if parent else {})
        )
        spans.append(
            {"traceId": "1" * 32, "spanId": tool, "parentSpanId": run, "name": "execute_tool t"}
        )
        parent = tool
    with pytest.raises(OtlpFormatError, match=r"spans\[402\]: agent runs nested deeper than 200"):
        Trace.from_otlp({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]})
