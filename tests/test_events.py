"""E1–E4: typed events, handoff event fields, balance on every path, pluggy observers."""

from __future__ import annotations

import asyncio
import itertools
from collections import Counter
from collections.abc import Callable
from typing import Any, get_args

import msgspec
import pytest

from handoff_sim import (
    Agent,
    FailureAction,
    HandoffDeniedError,
    HandoffPolicy,
    SubAgent,
    ToolCall,
    Trace,
    hookimpl,
    simulate,
)
from handoff_sim.errors import ScriptExhaustedError, VirtualDeadlineError, VirtualDeadlockError
from handoff_sim.events import (
    DENIAL_REASONS,
    EVENT_TYPES,
    AnyEvent,
    Event,
    HandoffAttemptEndEvent,
    HandoffAttemptStartEvent,
    HandoffReason,
)
from handoff_sim.messages import ModelRequest
from handoff_sim.simulation import Simulation
from handoff_sim.testing import FunctionModel, ScriptedModel
from pytest_handoff import assert_denied
from tests._helpers import (
    RecordingExecutor,
    call,
    delegate,
    ends,
    leaf,
    parent_of,
    run_raising,
    starts,
    turn,
)

FAIL, FALLBACK, REPORT = (
    FailureAction.FAIL,
    FailureAction.FALLBACK_TO_PRIMARY,
    FailureAction.REPORT_TO_MODEL,
)
ALL_TYPES = {
    "run_start",
    "run_end",
    "model_request",
    "model_response",
    "tool_start",
    "tool_end",
    "handoff_start",
    "handoff_attempt_start",
    "handoff_attempt_end",
    "handoff_end",
}
CONFIRMATION_TYPES = {"confirmation_request", "confirmation_decision"}


def _nested_retrying_parent() -> Agent:
    """A run that emits every event type: a nested handoff whose first attempt fails."""
    grandchild = leaf("leaf", {"text": "leaf-out"})
    child = Agent(
        name="child",
        model=ScriptedModel(
            [{"error": "flaky"}, turn(delegate("subagent_leaf", id="g1")), {"text": "child-out"}]
        ),
        subagents=[SubAgent("leaf", agent=grandchild)],
        handoff_policy=HandoffPolicy(max_depth=0),
    )
    return parent_of(
        [SubAgent("child", agent=child)],
        turn(delegate("subagent_child", id="p1")),
        policy=HandoffPolicy(max_depth=0, max_retries=1),
    )


def test_e1_every_event_has_the_common_fields_and_a_known_type() -> None:
    trace = simulate(_nested_retrying_parent(), "go").trace
    assert {e.type for e in trace} == ALL_TYPES
    assert set(EVENT_TYPES) == ALL_TYPES | CONFIRMATION_TYPES  # those only in the SoPhi style
    for event in trace:
        data = event.to_dict()
        assert list(data)[:3] == ["seq", "t", "type"]
        for key in ("agent", "depth", "run_id"):
            assert key in data


def test_e1_the_event_union_holds_every_type_once_each_tagged_by_its_type() -> None:
    members = get_args(AnyEvent)
    assert list(EVENT_TYPES.values()) == list(members)
    assert [cls.type for cls in members] == list(EVENT_TYPES)
    assert len(set(EVENT_TYPES)) == len(members)
    assert all(issubclass(cls, Event) for cls in members)


def test_e1_every_json_line_of_a_trace_reads_back_as_the_tagged_union() -> None:
    trace = simulate(_nested_retrying_parent(), "go").trace
    lines = trace.to_jsonl().splitlines()
    decoded = [msgspec.json.decode(line, type=AnyEvent) for line in lines]
    assert decoded == list(trace)
    assert [type(e) for e in decoded] == [type(e) for e in trace]


def test_e1_seq_is_a_run_wide_counter_from_one() -> None:
    trace = simulate(_nested_retrying_parent(), "go").trace
    assert [e.seq for e in trace] == list(range(1, len(trace) + 1))


