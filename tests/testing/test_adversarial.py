"""AdversarialModel (M3): the runtime survives every hostile behaviour (typed error or result)."""

from __future__ import annotations

import json
import random
from collections.abc import Callable

import pytest

from handoff_sim import Agent, ConfigurationError, HandoffPolicy, SubAgent, Trace
from handoff_sim._invariants import EXPECTED_RUN_ERRORS, check_invariants
from handoff_sim.errors import VirtualDeadlineError
from handoff_sim.events import ModelResponseEvent, ToolEndEvent, ToolStartEvent
from handoff_sim.messages import Message, ModelRequest, ModelResponse, ToolSpec
from handoff_sim.simulation import Simulation
from handoff_sim.testing import AdversarialModel, AdversarialModelError, Behaviour, ScriptedModel
from handoff_sim.testing._adversarial import DEFAULT_BEHAVIOURS


def _tree(behaviours: list[Behaviour], **knobs: int) -> Agent:
    """A root and a child, both hostile, under a policy with retries and a timeout."""
    child = Agent("child", AdversarialModel(11, behaviours, **knobs), max_steps=10)
    return Agent(
        "root",
        AdversarialModel(7, behaviours, **knobs),
        subagents=[SubAgent("child", agent=child)],
        handoff_policy=HandoffPolicy(max_retries=1, timeout=2.0, on_denied="report_to_model"),
        parallel_tool_calls=True,
        max_steps=10,
    )


def _run(agent: Agent) -> tuple[Trace, BaseException | None]:
    sim = Simulation(seed=3, wall_clock=False, deadline=3600)
    error: BaseException | None = None
    try:
        sim.run(agent, "go")
    except Exception as exc:
        error = exc
    finally:
        sim.close()
    return sim.trace, error


def _tool_errors(trace: Trace) -> list[str]:
    return [
        e.output or ""
        for e in trace.of_type(ToolEndEvent)
        if isinstance(e, ToolEndEvent) and e.status == "error"
    ]


def _calls(trace: Trace, agent: str = "root") -> list[str]:
    return [
        c
        for e in trace.of_type(ModelResponseEvent)
        if isinstance(e, ModelResponseEvent) and e.agent == agent
        for c in e.tool_calls
    ]


def _error_mentions(text: str) -> Callable[[Trace], bool]:
    return lambda trace: any(text in output for output in _tool_errors(trace))


_EXPECTED: dict[Behaviour, tuple[type[BaseException] | None, Callable[[Trace], bool]]] = {
    Behaviour.UNKNOWN_TOOL: (None, _error_mentions("not found")),
    Behaviour.MALFORMED_JSON: (None, _error_mentions("arguments must be a JSON object")),
    Behaviour.NON_OBJECT_ARGUMENTS: (None, _error_mentions("arguments")),
    Behaviour.MISSING_TASK: (None, lambda t: bool(t.handoffs() or _tool_errors(t))),
    Behaviour.NON_STRING_TASK: (None, lambda t: bool(t.handoffs())),
    Behaviour.OVERSIZED_ARGUMENTS: (
        None,
        lambda t: any(len(e.arguments) > 1000 for e in t.of_type(ToolStartEvent)),  # type: ignore[attr-defined]
    ),
    Behaviour.DUPLICATE_CALL_IDS: (
        None,
        lambda t: (
            len({(e.run_id, e.call_id) for e in t.of_type(ToolStartEvent)})  # type: ignore[attr-defined]
            == len(t.of_type(ToolStartEvent))
        ),
    ),
    Behaviour.SELF_DELEGATION: (None, _error_mentions("not found")),
    Behaviour.DEEP_RECURSION: (None, lambda t: any(h.depth == 1 for h in t.handoffs())),
    Behaviour.RESERVED_PREFIX: (None, _error_mentions("subagent_")),
    Behaviour.FAN_OUT: (None, lambda t: len(_calls(t)) >= 40),
    Behaviour.REPEATED_CALLS: (None, lambda t: len(_calls(t)) >= 2),
    Behaviour.ENDLESS_LATENCY: (VirtualDeadlineError, lambda t: len(t) > 0),
    Behaviour.RAISING: (AdversarialModelError, lambda t: t.of_type("run_end") != []),
    Behaviour.EMPTY_RESPONSE: (None, lambda t: _calls(t) == []),
    Behaviour.MIXED_TEXT_AND_CALLS: (
        None,
        lambda t: any(
            e.text and e.tool_calls
            for e in t.of_type(ModelResponseEvent)
            if isinstance(e, ModelResponseEvent)
        ),
    ),
    Behaviour.VALID_CALLS: (None, lambda t: bool(t.handoffs())),
    Behaviour.NEAR_VALID_ARGUMENTS: (None, lambda t: bool(t.handoffs() or _tool_errors(t))),
}


