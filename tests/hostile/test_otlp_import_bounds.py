"""OTLP import refuses, at load, what would break a later step: numbers out of bounds, names
that no output can write.

Our own export's numbers (depths, durations, counts, the epoch) are bounded as
docs/otel.md says: ``handoff_sim.handoff.depth = 2^63-1`` once raised ``OverflowError``
in ``render``, ``duration_ms: Infinity`` made ``write_report`` raise ``ValueError``. A
lone surrogate in a name or id (agent, tool, call id, span name, attribute key) crashed
``handoff-sim check`` with ``UnicodeEncodeError``; it is refused naming the span and the
attribute, while any other text (outputs, arguments, messages) holding one still imports.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from handoff_sim import Trace
from handoff_sim._limits import MAX_NESTING
from handoff_sim.cli import main
from handoff_sim.errors import BudgetExceededError, OtlpFormatError
from handoff_sim.report import ReportEntry, write_report
from tests.hostile._support import run_hostile

FILES = Path(__file__).parent / "files"
DEPTH_INT64_MAX = FILES / "otlp_handoff_depth_int64_max.json"
DURATION_INFINITY = FILES / "otlp_attempt_duration_infinity.json"
SURROGATE_AGENT = FILES / "otlp_lone_surrogate_agent_name.json"
SURROGATE_TOOL = FILES / "otlp_lone_surrogate_tool_name.json"
SURROGATE_CALL_IN_MESSAGES = FILES / "otlp_lone_surrogate_call_id_in_output_messages.json"
SURROGATE_IN_TEXT = FILES / "otlp_lone_surrogate_in_outputs_and_messages.json"
NEEDS_OTEL = "needs the optional extra 'otel': pip install 'handoff-sim[otel]'"

INT64_MAX = 2**63 - 1
LONGEST_MS = (2**64 - 1) / 1_000_000  # what an OTLP timestamp can span


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def spans(data: dict[str, Any]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = data["resourceSpans"][0]["scopeSpans"][0]["spans"]
    return found


def own_export() -> dict[str, Any]:
    """Our export of a run with one handoff of two attempts, every number back in bounds."""
    data = load(DEPTH_INT64_MAX)
    set_attribute(data, "handoff_sim.handoff.depth", {"intValue": "1"})
    return data


def set_attribute(
    data: dict[str, Any], key: str, value: dict[str, Any], *, first: bool = False
) -> int:
    """Give ``key`` the OTLP ``value`` on every span (or the first) that has it; how many."""
    hits = 0
    for span in spans(data):
        for attribute in span["attributes"]:
            if attribute["key"] == key:
                attribute["value"] = value
                hits += 1
        if first and hits:
            break
    assert hits, key
    return hits


def shown(trace: Trace, tmp_path: Path) -> None:
    """Everything that once crashed on an out-of-bounds value: text, tree, diagram, report."""
    trace.render()
    trace.render_tree()
    trace.to_mermaid()
    assert Trace.from_jsonl(trace.to_jsonl()) == trace
    write_report(
        [ReportEntry(id="x", path="p.yaml", line=1, status="passed", trace=trace)],
        tmp_path / "r.html",
    )


# -- the two reported files ------------------------------------------------------------------


def test_a_handoff_depth_of_int64_max_is_refused_at_import_naming_the_attribute() -> None:
    with pytest.raises(
        OtlpFormatError, match=r"\.attributes\[handoff_sim\.handoff\.depth\]: "
    ) as caught:
        Trace.from_otlp(DEPTH_INT64_MAX)
    assert f"{INT64_MAX} is outside the bounds 1 to {MAX_NESTING + 1}" in str(caught.value)
    assert caught.value.where.startswith("resourceSpans[0].scopeSpans[0].spans[")


def test_an_attempt_lasting_infinity_is_refused_at_import_naming_the_attribute() -> None:
    with pytest.raises(
        OtlpFormatError,
        match=r"\.attributes\[handoff_sim\.duration_ms\]: inf is not a finite duration",
    ):
        Trace.from_otlp(DURATION_INFINITY)


@pytest.mark.parametrize("path", [DEPTH_INT64_MAX, DURATION_INFINITY], ids=["depth", "duration"])
def test_check_exits_2_with_the_attribute_for_out_of_bounds_numbers(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert f"{path}: resourceSpans[0].scopeSpans[0].spans[" in err
    assert ".attributes[handoff_sim." in err


# -- every bound ------------------------------------------------------------------------------

OUT_OF_BOUNDS = {
    "run depth over the nesting bound": ("handoff_sim.depth", {"intValue": str(MAX_NESTING + 2)}),
    "negative run depth": ("handoff_sim.depth", {"intValue": "-1"}),
    "handoff depth 0": ("handoff_sim.handoff.depth", {"intValue": "0"}),
    "handoff depth over the bound": (
        "handoff_sim.handoff.depth",
        {"intValue": str(MAX_NESTING + 2)},
    ),
    "attempt duration NaN": ("handoff_sim.duration_ms", {"doubleValue": "NaN"}),
    "attempt duration negative": ("handoff_sim.duration_ms", {"doubleValue": -0.5}),
    "attempt duration 1e300": ("handoff_sim.duration_ms", {"doubleValue": 1e300}),
    "handoff duration -Infinity": ("handoff_sim.handoff.duration_ms", {"doubleValue": "-Infinity"}),
    "handoff duration past 2^64 ns": (
        "handoff_sim.handoff.duration_ms",
        {"doubleValue": LONGEST_MS * 2},
    ),
    "step 0": ("handoff_sim.step", {"intValue": "0"}),
    "negative steps": ("handoff_sim.steps", {"intValue": "-3"}),
    "negative message count": ("handoff_sim.messages", {"intValue": "-1"}),
    "attempt 0": ("handoff_sim.attempt", {"intValue": "0"}),
    "negative attempts": ("handoff_sim.handoff.attempts", {"intValue": "-1"}),
}


@pytest.mark.parametrize(("key", "value"), OUT_OF_BOUNDS.values(), ids=OUT_OF_BOUNDS.keys())
def test_every_number_of_our_export_outside_its_bounds_is_refused_naming_it(
    key: str, value: dict[str, Any]
) -> None:
    data = own_export()
    set_attribute(data, key, value, first=True)
    where = rf"spans\[\d+\]\.attributes\[{re.escape(key)}\]: "
    with pytest.raises(OtlpFormatError, match=where):
        Trace.from_otlp(data)


IN_BOUNDS = {
    "the longest duration": ("handoff_sim.handoff.duration_ms", {"doubleValue": LONGEST_MS}),
    "a duration of 31 years": ("handoff_sim.duration_ms", {"doubleValue": 1e12}),
    "a zero duration": ("handoff_sim.duration_ms", {"doubleValue": 0}),
    "the deepest handoff": ("handoff_sim.handoff.depth", {"intValue": str(MAX_NESTING + 1)}),
    "the largest count": ("handoff_sim.messages", {"intValue": str(INT64_MAX)}),
}


@pytest.mark.parametrize(("key", "value"), IN_BOUNDS.values(), ids=IN_BOUNDS.keys())
def test_numbers_at_the_bounds_import_and_show_everywhere(
    key: str, value: dict[str, Any], tmp_path: Path
) -> None:
    data = own_export()
    set_attribute(data, key, value, first=True)
    shown(Trace.from_otlp(data), tmp_path)


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ({"intValue": "-1"}, "-1 is not a time from 0 to 2^64-1 ns"),
        ({"stringValue": "soon"}, "not an integer"),
    ],
    ids=["negative", "a string"],
)
def test_an_epoch_that_is_no_time_is_refused_naming_the_resource_attribute(
    value: dict[str, Any], problem: str
) -> None:
    data = own_export()
    resource = data["resourceSpans"][0]["resource"]["attributes"]
    [epoch] = [a for a in resource if a["key"] == "handoff_sim.epoch_unix_nano"]
    epoch["value"] = value
    where = r"resourceSpans\[0\]\.resource\.attributes\[handoff_sim\.epoch_unix_nano\]"
    with pytest.raises(OtlpFormatError, match=rf"{where}: {re.escape(problem)}"):
        Trace.from_otlp(data)


def test_our_export_at_the_nesting_limit_reads_back_the_same() -> None:
    pytest.importorskip("opentelemetry.sdk", reason=NEEDS_OTEL)
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from handoff_sim.otel import export_trace, otlp_json
    from tests.hostile.test_cycles_and_budget import chain

    # The deepest run is at 200 and its handoff (refused by the budget) at 201, with its attempt.
    trace = run_hostile(chain(MAX_NESTING + 1), expect=BudgetExceededError).trace
    assert max(e.depth for e in trace if e.type == "handoff_attempt_start") == MAX_NESTING + 1
    exporter = InMemorySpanExporter()
    export_trace(trace, exporter)
    assert Trace.from_otlp(otlp_json(exporter.get_finished_spans())) == trace


# -- lone surrogates ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "where"),
    [
        (SURROGATE_AGENT, "spans[0].attributes[gen_ai.agent.name]"),
        (SURROGATE_TOOL, "spans[2].attributes[gen_ai.tool.name]"),
        (SURROGATE_CALL_IN_MESSAGES, "spans[1].attributes[gen_ai.output.messages]"),
    ],
    ids=["agent name", "tool name", "call id in the model's answer"],
)
def test_check_refuses_a_lone_surrogate_in_a_name_naming_the_span_and_attribute(
    path: Path, where: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}: resourceSpans[0].scopeSpans[0].{where}: " in err
    assert "contains a lone surrogate U+D800, which cannot be written as UTF-8" in err
    err.encode("utf-8")  # nothing unwritable reached the terminal


def _refused(change: Callable[[dict[str, Any]], None]) -> OtlpFormatError:
    data = load(SURROGATE_IN_TEXT)
    change(data)
    with pytest.raises(OtlpFormatError) as caught:
        Trace.from_otlp(data)
    assert "contains a lone surrogate U+DFFF, which cannot be written as UTF-8" in str(caught.value)
    return caught.value


def test_a_lone_surrogate_in_a_span_name_is_refused_naming_the_span() -> None:
    error = _refused(lambda d: spans(d)[3].update(name="chat \udfff"))
    assert error.where == "resourceSpans[0].scopeSpans[0].spans[3].name"


def test_a_lone_surrogate_in_an_attribute_key_is_refused_naming_the_attribute() -> None:
    error = _refused(lambda d: spans(d)[0]["attributes"][0].update(key="gen_ai.\udfff"))
    assert error.where == "resourceSpans[0].scopeSpans[0].spans[0].attributes[0].key"


def test_a_lone_surrogate_in_a_trace_name_is_refused_naming_the_resource_attribute() -> None:
    def name_it(data: dict[str, Any]) -> None:
        name = {"key": "handoff_sim.trace.name", "value": {"stringValue": "suite\udfff"}}
        data["resourceSpans"][0]["resource"]["attributes"].append(name)

    error = _refused(name_it)
    assert error.where == "resourceSpans[0].resource.attributes[handoff_sim.trace.name]"


def test_a_lone_surrogate_in_an_offered_tool_name_is_refused() -> None:
    def offer(data: dict[str, Any]) -> None:
        tools = json.dumps([{"name": "look\udfff"}])
        attribute = {"key": "gen_ai.tool.definitions", "value": {"stringValue": tools}}
        spans(data)[1]["attributes"].append(attribute)

    error = _refused(offer)
    assert (
        error.where == "resourceSpans[0].scopeSpans[0].spans[1].attributes[gen_ai.tool.definitions]"
    )


def test_a_lone_surrogate_in_a_name_held_in_a_list_is_refused() -> None:
    def as_list(data: dict[str, Any]) -> None:
        value = {"arrayValue": {"values": [{"stringValue": "bot\udfff"}]}}
        spans(data)[0]["attributes"].append({"key": "agent.name", "value": value})

    error = _refused(as_list)
    assert error.where == "resourceSpans[0].scopeSpans[0].spans[0].attributes[agent.name]"


def test_outputs_arguments_and_messages_with_lone_surrogates_import_and_show(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = Trace.from_otlp(SURROGATE_IN_TEXT)
    [end] = trace.of_type("run_end")
    assert end.output == "done \ud800 half"
    [tool] = trace.of_type("tool_end")
    assert (tool.output, tool.status) == ("found \ud800", "error")
    [start] = trace.of_type("tool_start")
    assert json.loads(start.arguments) == {"q": "x\ud800"}
    shown(trace, tmp_path)
    assert main(["check", str(SURROGATE_IN_TEXT)]) == 0
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    (captured.out + captured.err).encode("utf-8")


def test_our_export_of_an_output_holding_a_lone_surrogate_reads_back(tmp_path: Path) -> None:
    pytest.importorskip("opentelemetry.sdk", reason=NEEDS_OTEL)
    from handoff_sim.otel._suite import OtelSuite

    original = Trace.from_otlp(SURROGATE_IN_TEXT)
    suite = OtelSuite(tmp_path / "out.json")
    suite.add_trace("half", original, {})
    suite.write()
    raw = (tmp_path / "out.json").read_bytes()
    assert b"\\ud800" in raw  # a JSON escape: the file is valid UTF-8
    assert Trace.from_otlp(tmp_path / "out.json") == original
