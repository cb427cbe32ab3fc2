"""From traces to recordings: an OTLP JSON export whose spans carry content becomes a
recording that replays; what the spans cannot say is listed, never guessed."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import yaml

from handoff_sim import ConfigurationError
from handoff_sim.cli import main
from handoff_sim.errors import OtlpError
from handoff_sim.recording import recording_from_otlp
from handoff_sim.recording._from_otlp import recording_from_otlp_data
from handoff_sim.scenarios import load_path, run_scenario
from handoff_sim.trace import Trace

if TYPE_CHECKING:
    from ._openai_server import OpenAIServer

pytest.importorskip("opentelemetry.sdk", reason="needs the optional extra 'otel'")

ROOT = Path(__file__).parents[2]
BUNDLED = [
    "scenarios/ai4j/retries_with_timeouts.yaml",
    "scenarios/ai4j/retry_recovers.yaml",
    "scenarios/ai4j/retries_exhausted.yaml",
    "scenarios/ai4j/parallel_subagents.yaml",
    "scenarios/ai4j/parallel_mixed_outcomes.yaml",
    "scenarios/ai4j/nested_depth.yaml",
    "scenarios/ai4j/nested_max_depth.yaml",
    "scenarios/ai4j/timeout_fallback.yaml",
    "scenarios/ai4j/subagent_tool_delegation.yaml",  # the mount's name is not the agent's
]


def shape(trace: Trace) -> list[tuple[Any, ...]]:
    return [
        (r.agent, r.subagent, r.tool, r.status, r.reason, r.attempts, r.depth, r.attempt_outcomes)
        for r in trace.handoffs()
    ]


@pytest.mark.parametrize("bundled", BUNDLED)
def test_R6_own_export_converted_and_replayed_gives_the_same_trace_structure(
    bundled: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    [scenario] = load_path(ROOT / bundled)
    original = run_scenario(scenario)
    exported, recording = tmp_path / "trace.json", tmp_path / "rec.yaml"
    assert main(["run", str(ROOT / bundled), "--otel", str(exported)]) == 0
    assert main(["record", "--from-otlp", str(exported), "-o", str(recording)]) == 0
    assert "not in the spans: request fingerprints" in capsys.readouterr().err
    replayed = run_scenario(recording)
    assert replayed.passed, replayed.render_failure()
    assert shape(replayed.trace) == shape(original.trace)
    assert replayed.trace.render_tree() == original.trace.render_tree()
    assert replayed.outputs == original.outputs
    assert replayed.elapsed_ms == original.elapsed_ms


def _pydantic_ai_export(tmp_path: Path, *, content: bool) -> Path:
    pytest.importorskip("pydantic_ai", reason="needs the optional extra 'pydantic-ai'")
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from pydantic_ai import Agent
    from pydantic_ai.capabilities import Instrumentation
    from pydantic_ai.models.instrumented import InstrumentationSettings

    from handoff_sim.adapters.pydantic_ai import SimModel
    from handoff_sim.otel import otlp_json
    from handoff_sim.testing import ScriptedModel

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    settings = InstrumentationSettings(tracer_provider=provider, include_content=content)
    extra: Any = {"capabilities": [Instrumentation(settings=settings)]}
    helper = Agent(
        SimModel(ScriptedModel([{"error": "flaky"}, {"text": "refunded"}])), name="billing", **extra
    )
    boss = Agent(
        SimModel(
            ScriptedModel(
                [
                    {
                        "tool_calls": [
                            {"id": "c1", "name": "billing", "arguments": {"task": "refund 42"}},
                            {"id": "c2", "name": "lookup", "arguments": {"order": 42}},
                        ]
                    },
                    {"text": "all done"},
                ]
            )
        ),
        name="triage",
        **extra,
    )

    @boss.tool_plain
    async def billing(task: str) -> str:
        try:
            return (await helper.run(task)).output
        except Exception:  # the delegate's first run fails: this tool retries it once
            return (await helper.run(task)).output

    @boss.tool_plain
    def lookup(order: int) -> str:
        return f"order {order} shipped"

    assert asyncio.run(boss.run("refund order 42")).output == "all done"
    provider.shutdown()
    path = tmp_path / "pydantic-ai.json"
    path.write_text(json.dumps(otlp_json(exporter.get_finished_spans())), encoding="utf-8")
    return path


def test_R6_pydantic_ai_instrumentation_converts_into_a_recording_that_replays(
    tmp_path: Path,
) -> None:
    source = _pydantic_ai_export(tmp_path, content=True)
    converted = recording_from_otlp(source, tmp_path / "rec.yaml")
    data = converted.data
    assert data["recorded"]["runtime"] == "pydantic-ai"
    triage = data["agents"]["triage"]
    assert triage["subagents"] == [{"agent": "billing", "tool_name": "billing"}]
    assert triage["tools"] == ["lookup"]
    assert triage["policy"] == {"max_retries": 1}  # two runs of billing in one tool call
    first = triage["model"]["script"][0]
    assert [(c["id"], c["name"], c["arguments"]) for c in first["tool_calls"]] == [
        ("c1", "billing", '{"task":"refund 42"}'),
        ("c2", "lookup", '{"order":42}'),
    ]
    assert first["usage"]["input_tokens"] > 0
    assert [
        s.get("error", s.get("text")) for s in data["agents"]["billing"]["model"]["script"]
    ] == [
        "flaky",
        "refunded",
    ]
    assert data["tools"]["lookup"]["answers"][0]["returns"] == "order 42 shipped"
    assert data["run"] == [{"input": "refund order 42"}]
    assert any("system prompt is not in the spans" in n for n in converted.notes)
    replayed = run_scenario(tmp_path / "rec.yaml")
    assert replayed.passed, replayed.render_failure()
    assert [(r.tool, r.status, r.attempts) for r in replayed.trace.handoffs()] == [
        ("billing", "completed", 2)
    ]


def test_R6_spans_without_content_say_what_is_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _pydantic_ai_export(tmp_path, content=False)
    output = tmp_path / "rec.yaml"
    assert main(["record", "--from-otlp", str(source), "-o", str(output)]) == 0
    err = capsys.readouterr().err
    assert "agent triage: the spans carry no content of its model calls' answers" in err
    notes = yaml.safe_load(output.read_text(encoding="utf-8"))["recorded"]["notes"]
    assert any("content capture was off" in note for note in notes)


@pytest.mark.slow
def test_R6_openai_agents_traces_through_openinference_convert_into_a_recording_that_replays(
    tmp_path: Path, openai_server: OpenAIServer
) -> None:
    """openai-agents' real OpenAI model talks to a local scripted server while
    openinference-instrumentation-openai-agents turns the SDK's traces into spans.

    Slow: it imports openai-agents and OpenInference (whose instrument() patches the SDK)
    and makes real HTTP calls, seconds in all on a busy machine."""
    pytest.importorskip(
        "openinference.instrumentation.openai_agents",
        reason="needs openinference-instrumentation-openai-agents",
    )
    from agents import Agent, OpenAIResponsesModel, Runner, function_tool
    from openinference.instrumentation.openai_agents import OpenAIAgentsInstrumentor
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from handoff_sim.otel import otlp_json

    from ._openai_server import Answer, Call, Lanes

    @function_tool
    def lookup(order: int) -> str:
        """Look an order up."""
        return f"order {order} shipped"

    openai_server.serve(
        Lanes(
            {
                "triage": [
                    Answer(
                        calls=(
                            Call(name="billing", arguments='{"input":"refund 42"}'),
                            Call(name="lookup", arguments='{"order":42}'),
                        )
                    ),
                    Answer(text="all done"),
                ],
                "billing": [Answer(text="refunded")],
            }
        )
    )
    client = openai_server.client()
    billing = Agent(
        name="billing",
        instructions="You are billing.",
        model=OpenAIResponsesModel("gpt-4o-mini", client),
    )
    triage = Agent(
        name="triage",
        instructions="You are triage.",
        model=OpenAIResponsesModel("gpt-4o", client),
        tools=[billing.as_tool(tool_name="billing", tool_description="refunds"), lookup],
    )
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    instrumentor = OpenAIAgentsInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    try:
        assert asyncio.run(Runner.run(triage, "refund order 42")).final_output == "all done"
    finally:
        instrumentor.uninstrument()
    openai_server.stop()  # the replay needs no server
    source = tmp_path / "openai-agents.json"
    source.write_text(json.dumps(otlp_json(exporter.get_finished_spans())), encoding="utf-8")

    converted = recording_from_otlp(source, tmp_path / "rec.yaml")
    data = converted.data
    assert data["recorded"]["runtime"] == "openai-agents"
    assert data["recorded"]["models"] == {"triage": "gpt-4o", "billing": "gpt-4o-mini"}
    assert list(data["agents"]) == ["triage", "billing"]  # no agent for the workflow span
    triage_block = data["agents"]["triage"]
    assert triage_block["system_prompt"] == "You are triage."
    assert triage_block["subagents"] == [{"agent": "billing", "tool_name": "billing"}]
    calls = triage_block["model"]["script"][0]["tool_calls"]
    assert [(c["name"], c["arguments"]) for c in calls] == [
        ("billing", '{"input":"refund 42"}'),
        ("lookup", '{"order":42}'),
    ]
    assert data["tools"]["lookup"]["parameters"]["required"] == ["order"]
    assert data["run"] == [{"input": "refund order 42"}]
    assert data["expect"]["output"] == "all done"
    replayed = run_scenario(tmp_path / "rec.yaml")
    assert replayed.passed, replayed.render_failure()
    assert [(r.agent, r.subagent, r.status) for r in replayed.trace.handoffs()] == [
        ("triage", "billing", "completed")
    ]


def test_R6_openinference_flattened_messages_become_tool_calls() -> None:
    """openai-agents traces reach OpenTelemetry through OpenInference, which flattens each
    output message into llm.output_messages.N.message.* attributes (a hand-made export)."""

    def attr(key: str, value: str) -> dict[str, Any]:
        return {"key": key, "value": {"stringValue": value}}

    t0 = 1_767_225_600 * 10**9
    common = {"traceId": "cd" * 16}
    spans = [
        common
        | {
            "spanId": "1" * 16,
            "name": "Agent workflow",
            "startTimeUnixNano": t0,
            "endTimeUnixNano": t0 + 9 * 10**8,
            "attributes": [attr("openinference.span.kind", "AGENT")],
        },
        common
        | {
            "spanId": "2" * 16,
            "parentSpanId": "1" * 16,
            "name": "triage",
            "startTimeUnixNano": t0,
            "endTimeUnixNano": t0 + 9 * 10**8,
            "attributes": [attr("openinference.span.kind", "AGENT")],
        },
        common
        | {
            "spanId": "3" * 16,
            "parentSpanId": "2" * 16,
            "name": "response",
            "startTimeUnixNano": t0,
            "endTimeUnixNano": t0 + 25 * 10**7,
            "attributes": [
                attr("openinference.span.kind", "LLM"),
                attr("llm.system", "openai"),
                attr("llm.model_name", "gpt-4o"),
                attr("llm.output_messages.0.message.role", "assistant"),
                attr("llm.output_messages.0.message.tool_calls.0.tool_call.id", "call_1"),
                attr(
                    "llm.output_messages.0.message.tool_calls.0.tool_call.function.name", "lookup"
                ),
                attr(
                    "llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments",
                    '{"order":42}',
                ),
            ],
        },
        common
        | {
            "spanId": "4" * 16,
            "parentSpanId": "2" * 16,
            "name": "lookup",
            "startTimeUnixNano": t0 + 3 * 10**8,
            "endTimeUnixNano": t0 + 4 * 10**8,
            "attributes": [
                attr("openinference.span.kind", "TOOL"),
                attr("tool.name", "lookup"),
                attr("input.value", '{"order":42}'),
                attr("output.value", "shipped"),
            ],
        },
        common
        | {
            "spanId": "5" * 16,
            "parentSpanId": "2" * 16,
            "name": "response",
            "startTimeUnixNano": t0 + 5 * 10**8,
            "endTimeUnixNano": t0 + 9 * 10**8,
            "attributes": [
                attr("openinference.span.kind", "LLM"),
                attr("llm.output_messages.0.message.content", "shipped it"),
            ],
        },
    ]
    data = recording_from_otlp_data({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}).data
    assert data["recorded"]["runtime"] == "openai-agents"
    assert list(data["agents"]) == ["triage"]  # the workflow span is no agent
    script = data["agents"]["triage"]["model"]["script"]
    assert script[0]["tool_calls"] == [
        {"id": "call_1", "name": "lookup", "arguments": '{"order":42}'}
    ]
    assert script[0]["latency"] == "250ms"
    assert script[1]["text"] == "shipped it"
    assert data["recorded"]["models"] == {"triage": "gpt-4o"}
    assert data["tools"]["lookup"]["answers"] == [
        {"arguments": {"order": 42}, "returns": "shipped", "latency": "100ms"}
    ]


def test_R6_the_conversion_never_overwrites_its_own_input(tmp_path: Path) -> None:
    source = ROOT / "tests/hostile/files/otlp_recording_content_not_json.json"
    copy = tmp_path / "trace.json"
    copy.write_bytes(source.read_bytes())
    with pytest.raises(ConfigurationError, match="would overwrite its own input"):
        recording_from_otlp(copy, tmp_path / "." / "trace.json")
    assert copy.read_bytes() == source.read_bytes()


def test_R6_a_trace_no_scenario_file_can_hold_is_refused_naming_why() -> None:
    """An agent whose tool call ran the agent itself: a scenario file cannot mount an agent
    in itself (a sub-agent cycle), so the conversion refuses rather than write a file that
    does not load."""

    def span(sid: str, parent: str | None, operation: str, **attrs: str) -> dict[str, Any]:
        found: dict[str, Any] = {
            "traceId": "ef" * 16,
            "spanId": sid * 16,
            "name": operation,
            "startTimeUnixNano": 1,
            "endTimeUnixNano": 2,
            "attributes": [
                {"key": k.replace("_", "."), "value": {"stringValue": v}}
                for k, v in {"gen_ai_operation_name": operation, **attrs}.items()
            ],
        }
        if parent:
            found["parentSpanId"] = parent * 16
        return found

    spans = [
        span("1", None, "invoke_agent", gen_ai_agent_name="loop"),
        span("2", "1", "execute_tool", gen_ai_tool_name="again"),
        span("3", "2", "invoke_agent", gen_ai_agent_name="loop"),
    ]
    data = {"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}
    with pytest.raises(OtlpError, match=r"cannot be written as a scenario file: .*sub-agent cycle"):
        recording_from_otlp_data(data)


def test_R6_a_file_of_several_traces_converts_the_one_chosen_by_trace_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    exported, recording = tmp_path / "suite.json", tmp_path / "rec.yaml"
    pair = [str(ROOT / "scenarios/ai4j/retry_recovers.yaml"), str(ROOT / BUNDLED[0])]
    assert main(["run", *pair, "--otel", str(exported)]) == 0
    capsys.readouterr()
    assert main(["record", "--from-otlp", str(exported), "-o", str(recording)]) == 2
    assert "holds 2 traces" in capsys.readouterr().err
    assert not recording.exists()
    [chosen] = load_path(ROOT / BUNDLED[0])
    name = f"{ROOT / BUNDLED[0]}::{chosen.id}"
    options = ["--trace-id", name, "-o", str(recording)]
    assert main(["record", "--from-otlp", str(exported), *options]) == 0
    assert yaml.safe_load(recording.read_text(encoding="utf-8"))["scenario"] == chosen.id
