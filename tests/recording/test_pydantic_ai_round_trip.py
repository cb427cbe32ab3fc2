"""A real pydantic-ai round trip: record over HTTP, stop the server, replay in virtual time.

pydantic-ai's own ``OpenAIChatModel`` and ``OpenAIResponsesModel`` talk through
``OpenAIProvider(base_url=...)`` to the scripted server on 127.0.0.1 while a triage
agent delegates to two agents-as-tools in parallel (the docs' delegation pattern: a
tool that runs another agent with ``usage=ctx.usage``), one of them slow. The server
is then stopped; the user's agents are built again (as a test run would build them)
and replayed from the file.
"""

# no "from __future__ import annotations": pydantic-ai reads the tool functions' annotations

import asyncio
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests._helpers import import_extra

import_extra("pydantic-ai", "pydantic_ai")
import_extra("openai-agents", "openai")  # the scripted server speaks through openai's types

from handoff_sim import Trace  # noqa: E402
from handoff_sim.adapters import runtime_factory  # noqa: E402
from handoff_sim.adapters.pydantic_ai import capture, simulate_run  # noqa: E402
from handoff_sim.errors import ReplayMismatchError  # noqa: E402
from handoff_sim.events import ModelRequestEvent, ToolEndEvent  # noqa: E402
from handoff_sim.recording import record, replay  # noqa: E402
from handoff_sim.scenarios import run_scenario  # noqa: E402

from ._openai_server import API_KEY, Answer, Call, Lanes, OpenAIServer  # noqa: E402

QUESTION = "refund order 42"
PROMPTS = {
    "triage": "You are triage. Delegate to the specialists.",
    "research": "You are research. Look up the order.",
    "billing": "You are billing. Check the invoice.",
}
SLOW, FAST = 0.3, 0.05  # research answers after SLOW seconds, billing after FAST
KINDS = ["chat", "responses"]


def script() -> Lanes:
    """Triage calls both specialists in one turn, then answers from what they said."""
    both = (
        Call(name="ask_research", arguments='{"query": "order 42: shipped?"}'),
        Call(name="ask_billing", arguments='{"query":"order 42: paid?"}'),  # raw, as sent
    )
    return Lanes(
        {
            "triage": [Answer(calls=both), Answer(text="refund approved", input_tokens=40)],
            "research": [Answer(text="shipped on monday", delay=SLOW)],
            "billing": [Answer(text="paid by card", delay=FAST)],
        }
    )


def build(
    base_url: str, kind: str, *, prompts: dict[str, str] = PROMPTS, research_tool: bool = False
) -> Any:
    """The user's agents, as their code builds them: triage and its two delegates."""
    from pydantic_ai import Agent, RunContext
    from pydantic_ai.models.openai import OpenAIChatModel, OpenAIResponsesModel
    from pydantic_ai.providers.openai import OpenAIProvider

    provider = OpenAIProvider(base_url=base_url, api_key=API_KEY)
    model = {"chat": OpenAIChatModel, "responses": OpenAIResponsesModel}[kind]
    research = Agent(
        model("gpt-4o-mini", provider=provider), name="research", instructions=prompts["research"]
    )
    billing = Agent(
        model("gpt-4o-mini", provider=provider), name="billing", instructions=prompts["billing"]
    )
    triage = Agent(
        model("gpt-4o", provider=provider), name="triage", instructions=prompts["triage"]
    )

    @triage.tool
    async def ask_research(ctx: RunContext[None], query: str) -> str:
        """Ask the research agent about an order."""
        return (await research.run(query, usage=ctx.usage)).output

    @triage.tool
    async def ask_billing(ctx: RunContext[None], query: str) -> str:
        """Ask the billing agent about an order."""
        return (await billing.run(query, usage=ctx.usage)).output

    if research_tool:

        @research.tool_plain
        def order_status(order: int) -> str:
            """The shipping status of an order."""
            return "shipped"

    return triage