def test_every_behaviour_has_an_expectation() -> None:
    assert set(_EXPECTED) == set(Behaviour)


@pytest.mark.parametrize("behaviour", list(Behaviour), ids=str)
def test_m3_runtime_survives_each_behaviour(behaviour: Behaviour) -> None:
    """M3: a typed error or an error result, a balanced trace, no invariant broken, no hang."""
    root = _tree([behaviour], fan_out=40, oversized_bytes=4096)
    trace, error = _run(root)
    expected_error, signal = _EXPECTED[behaviour]
    if expected_error is None:
        assert error is None, f"{behaviour}: {error!r}"
    else:
        assert isinstance(error, expected_error)
    assert error is None or isinstance(error, EXPECTED_RUN_ERRORS)
    assert trace.unbalanced() == []
    assert check_invariants(trace, agent=root, error=error) == []
    assert signal(trace), trace.render()


def test_m3_default_mix_survives_many_seeds() -> None:
    for seed in range(25):
        child = Agent("child", AdversarialModel(seed + 1, fan_out=8, oversized_bytes=256))
        root = Agent(
            "root",
            AdversarialModel(seed, fan_out=8, oversized_bytes=256),
            subagents=[SubAgent("child", agent=child)],
            handoff_policy=HandoffPolicy(max_retries=1, timeout=1.0),
        )
        trace, error = _run(root)
        assert check_invariants(trace, agent=root, error=error) == [], seed


def test_m3_same_seed_gives_the_same_trace() -> None:
    first, _ = _run(_tree(list(DEFAULT_BEHAVIOURS), fan_out=5, oversized_bytes=64))
    second, _ = _run(_tree(list(DEFAULT_BEHAVIOURS), fan_out=5, oversized_bytes=64))
    assert first.to_jsonl() == second.to_jsonl()


def _request(agent: str = "a", turns: int = 0) -> ModelRequest:
    messages = [Message(role="user", content="go")]
    messages += [Message(role="assistant", content="x")] * turns
    tools = (ToolSpec("lookup", "", {}), ToolSpec("subagent_b", "", {"properties": {"task": {}}}))
    return ModelRequest(agent=agent, model="m", messages=tuple(messages), tools=tools)


_CALM = ["fan_out", "unknown_tool", "repeated_calls", "malformed_json", "empty_response"]


async def _answers(model: AdversarialModel, count: int) -> list[ModelResponse]:
    return [await model.complete(_request()) for _ in range(count)]


def test_m3_seeded_with_its_own_random_not_the_global_one() -> None:
    import asyncio

    random.seed(1)
    first = asyncio.run(_answers(AdversarialModel(5, _CALM, fan_out=3), 30))
    random.seed(2)
    state = random.getstate()
    second = asyncio.run(_answers(AdversarialModel(5, _CALM, fan_out=3), 30))
    assert first == second
    assert random.getstate() == state


def test_m3_different_seeds_choose_differently() -> None:
    import asyncio

    a, b = AdversarialModel(1, _CALM), AdversarialModel(2, _CALM)
    asyncio.run(_answers(a, 20))
    asyncio.run(_answers(b, 20))
    assert a.chosen != b.chosen


