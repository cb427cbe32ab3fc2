"""The pydantic-ai adapter, against real pydantic-ai: fakes, capture, governance, virtual time."""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING

import pytest

from handoff_sim import FailureAction, HandoffDeniedError, HandoffPolicy, ToolCall, check_invariants
from handoff_sim.testing import AdversarialModel, FunctionModel, ScriptedModel
from pytest_handoff import (
    assert_denied,
    assert_depth_exceeded,
    assert_fallback_unavailable,
    assert_handoffs_balanced,
    assert_ran_in_parallel,
    assert_retry_count,
    assert_timeout_per_attempt,
)
from tests.adapters._extras import installed, needs
from tests.hostile._support import open_starts

# pydantic-ai is imported inside the tests that use it: collecting this module stays cheap
if not installed("pydantic_ai"):
    pytest.skip(needs("pydantic-ai"), allow_module_level=True)

if TYPE_CHECKING:
    from pydantic_ai import Agent

    from handoff_sim.adapters.pydantic_ai import SimModel


def model(*steps: object) -> SimModel:
    from handoff_sim.adapters.pydantic_ai import SimModel

    return SimModel(ScriptedModel(list(steps)))


def call(call_id: str, name: str, task: str = "task") -> dict[str, object]:
    return {"id": call_id, "name": name, "arguments": {"task": task}}


def agent(name: str, *steps: object, **kwargs: object) -> Agent[None, str]:
    from pydantic_ai import Agent

    return Agent(model(*steps), name=name, **kwargs)  # type: ignore[call-overload]


def assert_sound(trace: object) -> None:
    assert open_starts(trace) == []  # type: ignore[arg-type]
    assert check_invariants(trace) == []  # type: ignore[arg-type]


# -- fake models drive pydantic-ai agents ------------------------------------------------------


def test_scripted_model_answers_as_the_model_of_an_agent_and_through_override() -> None:
    helper = agent("helper", {"text": "42", "expect": {"input_contains": "question"}})
    assert asyncio.run(helper.run("a question")).output == "42"
    with helper.override(model=model({"text": "overridden"})):
        assert asyncio.run(helper.run("again")).output == "overridden"


def test_a_streamed_run_gets_the_same_answer() -> None:
    helper = agent("helper", {"text": "streamed answer"})

    async def main() -> str:
        async with helper.run_stream("hi") as streamed:
            return await streamed.get_output()

    assert asyncio.run(main()) == "streamed answer"


def test_function_model_sees_tool_results_in_our_message_form() -> None:
    from pydantic_ai import Agent

    from handoff_sim.adapters.pydantic_ai import SimModel

    seen: list[str | None] = []

    def decide(request: object) -> object:
        results = request.last_tool_results()  # type: ignore[attr-defined]
        if not results:
            return {"tool_calls": [call("c1", "lookup")]}
        seen.append(results[-1].content)
        return "done"

    boss = Agent(SimModel(FunctionModel(decide)), name="boss")

    @boss.tool_plain
    def lookup(task: str) -> str:
        return f"found {task}"

    assert asyncio.run(boss.run("go")).output == "done"
    assert seen == ["found task"]


# -- capture(): pydantic-ai runs as our traces -------------------------------------------------


def fan_out_parent(latency: bool = True) -> Agent[None, str]:
    from tests.adapters._pydantic_ai_tools import delegating

    researcher = agent("researcher", {"text": "facts", "latency": 2 if latency else 0})
    writer = agent("writer", {"text": "prose", "latency": 3 if latency else 0})
    triage = agent(
        "triage", {"tool_calls": [call("c1", "research"), call("c2", "write")]}, {"text": "report"}
    )
    delegating(triage, researcher, "research")
    delegating(triage, writer, "write")
    return triage


def test_parallel_fan_out_of_two_delegating_tools_is_two_overlapping_handoffs() -> None:
    from handoff_sim.adapters.pydantic_ai import simulate_run

    triage = fan_out_parent()
    run = simulate_run(lambda: triage.run("go"))
    assert run.result is not None
    assert run.result.output == "report"
    research, write = run.trace.handoffs()
    assert (research.tool, research.subagent, research.output) == (
        "research",
        "researcher",
        "facts",
    )
    assert (write.status, write.duration_ms, write.depth) == ("completed", 3000.0, 1)
    assert_ran_in_parallel(run, "research", "write")
    assert assert_handoffs_balanced(run) == 2
    assert run.elapsed_ms == 3000.0
    assert_sound(run.trace)