def asking(triage: Any, *, stream: bool) -> Callable[[], Coroutine[Any, Any, str]]:
    """The user's run: ``run`` or ``run_stream``, returning the output."""

    async def run() -> str:
        if stream:
            async with triage.run_stream(QUESTION) as result:
                return str(await result.get_output())
        return str((await triage.run(QUESTION)).output)

    return run


@dataclass(frozen=True)
class Recorded:
    """A recording made against the live server, and what the real run did."""

    kind: str
    path: Path
    output: str
    trace: Trace
    dead_url: str  # the stopped server: nothing answers there any more


def _record(directory: Path, kind: str, *, stream: bool, in_loop: bool = False) -> Recorded:
    server = OpenAIServer()
    server.start()
    try:
        server.serve(script())
        triage = build(server.base_url, kind)
        path = directory / f"triage-{kind}{'-stream' if stream else ''}.yaml"
        run = asking(triage, stream=stream)

        async def recording_in_the_loop() -> str:  # an async test records this way
            with record(triage, path):
                return await run()

        with capture() as real:
            if in_loop:
                output = asyncio.run(recording_in_the_loop())
            else:
                with record(triage, path):
                    output = asyncio.run(run())
    finally:
        server.stop()
    assert not server.errors, server.errors
    assert not server.running
    return Recorded(kind, path, output, real.trace, server.base_url)


