"""Data-driven fakes in Python: FakeTool and StubAgent answer by call number and by
arguments, play faults at call N, count their calls, and refuse a call nothing fits."""

from __future__ import annotations

from typing import Any

import pytest

from handoff_sim import Agent, ConfigurationError, HandoffPolicy, SubAgent, simulate
from handoff_sim.messages import ModelRequest
from handoff_sim.testing import (
    FakeTool,
    FunctionModel,
    NoFakeAnswerError,
    ScriptedModel,
    SimulatedRateLimitError,
    StubAgent,
)
from tests._helpers import call, delegate, turn


def _calls_then_answers(tool: str, arguments: dict[str, Any]) -> FunctionModel:
    """A child model: call ``tool`` once per run, then answer with what it returned."""

    def answer(request: ModelRequest) -> object:
        last = request.messages[-1]
        if last.role == "tool":
            return f"got {last.content}"
        return [{"name": tool, "arguments": arguments}]

    return FunctionModel(answer)


def test_a_timeout_at_call_2_under_a_5s_timeout_and_one_retry_succeeds_on_attempt_2() -> None:
    sql = FakeTool(
        "sql",
        sequence=[{"returns": "first", "latency": "1s"}, {"timeout": True}],
        default={"returns": "rows", "latency": "250ms"},
    )
    billing = Agent(name="billing", model=_calls_then_answers("sql", {"q": "x"}), tools=[sql])
    parent = Agent(
        name="manager",
        model=ScriptedModel(
            [
                turn(delegate("delegate_billing", "one")),
                turn(delegate("delegate_billing", "two")),
                "done",
            ]
        ),
        subagents=[SubAgent("billing", agent=billing, tool_name="delegate_billing")],
        handoff_policy=HandoffPolicy(timeout=5, max_retries=1),
    )
    result = simulate(parent, "go")
    first, second = result.trace.handoffs()
    assert (first.status, first.attempts, first.duration_ms) == ("completed", 1, 1000)
    assert (second.status, second.attempts) == ("completed", 2)
    assert second.attempt_outcomes == ("timeout", "ok")
    assert second.duration_ms == pytest.approx(5000 + 250)
    assert second.output == "got rows"
    assert sql.call_count == 3


def test_an_answers_by_arguments_tool_serves_three_parallel_subagents_their_own_answers() -> None:
    lookup = FakeTool(
        "lookup",
        answers=[
            {"arguments": {"subset": {"region": "eu"}}, "returns": "eu-rows", "latency": "300ms"},
            {"arguments": {"subset": {"region": "us"}}, "returns": "us-rows", "latency": "100ms"},
            {"arguments": {"subset": {"region": {"match": "^ap"}}}, "returns": "ap-rows"},
        ],
    )
    workers = [
        Agent(name=f"w_{r}", model=_calls_then_answers("lookup", {"region": r}), tools=[lookup])
        for r in ("eu", "us", "apac")
    ]
    parent = Agent(
        name="manager",
        model=ScriptedModel(
            [turn(*(delegate(f"delegate_{w.name}", "go") for w in workers)), "done"]
        ),
        subagents=[SubAgent(w.name, agent=w, tool_name=f"delegate_{w.name}") for w in workers],
        parallel_tool_calls=True,
    )
    result = simulate(parent, "go")
    outputs = {r.subagent: r.output for r in result.trace.handoffs()}
    assert outputs == {"w_eu": "got eu-rows", "w_us": "got us-rows", "w_apac": "got ap-rows"}
    assert result.elapsed_ms == pytest.approx(300)  # the three ran at once
    assert sorted(c["region"] for c in lookup.calls) == ["apac", "eu", "us"]  # type: ignore[index]
    assert lookup.count({"subset": {"region": {"match": "^(eu|us)$"}}}) == 2
    assert lookup.count() == lookup.call_count == 3


def test_the_first_fitting_answer_wins_and_the_default_serves_the_rest() -> None:
    tool = FakeTool(
        "sql",
        answers=[
            {"arguments": {"subset": {"q": {"match": "refund"}}}, "returns": "specific"},
            {"arguments": {"subset": {"q": {"match": "."}}}, "returns": "general"},
        ],
        default="fallback",
    )
    agent = Agent(
        name="main",
        model=ScriptedModel(
            [
                turn(call("sql", {"q": "refunds"})),
                turn(call("sql", {"q": "refunds"})),
                turn(call("sql", {"q": "other"})),
                turn(call("sql", {})),
                "done",
            ]
        ),
        tools=[tool],
    )
    result = simulate(agent, "go")
    answers = [m.content for m in result.messages if m.role == "tool"]
    assert answers == ["specific", "specific", "general", "fallback"]


