"""record(..., tools="recorded") on openai-agents and pydantic-ai: plain tools replayed as fakes.

The "real" models are handoff-sim's fakes inside each framework's ``SimModel``; the "real"
tool counts its calls, so a replay that called it would show. (The first test of each
framework pays for importing it: a few seconds for the SDK on a loaded machine.)
"""

# no "from __future__ import annotations": pydantic-ai reads the tool functions' annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from handoff_sim.errors import ToolReplayMismatchError
from handoff_sim.events import ToolEndEvent
from handoff_sim.scenarios import load_path
from handoff_sim.testing import ScriptedModel
from tests._helpers import needs_extra

_OAI = needs_extra("openai-agents", "agents")
_PAI = needs_extra("pydantic-ai", "pydantic_ai")


def _call(call_id: str, name: str, arguments: str) -> dict[str, str]:
    return {"id": call_id, "name": name, "arguments": arguments}


def _spec(path: Path) -> Any:
    (loaded,) = load_path(path)
    return loaded.spec


def _run_as_a_scenario(path: Path) -> Any:
    """The file run standalone, on the framework it was recorded on, its expectations checked."""
    from handoff_sim.adapters import runtime_factory
    from handoff_sim.scenarios import run_scenario

    make = runtime_factory(_spec(path).recorded.runtime)
    assert make is not None
    return run_scenario(path, runtime=make(()))


def _tool_statuses(trace: Any) -> list[tuple[str, str]]:
    return [(e.tool, e.status) for e in trace.of_type(ToolEndEvent)]


# -- openai-agents ------------------------------------------------------------------------


def _oai_lookup(calls: list[int]) -> Any:
    from agents import function_tool

    @function_tool
    def lookup(order: int) -> str:
        """Look an order up."""
        calls.append(order)
        if order == 13:
            raise ValueError("order 13 is cursed")
        return f"order {order} shipped"

    return lookup


def _oai_triage(calls: list[int], *steps: Any, **kwargs: Any) -> Any:
    from agents import Agent

    from handoff_sim.adapters.openai_agents import SimModel

    return Agent(
        name="triage",
        instructions="You triage.",
        model=SimModel(ScriptedModel(list(steps))),
        tools=[_oai_lookup(calls), *kwargs.pop("tools", [])],
        **kwargs,
    )


@_OAI
def test_openai_agents_recorded_tool_is_replayed_without_calling_the_real_function(
    tmp_path: Path,
) -> None:
    from agents import Runner

    from handoff_sim.adapters.openai_agents import simulate_run
    from handoff_sim.recording import record, replay

    calls: list[int] = []
    triage = _oai_triage(
        calls,
        {"tool_calls": [_call("c1", "lookup", '{"order": 42}')]},
        {"text": "Order 42 shipped."},
    )
    path = tmp_path / "oai.yaml"
    with record(triage, path, tools="recorded"):
        real = asyncio.run(Runner.run(triage, "where is 42"))
    assert calls == [42]
    spec = _spec(path)
    assert spec.recorded.tools == "recorded"
    (answer,) = spec.tools["lookup"].answers
    assert (answer.arguments, answer.returns) == ({"order": 42}, "order 42 shipped")

    calls.clear()
    with replay(triage, path):
        replayed = simulate_run(Runner.run(triage, "where is 42"))
    assert calls == []
    assert replayed.final_output == real.final_output == "Order 42 shipped."