def test_e1_t_is_virtual_seconds() -> None:
    child = leaf("child", {"text": "ok", "latency": 90})
    parent = parent_of([SubAgent("child", agent=child)], turn(delegate("subagent_child")))
    trace = simulate(parent, "go").trace
    assert trace[0].t == 0.0
    assert trace[-1].t == 90.0
    assert all(a.t <= b.t for a, b in itertools.pairwise(trace))


def test_e1_events_carry_agent_depth_and_run_id_of_the_emitting_run() -> None:
    trace = simulate(_nested_retrying_parent(), "go").trace
    by_run = {(e.run_id, e.agent, e.depth) for e in trace if e.type == "run_start"}
    assert sorted(by_run) == [
        ("run-1", "parent", 0),
        ("run-2", "child", 1),
        ("run-3", "child", 1),
        ("run-4", "leaf", 2),
    ]


def test_e2_handoff_start_and_end_carry_the_identity_fields() -> None:
    trace = simulate(_nested_retrying_parent(), "go").trace
    outer_start, inner_start = starts(trace)
    outer_end, inner_end = sorted(ends(trace), key=lambda e: e.depth)
    assert outer_start.handoff_id == "handoff:p1" == outer_end.handoff_id
    assert inner_start.handoff_id == "handoff:g1" == inner_end.handoff_id
    assert outer_start.parent_handoff_id is None
    assert inner_start.parent_handoff_id == "handoff:p1" == inner_end.parent_handoff_id
    for start, end in ((outer_start, outer_end), (inner_start, inner_end)):
        for name in ("call_id", "tool", "subagent", "depth", "session_mode", "session_id"):
            assert getattr(start, name) == getattr(end, name), name
    assert (outer_start.call_id, outer_start.tool, outer_start.subagent) == (
        "p1",
        "subagent_child",
        "child",
    )
    assert (outer_start.depth, inner_start.depth) == (1, 2)
    assert outer_start.session_mode == "new_session"


def test_e2_handoff_end_adds_status_reason_attempts_duration_output_error() -> None:
    trace = simulate(_nested_retrying_parent(), "go").trace
    outer = next(e for e in ends(trace) if e.tool == "subagent_child")
    assert (outer.status, outer.reason, outer.attempts) == ("completed", None, 2)
    assert (outer.output, outer.error, outer.duration_ms) == ("child-out", None, 0.0)


def test_e2_attempt_events_carry_a_one_based_attempt_and_its_outcome() -> None:
    trace = simulate(_nested_retrying_parent(), "go").trace
    attempts = [(e.tool, e.attempt) for e in trace if isinstance(e, HandoffAttemptStartEvent)]
    outcomes = [
        (e.tool, e.attempt, e.outcome, e.error)
        for e in trace
        if isinstance(e, HandoffAttemptEndEvent)
    ]
    assert attempts == [("subagent_child", 1), ("subagent_child", 2), ("subagent_leaf", 1)]
    assert outcomes == [
        ("subagent_child", 1, "error", "flaky"),
        ("subagent_leaf", 1, "ok", None),
        ("subagent_child", 2, "ok", None),
    ]


def test_e2_handoff_end_statuses_and_reasons_use_the_spec_vocabulary() -> None:
    trace = simulate(_nested_retrying_parent(), "go").trace
    statuses = {"completed", "failed", "denied", "fallback", "unavailable", "cancelled"}
    reasons = {"not_allowed", "denied_tool", "max_depth", "timeout", "error", None}
    for end in ends(trace):
        assert end.status in statuses
        assert end.reason in reasons


def test_e2_denial_reasons_are_the_reasons_admission_gives_and_the_rest_are_failures() -> None:
    assert DENIAL_REASONS == ("not_allowed", "denied_tool", "max_depth")
    assert get_args(HandoffReason) == (*DENIAL_REASONS, "timeout", "error")
    assert _reasons_assert_denied_accepts() == DENIAL_REASONS


def _reasons_assert_denied_accepts() -> tuple[str, ...]:
    """The reasons ``assert_denied`` accepts, read from the message it refuses others with."""
    with pytest.raises(ValueError, match="reason must be one of ") as refused:
        assert_denied(Trace(), reason="timeout")
    return tuple(str(refused.value).split("one of ")[1].split("; got")[0].split(", "))