@pytest.mark.parametrize(
    ("fault", "seen"),
    [
        (
            {"raises": {"type": "PermissionError", "message": "no access"}},
            "PermissionError: no access",
        ),
        (
            {"rate_limit": {"message": "slow down", "retry_after": "2s"}},
            "SimulatedRateLimitError: slow down",
        ),
        ({"malformed": True}, '{"result": '),
        ({"malformed": "<html>502</html>"}, "<html>502</html>"),
    ],
    ids=["raises", "rate_limit", "malformed", "malformed-text"],
)
def test_a_fault_at_call_2_is_what_the_model_sees_for_that_call_only(
    fault: dict[str, Any], seen: str
) -> None:
    tool = FakeTool("api", sequence=[None, fault], default="fine")
    agent = Agent(
        name="main",
        model=ScriptedModel([turn(call("api")), turn(call("api")), turn(call("api")), "done"]),
        tools=[tool],
    )
    answers = [m.content or "" for m in simulate(agent, "go").messages if m.role == "tool"]
    assert answers[0] == "fine"
    assert seen in answers[1]
    assert answers[2] == "fine"


def test_a_rate_limit_error_carries_its_retry_after() -> None:
    error = SimulatedRateLimitError("slow down", 2.0)
    assert error.retry_after == 2.0
    assert isinstance(error, RuntimeError)


def test_a_call_no_answer_fits_without_a_default_ends_the_run_naming_tool_and_arguments() -> None:
    tool = FakeTool("sql", answers=[{"arguments": {"q": "a"}, "returns": "A"}])
    agent = Agent(
        name="main", model=ScriptedModel([turn(call("sql", {"q": "b"})), "done"]), tools=[tool]
    )
    with pytest.raises(
        NoFakeAnswerError, match=r"fake 'sql': call 1 with arguments \{\"q\":\"b\"\}"
    ):
        simulate(agent, "go")


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ({"returns": 1, "raises": "x"}, "give one of returns"),
        ({"retruns": 1}, "answers.0.retruns: unknown key"),
        ({"raises": {"type": "SystemExit"}}, "answers.0.raises.type: must be one of"),
        ({"latency": "soon"}, "answers.0.latency"),
    ],
)
def test_a_wrong_answer_is_a_configuration_error_naming_it(
    answer: dict[str, Any], message: str
) -> None:
    with pytest.raises(ConfigurationError, match=message):
        FakeTool("sql", answers=[answer])


def _parent_of_stub(stub: StubAgent, *tasks: str, policy: HandoffPolicy | None = None) -> Agent:
    return Agent(
        name="manager",
        model=ScriptedModel([*(turn(delegate("delegate_billing", t)) for t in tasks), "done"]),
        subagents=[SubAgent("billing", agent=stub, tool_name="delegate_billing")],
        handoff_policy=policy,
    )


def test_a_stub_subagent_answers_each_delegation_by_its_task() -> None:
    stub = StubAgent(
        "billing",
        answers=[
            {"arguments": {"subset": {"task": {"contains": "refund"}}}, "returns": "refunded"},
            {"arguments": {"task": "invoice"}, "returns": "invoiced"},
        ],
    )
    result = simulate(_parent_of_stub(stub, "refund order 7", "invoice"), "go")
    outputs = [r.output for r in result.trace.handoffs()]
    assert outputs == ["refunded", "invoiced"]
    assert stub.calls == [{"task": "refund order 7"}, {"task": "invoice"}]


def test_a_stub_that_fails_once_tests_the_parents_retry_policy_without_a_child_script() -> None:
    stub = StubAgent("billing", sequence=[{"raises": "down"}], default="ok")
    result = simulate(_parent_of_stub(stub, "bill", policy=HandoffPolicy(max_retries=2)), "go")
    (handoff,) = result.trace.handoffs()
    assert (handoff.status, handoff.attempts) == ("completed", 2)
    assert stub.call_count == 2


def test_a_stub_that_never_answers_is_ended_by_the_parents_timeout() -> None:
    stub = StubAgent("billing", default={"timeout": True})
    result = simulate(
        _parent_of_stub(stub, "bill", policy=HandoffPolicy(timeout=5, max_retries=1)), "go"
    )
    (handoff,) = result.trace.handoffs()
    assert (handoff.status, handoff.reason, handoff.attempts) == ("failed", "timeout", 2)
    assert handoff.duration_ms == pytest.approx(10_000)