def test_m3_answers_text_after_max_turns() -> None:
    import asyncio

    model = AdversarialModel(0, ["unknown_tool"], max_turns=2)
    assert asyncio.run(model.complete(_request(turns=1))).tool_calls
    final = asyncio.run(model.complete(_request(turns=2)))
    assert final.tool_calls == ()
    assert final.text == "adversarial model done after 2 turn(s)"


def test_m3_fan_out_makes_that_many_calls() -> None:
    import asyncio

    response = asyncio.run(AdversarialModel(0, ["fan_out"], fan_out=300).complete(_request()))
    assert len(response.tool_calls) == 300
    assert len({c.id for c in response.tool_calls}) == 300


def test_m3_oversized_arguments_have_the_requested_size() -> None:
    import asyncio

    model = AdversarialModel(0, ["oversized_arguments"], oversized_bytes=100_000)
    (call,) = asyncio.run(model.complete(_request())).tool_calls
    assert len(json.loads(call.arguments)["task"]) == 100_000


def test_m3_deep_recursion_calls_every_offered_subagent_tool() -> None:
    import asyncio

    response = asyncio.run(AdversarialModel(0, ["deep_recursion"]).complete(_request()))
    assert [c.name for c in response.tool_calls] == ["subagent_b"]


def test_m3_recursion_through_a_chain_terminates_with_unlimited_depth() -> None:
    leaf = Agent("c", AdversarialModel(3, ["deep_recursion"]))
    middle = Agent(
        "b",
        AdversarialModel(2, ["deep_recursion"]),
        subagents=[SubAgent("c", agent=leaf)],
        handoff_policy=HandoffPolicy(max_depth=0),
    )
    root = Agent(
        "a",
        AdversarialModel(1, ["deep_recursion"]),
        subagents=[SubAgent("b", agent=middle)],
        handoff_policy=HandoffPolicy(max_depth=0),
    )
    trace, error = _run(root)
    assert error is None
    assert max(h.depth for h in trace.handoffs()) == 2
    assert check_invariants(trace, agent=root) == []


def test_m3_endless_latency_in_a_child_is_stopped_by_the_attempt_timeout() -> None:
    child = Agent("child", AdversarialModel(0, ["endless_latency"]))
    root = Agent(
        "root",
        ScriptedModel(
            [{"tool_calls": [{"name": "subagent_child", "arguments": {"task": "x"}}]}, "ok"]
        ),
        subagents=[SubAgent("child", agent=child)],
        handoff_policy=HandoffPolicy(max_retries=2, timeout=1.5),
    )
    trace, error = _run(root)
    assert error is None
    (record,) = trace.handoffs()
    assert (record.status, record.reason, record.attempts) == ("failed", "timeout", 3)
    assert check_invariants(trace, agent=root) == []


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"behaviours": ["nope"]}, "unknown adversarial behaviour 'nope'; known behaviours: "),
        ({"behaviours": []}, "at least one behaviour"),
        ({"seed": "7"}, "seed must be an int"),
        ({"max_turns": -1}, "max_turns must be an int >= 0"),
        ({"fan_out": 0}, "fan_out must be an int >= 1"),
    ],
)
def test_m3_bad_configuration_is_a_configuration_error(
    kwargs: dict[str, object], message: str
) -> None:
    with pytest.raises(ConfigurationError, match=message.replace("(", r"\(")):
        AdversarialModel(**kwargs)  # type: ignore[arg-type]


def test_m3_behaviours_accept_names_and_members_in_scenario_shape() -> None:
    model = AdversarialModel(seed=7, behaviours=["fan_out", Behaviour.RAISING, "fan_out"])
    assert model.behaviours == (Behaviour.FAN_OUT, Behaviour.RAISING)
    assert "endless_latency" not in AdversarialModel().behaviours
