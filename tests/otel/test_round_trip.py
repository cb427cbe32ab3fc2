"""Round trip: every bundled scenario's trace, exported as OTLP JSON and read back, is the same."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from handoff_sim import Trace
from handoff_sim.scenarios import LoadedScenario, load_path, run_scenario
from tests.otel._support import NEEDS_OTEL, NESTED_PARALLEL

pytest.importorskip("opentelemetry.sdk", reason=NEEDS_OTEL)

from handoff_sim.errors import OtlpFormatError
from handoff_sim.otel import encode_traces, write_otlp_json
from handoff_sim.trace import read_otlp

BUNDLED = Path(__file__).resolve().parents[2] / "scenarios"
SCENARIOS = load_path(BUNDLED)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.id for s in SCENARIOS])
def test_export_then_import_gives_the_same_handoffs_tree_and_events(
    scenario: LoadedScenario, tmp_path: Path
) -> None:
    trace = run_scenario(scenario).trace
    path = tmp_path / "trace.json"
    write_otlp_json({scenario.id: trace}, path)
    back = Trace.from_otlp(path)
    assert back.handoffs() == trace.handoffs()
    assert back.render_tree() == trace.render_tree()
    assert back == trace  # every event, field and time
    assert back.unmapped == ()
    assert back.name == (scenario.id if len(trace) else None)


def test_a_suite_file_holds_one_trace_per_scenario_found_by_name(tmp_path: Path) -> None:
    traces = {s.id: run_scenario(s).trace for s in SCENARIOS[:12]}
    path = tmp_path / "suite.json"
    write_otlp_json(traces, path)
    back = {t.name: t for t in read_otlp(path)}
    assert back == {name: trace for name, trace in traces.items() if len(trace)}
    some = next(name for name, trace in traces.items() if len(trace))
    assert Trace.from_otlp(path, trace_id=some) == traces[some]


def test_the_written_file_is_standard_otlp_json(tmp_path: Path) -> None:
    trace = run_scenario(NESTED_PARALLEL).trace
    data = write_otlp_json(trace, tmp_path / "t.json")
    assert json.loads((tmp_path / "t.json").read_text(encoding="utf-8")) == data
    [resource] = data["resourceSpans"]
    keys = {a["key"]: a["value"] for a in resource["resource"]["attributes"]}
    assert keys["service.name"] == {"stringValue": "handoff-sim"}
    [scope] = resource["scopeSpans"]
    assert scope["scope"]["name"] == "handoff_sim"
    span = next(s for s in scope["spans"] if s["name"] == "invoke_agent worker")
    assert set(span) >= {"traceId", "spanId", "parentSpanId", "name", "kind", "startTimeUnixNano"}
    assert len(span["traceId"]) == 32
    assert len(span["spanId"]) == 16
    assert span["kind"] == 1  # SPAN_KIND_INTERNAL
    assert span["startTimeUnixNano"] == str(1_767_225_600 * 10**9)
    assert span["endTimeUnixNano"] == str(1_767_225_600 * 10**9 + 200 * 10**6)
    values = {a["key"]: a["value"] for a in span["attributes"]}
    assert values["handoff_sim.depth"] == {"intValue": "2"}
    assert values["gen_ai.agent.name"] == {"stringValue": "worker"}
    kinds = {"stringValue", "intValue", "boolValue", "doubleValue", "arrayValue"}
    for each in scope["spans"]:
        for attribute in each["attributes"]:
            assert len(attribute["value"]) == 1
            assert set(attribute["value"]) <= kinds


def test_unnamed_identical_traces_stay_apart() -> None:
    trace = run_scenario(NESTED_PARALLEL).trace
    ids = [t.trace_id for t in read_otlp(encode_traces([trace, trace]))]
    assert len(ids) == 2
    assert ids[0] != ids[1]


def test_a_wrong_value_in_our_own_attributes_names_the_attribute() -> None:
    data = encode_traces({"n": run_scenario(NESTED_PARALLEL).trace})
    spans = data["resourceSpans"][0]["scopeSpans"][0]["spans"]
    index, span = next(
        (i, s) for i, s in enumerate(spans) if s["name"] == "execute_tool delegate_secret"
    )
    for attribute in span["attributes"]:
        if attribute["key"] == "handoff_sim.handoff.status":
            attribute["value"] = {"stringValue": "maybe"}
    with pytest.raises(OtlpFormatError) as caught:
        Trace.from_otlp(data)
    assert str(caught.value) == (
        f"<dict>: resourceSpans[0].scopeSpans[0].spans[{index}]"
        ".attributes[handoff_sim.handoff.status]: 'maybe' is not one of completed, failed, "
        "denied, fallback, unavailable, cancelled"
    )