@_OAI
def test_openai_agents_tool_error_is_replayed_as_the_text_the_model_saw(tmp_path: Path) -> None:
    from agents import Runner

    from handoff_sim.adapters.openai_agents import capture, simulate_run
    from handoff_sim.recording import record, replay

    calls: list[int] = []
    triage = _oai_triage(
        calls,
        {"tool_calls": [_call("c1", "lookup", '{"order": 13}')]},
        {"text": "Order 13 could not be looked up."},
    )
    path = tmp_path / "error.yaml"
    with capture() as recorded, record(triage, path, tools="recorded"):
        asyncio.run(Runner.run(triage, "where is 13"))
    seen = triage.model.client.requests[1].messages[-1].content  # what the real model was told
    (answer,) = _spec(path).tools["lookup"].answers
    assert answer.raises.message == seen
    assert "order 13 is cursed" not in seen  # the SDK's default failure text, as recorded

    calls.clear()
    with replay(triage, path):  # a changed text would fail the next request's fingerprint
        replayed = simulate_run(Runner.run(triage, "where is 13"))
    assert calls == []
    assert replayed.final_output == "Order 13 could not be looked up."
    assert _tool_statuses(replayed.trace) == _tool_statuses(recorded.trace) == [("lookup", "error")]
    standalone = _run_as_a_scenario(path)  # its fake tool gives the model the same text
    assert standalone.passed, standalone.mismatches
    assert _tool_statuses(standalone.trace) == [("lookup", "error")]


@_OAI
def test_openai_agents_agent_used_as_tool_is_no_plain_tool_and_stays_live(tmp_path: Path) -> None:
    from agents import Agent, Runner

    from handoff_sim.adapters.openai_agents import SimModel, simulate_run
    from handoff_sim.recording import record, replay

    billing = Agent(name="billing", model=SimModel(ScriptedModel(["refunded"])))
    mount = billing.as_tool(tool_name="billing", tool_description="Billing questions.")
    calls: list[int] = []
    triage = _oai_triage(
        calls,
        {"tool_calls": [_call("c1", "billing", '{"input": "refund 42"}')]},
        {"tool_calls": [_call("c2", "lookup", '{"order": 42}')]},
        "done",
        tools=[mount],
    )
    before = list(triage.tools)
    path = tmp_path / "mount.yaml"
    with record(triage, path, tools="recorded") as recorder:
        asyncio.run(Runner.run(triage, "refund 42"))
    assert [c.name for c in recorder.tool_calls] == ["lookup"]
    assert set(_spec(path).tools) == {"lookup"}
    assert triage.tools == before  # put back: the same tool objects
    assert all(now is then for now, then in zip(triage.tools, before, strict=True))

    with replay(triage, path):  # billing's own lane answers: its model ran, replayed
        replayed = simulate_run(Runner.run(triage, "refund 42"))
    assert replayed.final_output == "done"
    assert calls == [42]  # recorded once, never again


@_OAI
def test_openai_agents_tool_call_never_recorded_fails_the_run_naming_the_tool_inside_an_agent_tool(
    tmp_path: Path,
) -> None:
    from agents import Agent, Runner

    from handoff_sim.adapters.openai_agents import SimModel, simulate_run
    from handoff_sim.recording import record, replay

    calls: list[int] = []
    billing = Agent(
        name="billing",
        model=SimModel(
            ScriptedModel([{"tool_calls": [_call("b1", "lookup", '{"order": 42}')]}, "ok"])
        ),
        tools=[_oai_lookup(calls)],
    )
    mount = billing.as_tool(tool_name="billing", tool_description="Billing questions.")
    triage = Agent(
        name="triage",
        model=SimModel(
            ScriptedModel([{"tool_calls": [_call("c1", "billing", '{"input": "42"}')]}, "done"])
        ),
        tools=[mount],
    )
    path = tmp_path / "args.yaml"
    with record(triage, path, tools="recorded"):
        asyncio.run(Runner.run(triage, "where is 42"))
    text = path.read_text()
    assert text.count("order: 42\n") == 1  # the recorded answer's arguments, edited by hand
    path.write_text(text.replace("order: 42\n", "order: 7\n"))
    # as_tool would hand billing's error to triage's model as a tool result: the run fails
    with pytest.raises(ToolReplayMismatchError) as failed, replay(triage, path):
        simulate_run(Runner.run(triage, "where is 42"))
    assert failed.value.tool == "lookup"
    assert calls == [42]


# -- pydantic-ai --------------------------------------------------------------------------