@pytest.fixture(scope="module", params=KINDS)
def recorded(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Recorded:
    """One real run per OpenAI model kind, recorded once for the tests of this module."""
    return _record(tmp_path_factory.mktemp("pai"), request.param, stream=False)


def shape(trace: Trace) -> list[tuple[str, str, str, str, int]]:
    """The handoff tree's structure: who delegated to whom, through which tool, how it ended."""
    return [(h.agent, h.tool, h.subagent, h.status, h.attempts) for h in trace.handoffs()]


def steps(path: Path) -> dict[str, list[dict[str, Any]]]:
    """Each agent's recorded script, as written in the file."""
    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    return {name: agent["model"]["script"] for name, agent in document["agents"].items()}


def seconds(text: str) -> float:
    """A duration of the file (``57ms``, ``1.2s``) in seconds."""
    return float(text[:-2]) / 1000 if text.endswith("ms") else float(text[:-1])


def test_replay_of_a_real_pydantic_ai_run_gives_its_output_and_handoff_tree(
    recorded: Recorded,
) -> None:
    triage = build(recorded.dead_url, recorded.kind)
    with replay(triage, recorded.path):
        replayed = simulate_run(asking(triage, stream=False))
    assert replayed.result == recorded.output == "refund approved"
    assert shape(replayed.trace) == shape(recorded.trace)
    assert shape(replayed.trace) == [
        ("triage", "ask_research", "research", "completed", 1),
        ("triage", "ask_billing", "billing", "completed", 1),
    ]
    assert not replayed.trace.unbalanced()


def test_replay_runs_at_the_recorded_latencies_in_virtual_time(recorded: Recorded) -> None:
    lanes = steps(recorded.path)
    first, last = (seconds(s["latency"]) for s in lanes["triage"])
    slow, fast = seconds(lanes["research"][0]["latency"]), seconds(lanes["billing"][0]["latency"])
    assert slow >= SLOW > fast >= FAST  # what the real server took, to the millisecond
    triage = build(recorded.dead_url, recorded.kind)
    with replay(triage, recorded.path):
        replayed = simulate_run(asking(triage, stream=False))
    # the delegates ran in parallel: the turn waits for the slow one only
    assert replayed.elapsed_ms == pytest.approx((first + slow + last) * 1000, abs=1e-6)
    durations = {h.subagent: h.duration_ms for h in replayed.trace.handoffs()}
    assert durations == pytest.approx({"research": slow * 1000, "billing": fast * 1000}, abs=1e-6)
    ends = [h.subagent for h in sorted(replayed.trace.handoffs(), key=lambda h: h.ended_at)]
    assert ends == ["billing", "research"]  # the fast one came back first, as it did


def test_recorded_steps_keep_raw_arguments_usage_and_models(recorded: Recorded) -> None:
    lanes = steps(recorded.path)
    calls = lanes["triage"][0]["tool_calls"]
    assert [c["arguments"] for c in calls] == [
        '{"query": "order 42: shipped?"}',
        '{"query":"order 42: paid?"}',
    ]
    assert lanes["triage"][1]["usage"]["input_tokens"] == 40
    assert lanes["triage"][0]["request"]["model"] == "gpt-4o"
    assert lanes["research"][0]["request"]["model"] == "gpt-4o-mini"
    assert lanes["triage"][0]["request"]["tools"] == ["ask_research", "ask_billing"]


def test_replay_fails_naming_agent_and_step_when_a_delegate_prompt_changes(
    recorded: Recorded,
) -> None:
    changed = dict(PROMPTS, research="You are research. Look up the order and the carrier.")
    triage = build(recorded.dead_url, recorded.kind, prompts=changed)
    with pytest.raises(ReplayMismatchError) as caught, replay(triage, recorded.path):
        simulate_run(asking(triage, stream=False))
    assert (caught.value.agent, caught.value.step) == ("research", 1)
    assert caught.value.differences == ["the system prompt changed"]


def test_replay_fails_naming_agent_and_step_when_a_delegate_gains_a_tool(
    recorded: Recorded,
) -> None:
    triage = build(recorded.dead_url, recorded.kind, research_tool=True)
    with pytest.raises(ReplayMismatchError) as caught, replay(triage, recorded.path):
        simulate_run(asking(triage, stream=False))
    assert (caught.value.agent, caught.value.step) == ("research", 1)
    assert caught.value.differences == ["tool added: order_status"]


def test_recording_of_a_pydantic_ai_run_never_holds_the_api_key(recorded: Recorded) -> None:
    text = recorded.path.read_text(encoding="utf-8")
    assert API_KEY not in text
    assert "SECRET" not in text
    assert str(recorded.path.parent) not in text  # no machine path either


def test_recording_of_a_pydantic_ai_run_passes_its_expectations_as_a_scenario_on_pydantic_ai(
    recorded: Recorded,
) -> None:
    make = runtime_factory("pydantic-ai")
    assert make is not None
    result = run_scenario(recorded.path, runtime=make(()))
    assert result.error is None, result.error
    assert result.passed, result.render_failure()
    assert result.outputs == ["refund approved"]


@pytest.mark.parametrize("kind", KINDS)
def test_streamed_pydantic_ai_run_records_time_to_first_chunk_and_replays_the_same(
    kind: str, tmp_path: Path
) -> None:
    recorded = _record(tmp_path, kind, stream=True)
    lanes = steps(recorded.path)
    for step in lanes["triage"]:  # the streamed turns: time to first chunk, then the rest
        assert 0 < seconds(step["first_chunk"]) <= seconds(step["latency"])
    assert "first_chunk" not in lanes["research"][0]  # delegates ran with run(): not streamed
    requests = [e.agent for e in recorded.trace.of_type(ModelRequestEvent)]
    assert sorted(requests) == sorted(name for name, lane in lanes.items() for _ in lane)
    assert all(e.status == "ok" for e in recorded.trace.of_type(ToolEndEvent))  # each call once
    triage = build(recorded.dead_url, kind)
    with replay(triage, recorded.path):
        replayed = simulate_run(asking(triage, stream=True))
    assert replayed.result == recorded.output == "refund approved"
    assert shape(replayed.trace) == shape(recorded.trace)


def test_pydantic_ai_run_recorded_inside_a_running_event_loop_replays_the_same(
    tmp_path: Path,
) -> None:
    recorded = _record(tmp_path, "chat", stream=False, in_loop=True)
    triage = build(recorded.dead_url, "chat")
    with replay(triage, recorded.path):
        replayed = simulate_run(asking(triage, stream=False))
    assert replayed.result == recorded.output == "refund approved"
    assert shape(replayed.trace) == shape(recorded.trace)