def test_a_captured_trace_renders_and_is_byte_identical_across_runs() -> None:
    from handoff_sim.adapters.pydantic_ai import simulate_run

    first = simulate_run(lambda: fan_out_parent().run("go"), seed=5).trace
    second = simulate_run(lambda: fan_out_parent().run("go"), seed=5).trace
    assert first.to_jsonl() == second.to_jsonl()
    assert "triage → writer via write [handoff:c2] status=completed" in first.render_tree()
    assert "sequenceDiagram" in first.to_mermaid()


def test_capture_records_a_real_time_run_and_restores_instrumentation() -> None:
    from pydantic_ai import Agent

    from handoff_sim.adapters.pydantic_ai import capture

    before = getattr(Agent, "_instrument_default", None)
    with capture() as cap:
        assert asyncio.run(fan_out_parent(latency=False).run("go")).output == "report"
    assert getattr(Agent, "_instrument_default", None) is before
    assert [r.status for r in cap.trace.handoffs()] == ["completed", "completed"]
    assert_sound(cap.trace)


# -- governed(): our policy on a delegating tool ---------------------------------------------


def test_a_retried_timeout_makes_three_attempts_of_thirty_virtual_seconds() -> None:
    from handoff_sim.adapters.pydantic_ai import governed, simulate_run

    slow = agent("slow", *[{"text": "late", "latency": "100s"}] * 3)
    boss = agent(
        "boss",
        {"tool_calls": [call("c1", "research")]},
        {"text": "gave up", "expect": {"last_tool_result_contains": "handoff timeout"}},
        tools=[governed(slow, name="research", policy=HandoffPolicy(max_retries=2, timeout=30))],
    )
    run = simulate_run(lambda: boss.run("go"))
    [record] = run.trace.handoffs("research")
    assert (record.status, record.reason, record.attempts) == ("failed", "timeout", 3)
    assert record.duration_ms == 90_000.0
    assert run.elapsed_ms == 90_000.0
    assert_retry_count(run, "research", 2)
    assert_timeout_per_attempt(run, "research", "30s")
    assert_sound(run.trace)


def test_a_nested_delegation_past_max_depth_is_denied_and_aborts_the_run() -> None:
    from handoff_sim.adapters.pydantic_ai import governed, simulate_run

    policy = HandoffPolicy(max_depth=1)
    leaf = agent("leaf", {"text": "unreachable"})
    middle = agent(
        "middle",
        {"tool_calls": [call("m1", "leaf")]},
        tools=[governed(leaf, name="leaf", policy=policy)],
    )
    top = agent(
        "top",
        {"tool_calls": [call("t1", "middle")]},
        tools=[governed(middle, name="middle", policy=policy)],
    )
    run = simulate_run(lambda: top.run("go"), raise_errors=False)
    assert isinstance(run.error, HandoffDeniedError)
    assert (
        str(run.error)
        == "handoff denied for subagent tool leaf: handoff depth 2 exceeds max_depth 1"
    )
    assert_depth_exceeded(run, "leaf", depth=2, max_depth=1)
    assert open_starts(run.trace) == []


def test_depth_is_held_per_task_under_parallel_fan_out() -> None:
    from handoff_sim.adapters.pydantic_ai import governed, simulate_run

    policy = HandoffPolicy(max_depth=2)
    leaves = [agent(f"leaf{i}", {"text": f"leaf {i}"}) for i in range(2)]
    middles = [
        agent(
            f"mid{i}",
            {"tool_calls": [call(f"m{i}", f"leaf{i}")]},
            {"text": f"mid {i}"},
            tools=[governed(leaves[i], name=f"leaf{i}", policy=policy)],
        )
        for i in range(2)
    ]
    top = agent(
        "top",
        {"tool_calls": [call("a", "mid0"), call("b", "mid1")]},
        {"text": "top"},
        tools=[governed(m, name=f"mid{i}", policy=policy) for i, m in enumerate(middles)],
    )
    run = simulate_run(lambda: top.run("go"))
    depths = {r.tool: (r.depth, r.status) for r in run.trace.handoffs()}
    assert depths == {
        "mid0": (1, "completed"),
        "mid1": (1, "completed"),
        "leaf0": (2, "completed"),
        "leaf1": (2, "completed"),
    }
    assert_sound(run.trace)