def _pai_graph(calls: list[int], *steps: Any) -> Any:
    from pydantic_ai import Agent, RunContext

    from handoff_sim.adapters.pydantic_ai import SimModel

    billing = Agent(SimModel(ScriptedModel(["refunded"])), name="billing")
    triage = Agent(SimModel(ScriptedModel(list(steps))), name="triage", instructions="You triage.")

    @triage.tool_plain
    def lookup(order: int) -> str:
        """Look an order up."""
        calls.append(order)
        if order == 13:
            raise ValueError("order 13 is cursed")
        return f"order {order} shipped"

    @triage.tool
    async def ask_billing(ctx: RunContext[None], query: str) -> str:
        """Ask billing."""
        return (await billing.run(query, usage=ctx.usage)).output

    return triage


@_PAI
def test_pydantic_ai_recorded_tool_is_replayed_and_a_delegation_tool_stays_live(
    tmp_path: Path,
) -> None:
    from handoff_sim.adapters.pydantic_ai import simulate_run
    from handoff_sim.recording import record, replay

    calls: list[int] = []
    triage = _pai_graph(
        calls,
        {
            "tool_calls": [
                _call("c1", "lookup", '{"order": 42}'),
                _call("c2", "ask_billing", '{"query": "refund 42"}'),
            ]
        },
        "Order 42 shipped and refunded.",
    )
    path = tmp_path / "pai.yaml"
    with record(triage, path, tools="recorded") as recorder:
        real = asyncio.run(triage.run("where is 42"))
    assert calls == [42]
    assert [c.name for c in recorder.tool_calls] == ["lookup"]  # the delegation: not recorded
    spec = _spec(path)
    assert spec.recorded.tools == "recorded"
    assert set(spec.tools) == {"lookup"}
    (answer,) = spec.tools["lookup"].answers
    assert (answer.arguments, answer.returns) == ({"order": 42}, "order 42 shipped")

    calls.clear()
    with replay(triage, path):  # billing's lane is used: the delegation ran, live
        replayed = simulate_run(lambda: triage.run("where is 42"))
    assert calls == []
    assert replayed.output == real.output == "Order 42 shipped and refunded."


@_PAI
def test_pydantic_ai_tool_error_is_replayed_as_the_same_error(tmp_path: Path) -> None:
    from handoff_sim.adapters.pydantic_ai import simulate_run
    from handoff_sim.recording import record, replay

    calls: list[int] = []
    triage = _pai_graph(calls, {"tool_calls": [_call("c1", "lookup", '{"order": 13}')]})
    path = tmp_path / "pai-error.yaml"
    with (
        record(triage, path, tools="recorded"),
        pytest.raises(ValueError, match="order 13 is cursed"),  # pydantic-ai ends the run
    ):
        asyncio.run(triage.run("where is 13"))
    (answer,) = _spec(path).tools["lookup"].answers
    assert (answer.raises.type, answer.raises.message) == ("ValueError", "order 13 is cursed")

    calls.clear()
    with replay(triage, path):
        run = simulate_run(lambda: triage.run("where is 13"), raise_errors=False)
    assert calls == []
    assert isinstance(run.error, ValueError)
    assert str(run.error) == "order 13 is cursed"
    standalone = _run_as_a_scenario(path)  # the file's fake tool raises it too
    assert standalone.passed, standalone.mismatches
    assert "order 13 is cursed" in str(standalone.error)


@_PAI
def test_pydantic_ai_tools_run_live_in_a_replay_of_a_live_recording(tmp_path: Path) -> None:
    from handoff_sim.adapters.pydantic_ai import simulate_run
    from handoff_sim.recording import record, replay

    calls: list[int] = []
    triage = _pai_graph(calls, {"tool_calls": [_call("c1", "lookup", '{"order": 42}')]}, "done")
    path = tmp_path / "live.yaml"
    with record(triage, path) as recorder:
        asyncio.run(triage.run("where is 42"))
    assert recorder.tool_calls == []
    assert _spec(path).recorded.tools == "live"
    with replay(triage, path):
        simulate_run(lambda: triage.run("where is 42"))
    assert calls == [42, 42]  # the default: your tools run in the replay too
