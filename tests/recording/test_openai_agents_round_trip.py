"""Record once over real HTTP, replay in virtual time: openai-agents' own OpenAI models.

openai-agents' real ``OpenAIResponsesModel`` and ``OpenAIChatCompletionsModel`` talk to
the scripted OpenAI server on 127.0.0.1 while a triage agent delegates to two agents as
tools in parallel, one of them slow. The server is then stopped: the replay runs the
same agent graph (its prompts, its tools) on the recording alone, in virtual time.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from handoff_sim.scenarios import load_path
from tests._helpers import needs_extra

if TYPE_CHECKING:
    from agents import Agent, RunResult
    from agents.models.interface import Model

    from handoff_sim import Trace

    from ._openai_server import OpenAIServer

pytestmark = needs_extra("openai-agents", "agents")

QUESTION = "refund order 42 and tell me where it is"
FINAL = "Refund issued; the order shipped yesterday."
SLOW = 0.25  # seconds the server takes to answer the shipping agent (billing: 30 ms)
PROMPTS = {
    "triage": "You are triage: send billing and shipping questions to their agents.",
    "billing": "You are billing: you issue refunds.",
    "shipping": "You are shipping: you track parcels.",
}


def _script() -> Any:
    from ._openai_server import Answer, Call, Lanes

    calls = (
        Call(name="billing", arguments='{"input": "refund order 42"}'),
        Call(name="shipping", arguments='{"input": "where is order 42?"}'),
    )
    return Lanes(
        {
            "triage": [
                Answer(calls=calls, delay=0.04, input_tokens=120, output_tokens=30),
                Answer(text=FINAL, delay=0.03, input_tokens=180, output_tokens=12),
            ],
            "billing": [Answer(text="refund issued", delay=0.03, input_tokens=40)],
            "shipping": [Answer(text="shipped yesterday", delay=SLOW, input_tokens=41)],
        }
    )


def _graph(model: Callable[[], Model | None], **changes: Any) -> Agent[None]:
    """The user's triage graph; ``changes`` edits it (``billing=`` a prompt, ``tools=``)."""
    from agents import Agent, ModelSettings

    def agent(name: str) -> Agent[None]:
        return Agent(name=name, instructions=changes.get(name, PROMPTS[name]), model=model())

    billing, shipping = agent("billing"), agent("shipping")
    return Agent(
        name="triage",
        instructions=PROMPTS["triage"],
        model=model(),
        model_settings=ModelSettings(parallel_tool_calls=True),
        tools=[
            billing.as_tool(tool_name="billing", tool_description="refunds and invoices"),
            shipping.as_tool(tool_name="shipping", tool_description="parcel tracking"),
            *changes.get("tools", []),
        ],
    )


async def _streamed(triage: Agent[None]) -> RunResult:
    from agents import Runner

    streamed = Runner.run_streamed(triage, QUESTION)
    async for _ in streamed.stream_events():
        pass
    return streamed  # type: ignore[return-value]  # the result of a streamed run, complete


def _structure(trace: Trace) -> list[tuple[Any, ...]]:
    """The handoff tree as the assertions read it: who, to whom, how it ended, with what."""
    return sorted(
        (h.agent, h.subagent, h.tool, h.status, h.attempts, h.depth, h.output)
        for h in trace.handoffs()
    )


def _latencies(path: Path) -> dict[str, list[float]]:
    """Each agent's recorded step latencies (seconds, as the file gives them)."""
    spec = load_path(path)[0].spec
    return {
        name: [step.latency for step in agent.model.script]  # type: ignore[union-attr]
        for name, agent in spec.agents.items()
    }


EXPECTED = [
    ("triage", "billing", "billing", "completed", 1, 1, "refund issued"),
    ("triage", "shipping", "shipping", "completed", 1, 1, "shipped yesterday"),
]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A streamed run over the Responses API, recorded once with ``record(...)``; the
    server stopped afterwards. Gives the file and the run's real final output."""
    from agents import OpenAIResponsesModel

    from handoff_sim.recording import record

    from ._openai_server import OpenAIServer

    server = OpenAIServer()
    server.start()
    server.serve(_script())
    client = server.client()
    triage = _graph(lambda: OpenAIResponsesModel(model="gpt-4o", openai_client=client))
    path = tmp_path_factory.mktemp("recorded") / "triage.yaml"

    async def main() -> str:
        try:
            return str((await _streamed(triage)).final_output)
        finally:
            await client.close()

    try:
        with record(triage, path):
            output = asyncio.run(main())
    finally:
        server.stop()
    assert server.errors == []
    assert len(server.requests) == 4
    assert {r.authorization for r in server.requests} == {f"Bearer {client.api_key}"}
    return path, output


def test_a_streamed_responses_run_replays_in_virtual_time_at_its_recorded_latencies(
    recorded: tuple[Path, str],
) -> None:
    from agents import Runner

    from handoff_sim.adapters.openai_agents import simulate_run
    from handoff_sim.recording import replay

    path, output = recorded
    triage = _graph(lambda: None)  # the user's own graph, no model of its own
    started = time.perf_counter()
    with replay(triage, path):
        simulated = simulate_run(Runner.run(triage, QUESTION))
    wall = time.perf_counter() - started

    assert output == FINAL
    assert simulated.result.final_output == output
    assert _structure(simulated.trace) == EXPECTED
    steps = _latencies(path)
    critical = steps["triage"][0] + max(steps["billing"][0], steps["shipping"][0])
    assert simulated.elapsed_ms == pytest.approx((critical + steps["triage"][1]) * 1000, abs=1e-6)
    assert steps["shipping"][0] >= SLOW  # the server's real delay, recorded
    assert wall < simulated.elapsed_ms / 1000  # virtual time: the latencies cost no wall time