def test_a_denied_tool_without_fallback_answers_handoff_unavailable() -> None:
    from handoff_sim.adapters.pydantic_ai import governed, simulate_run

    helper = agent("helper", {"text": "never runs"})
    policy = HandoffPolicy(denied_tools=["helper"], on_denied=FailureAction.FALLBACK_TO_PRIMARY)
    boss = agent(
        "boss",
        {"tool_calls": [call("c1", "helper")]},
        {"text": "ok", "expect": {"last_tool_result_contains": "handoff unavailable"}},
        tools=[governed(helper, name="helper", policy=policy)],
    )
    run = simulate_run(lambda: boss.run("go"))
    record = assert_fallback_unavailable(run, "helper", why="denied")
    assert record.output == (
        "handoff unavailable: subagent tool helper was denied (tool is in denied_tools) "
        "and no primary tool executor serves it (unknown tool: helper)"
    )
    assert_denied(run, "helper", reason="denied_tool")
    assert_sound(run.trace)


def test_fallback_input_filter_and_envelope_follow_our_runtime() -> None:
    from pydantic_ai import Agent

    from handoff_sim.adapters.pydantic_ai import SimModel, governed, simulate_run

    seen: list[str] = []

    def remember(request: object) -> str:
        seen.append(request.messages[-1].content)  # type: ignore[attr-defined]
        return "filtered answer"

    helper = Agent(SimModel(FunctionModel(remember)), name="helper")
    filtered = HandoffPolicy(
        input_filter=lambda c: ToolCall(c.id, c.name, json.dumps({"task": "redacted"}))
    )
    failing = HandoffPolicy(max_retries=1, on_error=FailureAction.FALLBACK_TO_PRIMARY)
    broken = agent("broken", {"error": "provider down"}, {"error": "provider down"})
    boss = agent(
        "boss",
        {"tool_calls": [call("c1", "helper", "secret"), call("c2", "broken")]},
        {"text": "ok"},
        tools=[
            governed(helper, name="helper", policy=filtered, envelope=True),
            governed(broken, name="broken", policy=failing, fallback=lambda c: "local answer"),
        ],
    )
    run = simulate_run(lambda: boss.run("go"))
    assert seen == ["redacted"]
    ok, fell_back = run.trace.handoffs()
    assert (ok.status, ok.output) == ("completed", "filtered answer")
    assert (fell_back.status, fell_back.attempts, fell_back.output) == (
        "fallback",
        2,
        "local answer",
    )
    [envelope] = [e.output for e in run.trace.of_type("tool_end") if e.call_id == "c1"]  # type: ignore[attr-defined]
    assert json.loads(envelope) == {
        "subagent": "helper",
        "toolName": "helper",
        "output": "filtered answer",
        "steps": 1,
    }


def test_governed_names_its_tool_like_our_runtime_unless_told() -> None:
    from handoff_sim.adapters.pydantic_ai import governed

    helper = agent("Code Reviewer", {"text": "x"})
    assert governed(helper).name == "subagent_code_reviewer"
    assert governed(helper, name="review").name == "review"


# -- adversarial models: pydantic-ai's own error handling, a balanced trace ------------------


@pytest.mark.parametrize("seed", range(6))
def test_malformed_tool_calls_meet_pydantic_ais_retries_and_the_trace_stays_balanced(
    seed: int,
) -> None:
    from pydantic_ai import Agent
    from pydantic_ai.exceptions import UnexpectedModelBehavior

    from handoff_sim.adapters.pydantic_ai import SimModel, governed, simulate_run

    helper = agent("helper", *[{"text": "fine"}] * 50)
    hostile = Agent(
        SimModel(
            AdversarialModel(
                seed, ["malformed_json", "non_object_arguments", "missing_task"], max_turns=2
            )
        ),
        name="hostile",
        tools=[governed(helper, name="subagent_helper")],
    )
    run = simulate_run(lambda: hostile.run("go"), raise_errors=False)
    assert run.error is None or isinstance(run.error, UnexpectedModelBehavior)
    assert open_starts(run.trace) == []
    assert_handoffs_balanced(run)
    refused = [e for e in run.trace.of_type("tool_end") if e.status == "error"]  # type: ignore[attr-defined]
    assert refused, "pydantic-ai refused the malformed calls with retry prompts"
    ran = {r.call_id for r in run.trace.handoffs()}
    assert ran.isdisjoint(e.call_id for e in refused)  # type: ignore[attr-defined]


def test_unknown_tool_names_get_pydantic_ais_retry_prompt_and_every_start_ends() -> None:
    from pydantic_ai import Agent
    from pydantic_ai.exceptions import UnexpectedModelBehavior

    from handoff_sim.adapters.pydantic_ai import SimModel, simulate_run

    hostile = Agent(SimModel(AdversarialModel(1, ["unknown_tool"], max_turns=2)), name="hostile")
    run = simulate_run(lambda: hostile.run("go"), raise_errors=False)
    assert open_starts(run.trace) == []
    assert run.error is None or isinstance(run.error, UnexpectedModelBehavior)
