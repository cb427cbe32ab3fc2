"""``pytest_handoff.assert_trajectory`` in a user's test, and the Python trajectory API:
a failure names each call missing, extra or out of order with its scope and the nearest
candidate; a wrong expectation is a TrajectorySpecError naming the key, with a hint."""

from __future__ import annotations

import textwrap

import pytest

import handoff_sim._trajectory  # noqa: F401  (imported once: pytester drops modules a run imports)
import pytest_handoff._trajectory  # noqa: F401
from handoff_sim import ConfigurationError
from handoff_sim.testing import TrajectorySpecError, check_trajectory
from pytest_handoff import HandoffAssertionError, assert_trajectory
from tests.trajectory._fan_out import recorded

TEST = """
from handoff_sim import Agent, SubAgent, simulate
from handoff_sim.testing import FakeTool, ScriptedModel
from pytest_handoff import assert_trajectory


def test_billing_queries_twice() -> None:
    sql = FakeTool("sql", default="rows")
    billing = Agent(
        name="billing",
        model=ScriptedModel([
            {"tool_calls": [{"name": "sql", "arguments": {"q": "refunds"}}]},
            "billed",
        ]),
        tools=[sql],
    )
    manager = Agent(
        name="manager",
        model=ScriptedModel([
            {"tool_calls": [{"name": "delegate_billing", "arguments": {"task": "bill"}}]},
            "done",
        ]),
        subagents=[SubAgent("billing", agent=billing, tool_name="delegate_billing")],
    )
    run = simulate(manager, "go")
    assert_trajectory(run, [{"tool": "sql", "count": 2}], scope={"agent": "billing"})
"""


def test_a_failed_trajectory_assertion_names_the_scope_the_bound_and_the_calls(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_user=textwrap.dedent(TEST))
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "E *pytest_handoff.HandoffAssertionError: trajectory does not hold (mode: exact, "
            'scope: {agent: "billing"}, args_mode: exact): 1 problem(s)',
            'E *- count: call 0 {tool: "sql", count: 2} fits 1 call(s) of the scope (#2), '
            "expected count 2",
            "E *calls in the scope (1, 1 outside it):",
            'E *#2 sql {"q":"refunds"} by billing (depth 1)',
        ]
    )


def test_assert_trajectory_returns_the_result_when_it_holds() -> None:
    result = assert_trajectory(
        recorded(), ["sql", "sql", "lookup"], scope={"handoff": "delegate_billing"}
    )
    assert [c.number for c in result.calls] == [2, 7, 8]


def test_assert_trajectory_takes_the_argument_mode_and_its_per_tool_overrides() -> None:
    calls = [{"tool": "sql", "args": {}}, {"tool": "sql", "args": {}}, {"tool": "lookup"}]
    with pytest.raises(HandoffAssertionError, match=r"missing: call 0"):
        assert_trajectory(recorded(), calls, scope={"agent": "billing"})
    assert_trajectory(recorded(), calls, scope={"agent": "billing"}, args="ignore")
    assert_trajectory(recorded(), calls, scope={"agent": "billing"}, tool_args={"sql": "ignore"})


def test_a_name_no_call_of_the_trace_has_gets_the_nearest_one_it_has() -> None:
    result = check_trajectory(
        recorded(),
        ["sqll", {"tool": "sql", "agent": "bill"}],
        scope={"agent": "billnig", "handoff": "delegate_bill"},
    )
    assert result.message.splitlines()[3:7] == [
        '  note: no call of the trace was made by agent "billnig" (did you mean "billing"?)',
        "  note: no call of the trace was made inside a handoff through "
        '"delegate_bill" (did you mean "delegate_billing"?)',
        '  note: no call of the trace is of tool "sqll" (did you mean "sql"?)',
        '  note: no call of the trace was made by agent "bill" (did you mean "billing"?)',
    ]


def test_assert_trajectory_refuses_what_is_not_a_trace() -> None:
    with pytest.raises(TypeError, match=r"assert_trajectory\(\) takes a Trace"):
        assert_trajectory("trace.jsonl", ["sql"])


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"mode": "strict"}, r"^mode: must be one of exact, .* not 'strict'"),
        ({"mode": "unorderd"}, r"\(did you mean 'unordered'\?\)"),
        ({"args_mode": "ignored"}, r"^args_mode: .*\(did you mean 'ignore'\?\)"),
        (
            {"scope": {"agnet": "billing"}},
            r"^scope: unknown key 'agnet' \(did you mean 'agent'\?\)",
        ),
        ({"scope": {"branch": "manager"}}, r"^scope.branch: must be a list of agent names"),
        ({"scope": {"depth": -1}}, r"^scope.depth: must be an integer >= 0"),
        ({"tool_args_modes": {"sql": "exactly"}}, r"^tool_args_modes.sql: .*did you mean 'exact'"),
        ({"calls": [{"tool": "sql", "count": 2, "max": 3}]}, r"^calls.0.count: give either"),
        ({"calls": [{"tool": "sql", "min": 3, "max": 1}]}, r"^calls.0.max: must be >= min \(3\)"),
        ({"calls": [{"tol": "sql"}]}, r"^calls.0: unknown key 'tol' \(did you mean 'tool'\?\)"),
        ({"calls": [{"tool": "sql", "args_mode": "sub"}]}, r"^calls.0.args_mode: must be one of"),
        ({"calls": [{"tool": 3}]}, r"^calls.0.tool: must be text or a matcher"),
        ({"calls": [{"tool": "sql", "args": {"q": {"capture": "x"}}}]}, r"cannot capture"),
        ({"calls": "sql"}, r"^calls: must be a list of call patterns"),
        ({"calls": [3]}, r"^calls.0: must be a tool name or a mapping"),
    ],
)
def test_a_wrong_trajectory_is_a_configuration_error_naming_the_key(
    options: dict[str, object], message: str
) -> None:
    calls = options.pop("calls", ["sql"])
    with pytest.raises(TrajectorySpecError, match=message) as raised:
        check_trajectory(recorded(), calls, **options)  # type: ignore[arg-type]
    assert isinstance(raised.value, ConfigurationError)
