"""Hostile OTLP exports handed to the trace-to-recording conversion: each is refused with
a typed error naming the span (its field path in the file), and nothing is written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from handoff_sim.cli import main
from handoff_sim.errors import OtlpFormatError
from handoff_sim.recording import recording_from_otlp
from handoff_sim.recording._from_otlp import recording_from_otlp_data

FILES = Path(__file__).parent / "files"
T0 = 1_767_225_600 * 10**9


@pytest.mark.parametrize(
    ("name", "where", "said"),
    [
        ("otlp_recording_chat_lasts_317_years.json", "spans[1]: span 'chat'", "a virtual year"),
        ("otlp_recording_chat_lasts_1e12_seconds.json", "spans[1].endTimeUnixNano", "2^64-1"),
        (
            "otlp_recording_content_not_json.json",
            "spans[1].attributes[gen_ai.output.messages]: span 'chat'",
            "the captured content is not JSON",
        ),
        ("otlp_recording_chat_ends_before_it_starts.json", "spans[1]: span 'chat'", "ends before"),
    ],
)
def test_R6_hostile_export_is_refused_naming_the_span_and_writes_nothing(
    name: str, where: str, said: str, tmp_path: Path
) -> None:
    output = tmp_path / "rec.yaml"
    with pytest.raises(OtlpFormatError) as caught:
        recording_from_otlp(FILES / name, output)
    assert where in str(caught.value)
    assert said in str(caught.value)
    assert list(tmp_path.iterdir()) == []  # no recording, no temporary file


def test_R6_hostile_export_is_a_usage_error_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = FILES / "otlp_recording_content_not_json.json"
    assert main(["record", "--from-otlp", str(source), "-o", str(tmp_path / "r.yaml")]) == 2
    assert "the captured content is not JSON" in capsys.readouterr().err


def _attribute(key: str, value: str) -> dict[str, Any]:
    return {"key": key, "value": {"stringValue": value}}


def test_R6_a_trace_of_more_model_calls_than_a_replay_may_make_is_refused() -> None:
    """10,001 model calls in one run: over the run's model-call budget, refused at the
    span that goes over it, after reading the file once (no quadratic walk)."""
    run = {
        "traceId": "ab" * 16,
        "spanId": "f" * 16,
        "name": "invoke_agent boss",
        "startTimeUnixNano": str(T0),
        "endTimeUnixNano": str(T0 + 10**9),
        "attributes": [
            _attribute("gen_ai.operation.name", "invoke_agent"),
            _attribute("gen_ai.agent.name", "boss"),
        ],
    }
    chats = [
        {
            "traceId": "ab" * 16,
            "spanId": f"{index + 1:016x}",
            "parentSpanId": "f" * 16,
            "name": "chat",
            "startTimeUnixNano": str(T0 + index),
            "endTimeUnixNano": str(T0 + index + 1),
            "attributes": [_attribute("gen_ai.operation.name", "chat")],
        }
        for index in range(10_001)
    ]
    data = {"resourceSpans": [{"scopeSpans": [{"spans": [run, *chats]}]}]}
    with pytest.raises(OtlpFormatError, match="more than 10,000 model calls") as caught:
        recording_from_otlp_data(data)
    assert "spans[10001]: span 'chat'" in str(caught.value)