def test_streamed_steps_keep_their_time_to_first_chunk(recorded: tuple[Path, str]) -> None:
    path, _ = recorded
    script = load_path(path)[0].spec.agents["triage"].model.script  # type: ignore[union-attr]
    for step in script:
        assert step.first_chunk is not None
        assert 0 < step.first_chunk <= step.latency


def test_the_api_key_never_reaches_the_recording(recorded: tuple[Path, str]) -> None:
    from ._openai_server import API_KEY

    text = recorded[0].read_text()
    assert API_KEY not in text
    assert "sk-test" not in text


def test_a_changed_sub_agent_prompt_fails_the_replay_naming_the_agent_and_step(
    recorded: tuple[Path, str],
) -> None:
    from agents import Runner

    from handoff_sim.adapters.openai_agents import simulate_run
    from handoff_sim.errors import ReplayMismatchError
    from handoff_sim.recording import replay

    triage = _graph(lambda: None, billing="You are billing: you refund twice.")
    with pytest.raises(ReplayMismatchError) as raised, replay(triage, recorded[0]):
        simulate_run(Runner.run(triage, QUESTION))
    assert raised.value.agent == "billing"
    assert raised.value.step == 1
    assert any("system prompt" in line for line in raised.value.differences)


def test_an_added_tool_fails_the_replay_naming_the_tool(recorded: tuple[Path, str]) -> None:
    from agents import Runner, function_tool

    from handoff_sim.adapters.openai_agents import simulate_run
    from handoff_sim.errors import ReplayMismatchError
    from handoff_sim.recording import replay

    @function_tool
    def lookup(order: int) -> str:
        """Look an order up."""
        return f"order {order}"

    triage = _graph(lambda: None, tools=[lookup])
    with pytest.raises(ReplayMismatchError) as raised, replay(triage, recorded[0]):
        simulate_run(Runner.run(triage, QUESTION))
    assert raised.value.agent == "triage"
    assert raised.value.step == 1
    assert any("lookup" in line for line in raised.value.differences)


def test_the_recording_passes_as_a_scenario_on_the_openai_agents_runtime(
    recorded: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    from handoff_sim.cli import main

    assert main(["run", "--runtime", "openai-agents", str(recorded[0])]) == 0
    assert "1 passed" in capsys.readouterr().out


def test_a_chat_completions_run_replays_with_the_recorded_trace_and_usage(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    from agents import OpenAIChatCompletionsModel, Runner

    from handoff_sim.adapters.openai_agents import recording, simulate_run
    from handoff_sim.recording import Recorder, replay

    openai_server.serve(_script())
    client = openai_server.client()
    triage = _graph(lambda: OpenAIChatCompletionsModel(model="gpt-4o-mini", openai_client=client))
    recorder = Recorder(runtime="openai-agents")

    async def main() -> RunResult:
        try:
            return await Runner.run(triage, QUESTION)
        finally:
            await client.close()

    with recording(triage, recorder) as session:
        real = asyncio.run(main())
    openai_server.stop()
    path = recorder.write(
        tmp_path / "chat.yaml",
        session.capture.trace,
        scenario="chat",
        inputs=[QUESTION],
        agents=None,
    )

    replayed = _graph(lambda: None)
    with replay(replayed, path):
        simulated = simulate_run(Runner.run(replayed, QUESTION))
    assert simulated.result.final_output == real.final_output == FINAL
    assert _structure(simulated.trace) == _structure(session.capture.trace) == EXPECTED
    used, recorded_usage = simulated.result.context_wrapper.usage, real.context_wrapper.usage
    assert (used.input_tokens, used.output_tokens) == (
        recorded_usage.input_tokens,
        recorded_usage.output_tokens,
    )
    assert used.input_tokens == 120 + 180 + 40 + 41  # every call, as the server counted it


def test_recorded_delegation_arguments_replay_as_recorded_never_translated(
    openai_server: OpenAIServer, tmp_path: Path
) -> None:
    """A model that called ``billing`` with ``{"task": ...}`` got the SDK's validation
    error back; a scenario replay on openai-agents must hand the SDK those very
    arguments, not the ``{"input": ...}`` a hand-written scenario's ``task`` becomes."""
    from agents import OpenAIResponsesModel, Runner

    from handoff_sim.adapters import runtime_factory
    from handoff_sim.recording import record
    from handoff_sim.scenarios import run_scenario

    from ._openai_server import Answer, Call, Lanes

    wrong = Call(name="billing", arguments='{"task": "refund order 42"}')
    openai_server.serve(
        Lanes({"triage": [Answer(calls=(wrong,)), Answer(text="I could not reach billing.")]})
    )
    client = openai_server.client()
    triage = _graph(lambda: OpenAIResponsesModel(model="gpt-4o", openai_client=client))
    path = tmp_path / "wrong_arguments.yaml"

    async def main() -> RunResult:
        try:
            return await Runner.run(triage, QUESTION)
        finally:
            await client.close()

    with record(triage, path):
        real = asyncio.run(main())
    openai_server.stop()
    assert real.final_output == "I could not reach billing."
    assert '{"task": "refund order 42"}' in path.read_text()

    make = runtime_factory("openai-agents")
    assert make is not None
    result = run_scenario(path, runtime=make(()))
    assert result.error is None
    assert result.passed, result.mismatches
    assert result.outputs == ["I could not reach billing."]