# --- E3: balance on every way a handoff can end ---------------------------------------------


def _writer(policy: HandoffPolicy, *steps: object, **options: Any) -> Agent:
    child = leaf("writer", *(steps or ({"text": "writer-ok"},)))
    sub = SubAgent("writer", agent=child, tool_name="delegate_writer")
    return parent_of([sub], turn(delegate("delegate_writer", id="w1")), policy=policy, **options)


def _nested_denial() -> Agent:
    child = Agent(
        name="child",
        model=ScriptedModel([turn(delegate("subagent_leaf")), {"text": "never"}]),
        subagents=[SubAgent("leaf", agent=leaf("leaf"))],
    )
    return parent_of([SubAgent("child", agent=child)], turn(delegate("subagent_child")))


def _parallel_siblings_cancelled() -> Agent:
    subs = [
        SubAgent("slow", agent=leaf("slow", {"text": "late", "latency": 30})),
        SubAgent("bad", agent=leaf("bad")),
    ]
    return parent_of(
        subs,
        turn(delegate("subagent_slow", id="a"), delegate("subagent_bad", id="b")),
        policy=HandoffPolicy(denied_tools={"subagent_bad"}),
        parallel_tool_calls=True,
    )


def _raising_filter(call: ToolCall) -> ToolCall:
    raise ValueError("bad filter")


class _ThrowingPrimary:
    """A primary executor that fails on every call with an ordinary error."""

    def execute(self, call: ToolCall) -> str:
        raise RuntimeError("primary down")


ENDINGS: dict[str, tuple[Callable[[], Agent], type[BaseException] | None, set[str]]] = {
    "completed": (lambda: _writer(HandoffPolicy()), None, {"completed"}),
    "denied-fail": (
        lambda: _writer(HandoffPolicy(denied_tools={"delegate_writer"})),
        HandoffDeniedError,
        {"denied"},
    ),
    "denied-report": (
        lambda: _writer(HandoffPolicy(denied_tools={"delegate_writer"}, on_denied=REPORT)),
        None,
        {"denied"},
    ),
    "denied-fallback": (
        lambda: _writer(
            HandoffPolicy(denied_tools={"delegate_writer"}, on_denied=FALLBACK),
            tool_executor=RecordingExecutor(),
        ),
        None,
        {"fallback"},
    ),
    "denied-fallback-unavailable": (
        lambda: _writer(HandoffPolicy(denied_tools={"delegate_writer"}, on_denied=FALLBACK)),
        None,
        {"unavailable"},
    ),
    "denied-fallback-primary-raises": (
        lambda: _writer(
            HandoffPolicy(denied_tools={"delegate_writer"}, on_denied=FALLBACK),
            tool_executor=_ThrowingPrimary(),
        ),
        None,
        {"failed"},
    ),
    "error-fail": (lambda: _writer(HandoffPolicy(), {"error": "boom"}), None, {"failed"}),
    "error-fallback": (
        lambda: _writer(
            HandoffPolicy(on_error=FALLBACK), {"error": "boom"}, tool_executor=RecordingExecutor()
        ),
        None,
        {"fallback"},
    ),
    "error-report": (
        lambda: _writer(HandoffPolicy(on_error=REPORT), {"error": "boom"}),
        None,
        {"failed"},
    ),
    "timeout": (
        lambda: _writer(
            HandoffPolicy(timeout=1, max_retries=1),
            {"text": "late", "latency": 9},
            {"text": "late", "latency": 9},
        ),
        None,
        {"failed"},
    ),
    "disabled-error": (
        lambda: _writer(HandoffPolicy(enabled=False), {"error": "boom"}),
        None,
        {"failed"},
    ),
    "filter-raises": (
        lambda: _writer(HandoffPolicy(input_filter=_raising_filter)),
        None,
        {"failed"},
    ),
    "script-exhausted-in-child": (
        lambda: _writer(HandoffPolicy(max_retries=3), turn(call("nothing"))),
        ScriptExhaustedError,
        {"failed"},
    ),
    "parallel-siblings-cancelled": (
        _parallel_siblings_cancelled,
        HandoffDeniedError,
        {"denied", "cancelled"},
    ),
    "nested-denial-propagates": (_nested_denial, HandoffDeniedError, {"denied", "failed"}),
}


def _balanced(trace: Trace) -> bool:
    started = Counter((e.run_id, e.handoff_id) for e in starts(trace))
    ended = Counter((e.run_id, e.handoff_id) for e in ends(trace))
    return bool(started) and started == ended and set(ended.values()) == {1}


@pytest.mark.parametrize("ending", list(ENDINGS))
def test_e3_every_handoff_start_has_exactly_one_end(ending: str) -> None:
    build, error, statuses = ENDINGS[ending]
    if error is None:
        trace = simulate(build(), "go").trace
    else:
        _, trace = run_raising(build(), error)
    assert _balanced(trace), trace.render()
    assert {e.status for e in ends(trace)} == statuses
    assert trace.unbalanced() == []


def _stuck_child_parent(policy: HandoffPolicy | None = None) -> Agent:
    async def never(request: ModelRequest) -> str:
        await asyncio.Event().wait()
        return "unreachable"

    child = Agent(name="stuck", model=FunctionModel(never))
    return parent_of(
        [SubAgent("stuck", agent=child)], turn(delegate("subagent_stuck")), policy=policy
    )


def test_e3_a_run_cancelled_from_outside_ends_its_handoff_as_cancelled() -> None:
    with Simulation() as sim:
        with pytest.raises(TimeoutError):
            sim.run_coroutine(asyncio.wait_for(_stuck_child_parent().arun("go"), 5))
        trace = sim.trace
    assert _balanced(trace)
    [end] = ends(trace)
    assert (end.status, end.t) == ("cancelled", 5.0)
    assert trace[-1].to_dict()["status"] == "cancelled"


@pytest.mark.parametrize(
    ("options", "error"),
    [({}, VirtualDeadlockError), ({"deadline": 60}, VirtualDeadlineError)],
    ids=["deadlock", "deadline"],
)
def test_e3_a_simulation_that_cannot_go_on_still_ends_every_handoff_for_observers(
    options: dict[str, Any], error: type[BaseException]
) -> None:
    observer = _Observer()
    parent = _stuck_child_parent(HandoffPolicy(timeout=3600) if options else None)
    with pytest.raises(error):
        simulate(parent, "go", observers=[observer], **options)
    assert _balanced(Trace(observer.events))
    assert [e.status for e in ends(Trace(observer.events))] == ["cancelled"]


def test_e2_cancelled_handoff_counts_the_attempt_it_was_cancelled_in() -> None:
    _, trace = run_raising(_parallel_siblings_cancelled(), HandoffDeniedError)
    [cancelled] = [e for e in ends(trace) if e.status == "cancelled"]
    begun = [
        e for e in trace if isinstance(e, HandoffAttemptStartEvent) and e.tool == cancelled.tool
    ]
    assert cancelled.attempts == len(begun) == 1


# --- E4: observers through pluggy -----------------------------------------------------------


class _Observer:
    def __init__(self) -> None:
        self.events: list[Event] = []

    @hookimpl
    def handoff_sim_event(self, event: Event) -> None:
        self.events.append(event)


def test_e4_observers_see_every_event_in_seq_order() -> None:
    observer = _Observer()
    result = simulate(_nested_retrying_parent(), "go", observers=[observer])
    assert observer.events == list(result.trace)


def test_e4_observers_plug_into_a_real_time_run_too() -> None:
    observer = _Observer()
    result = _writer(HandoffPolicy()).run("go", observers=[observer])
    assert [e.type for e in observer.events] == [e.type for e in result.trace]
    assert observer.events


def test_e4_several_observers_each_see_every_event() -> None:
    first, second = _Observer(), _Observer()
    simulate(_writer(HandoffPolicy()), "go", observers=[first, second])
    assert first.events == second.events != []
