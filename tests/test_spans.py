"""The span model: one pass over a trace pairs every start with its end, open ones kept."""

from __future__ import annotations

import pickle
from collections.abc import Iterator, Sequence
from typing import Any, overload

import pytest

from handoff_sim import HandoffPolicy, SubAgent, Trace, check_invariants, simulate
from handoff_sim._spans import HandoffSpan, RunSpan, build_spans
from handoff_sim.events import (
    Event,
    HandoffAttemptEndEvent,
    HandoffAttemptStartEvent,
    HandoffEndEvent,
    HandoffStartEvent,
    ModelRequestEvent,
    RunEndEvent,
    RunStartEvent,
)
from tests._helpers import delegate, leaf, parent_of, turn

_STAMP: dict[str, Any] = {"t": 0.0, "agent": "boss", "depth": 0}


def _start(seq: int, run_id: str, call: str, **extra: Any) -> HandoffStartEvent:
    fields: dict[str, Any] = {
        "parent_handoff_id": None,
        "session_mode": "new_session",
        "session_id": None,
    }
    fields.update(extra)
    return HandoffStartEvent(
        seq=seq,
        run_id=run_id,
        handoff_id=f"handoff:{call}",
        call_id=call,
        tool="delegate_w",
        subagent="w",
        **(_STAMP | {"depth": 1}),
        **fields,
    )


def _end(seq: int, run_id: str, call: str, status: str = "completed") -> HandoffEndEvent:
    return HandoffEndEvent(
        seq=seq,
        run_id=run_id,
        handoff_id=f"handoff:{call}",
        parent_handoff_id=None,
        call_id=call,
        tool="delegate_w",
        subagent="w",
        session_mode="new_session",
        session_id=None,
        status=status,  # type: ignore[arg-type]
        reason=None,
        attempts=1,
        duration_ms=0.0,
        output="ok",
        error=None,
        **(_STAMP | {"depth": 1}),
    )


def _attempt(seq: int, run_id: str, call: str, number: int = 1, *, end: bool = False) -> Event:
    fields: dict[str, Any] = {
        "seq": seq,
        "run_id": run_id,
        "handoff_id": f"handoff:{call}",
        "call_id": call,
        "tool": "delegate_w",
        "attempt": number,
        **_STAMP,
    }
    if end:
        return HandoffAttemptEndEvent(**fields, outcome="ok", duration_ms=0.0)
    return HandoffAttemptStartEvent(**fields)


def _nested_run() -> Trace:
    inner = leaf("inner", {"text": "deep"})
    middle = parent_of(
        [SubAgent("inner", agent=inner)],
        turn(delegate("subagent_inner", id="m1")),
        {"text": "mid"},
        name="middle",
        policy=HandoffPolicy(max_depth=0),
    )
    top = parent_of(
        [SubAgent("middle", agent=middle)],
        turn(delegate("subagent_middle", id="t1")),
        {"text": "top"},
        policy=HandoffPolicy(max_depth=0),
    )
    return simulate(top, "go").trace


class _CountingEvents(Sequence[Event]):
    """A sequence that counts how often it is walked and indexed."""

    def __init__(self, events: Sequence[Event]) -> None:
        self.events = list(events)
        self.walks = 0
        self.lookups = 0

    def __len__(self) -> int:
        return len(self.events)

    @overload
    def __getitem__(self, index: int) -> Event: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Event]: ...
    def __getitem__(self, index: int | slice) -> Event | Sequence[Event]:
        self.lookups += 1
        return self.events[index]

    def __iter__(self) -> Iterator[Event]:
        self.walks += 1
        return iter(self.events)


def test_spans_are_built_in_one_walk_over_the_events() -> None:
    events = _CountingEvents(_nested_run().events)
    spans = build_spans(events)
    assert (events.walks, events.lookups) == (1, 0)
    assert len(spans.at) == len(events)


def test_every_span_knows_the_positions_of_its_events() -> None:
    trace = _nested_run()
    spans = trace.spans()
    for handoff in spans.handoffs:
        assert trace[handoff.start_at] is handoff.start
        assert trace[handoff.end_at] is handoff.end
        assert spans.at[handoff.start_at] is handoff is spans.at[handoff.end_at]
        for attempt in handoff.attempts:
            assert trace[attempt.start_at] is attempt.start
            assert trace[attempt.end_at] is attempt.end
    for run in spans.runs:
        assert trace[run.start_at] is run.start
        assert trace[run.end_at] is run.end
    for call in spans.model_calls:
        assert call.response is not None
        assert call.response_at == call.request_at + 1


def test_a_handoff_made_by_a_sub_agent_nests_under_the_handoff_that_started_it() -> None:
    spans = _nested_run().spans().link_runs()
    outer, inner = spans.handoffs
    assert (outer.handoff_id, inner.handoff_id) == ("handoff:t1", "handoff:m1")
    assert inner.parent is outer
    assert outer.children == [inner]
    child_run = spans.last_run[inner.run_id]
    assert child_run.attempt is outer.attempts[0]
    assert child_run.caller is spans.last_run[outer.run_id]
    assert outer.attempts[0].runs == [child_run]


def test_a_handoff_runs_in_the_tool_call_of_the_same_call_id() -> None:
    spans = _nested_run().spans()
    for handoff in spans.handoffs:
        assert handoff.tool_call is not None
        assert handoff.tool_call.call_id == handoff.first.call_id
        assert handoff.tool_call.handoff is handoff


def test_a_start_without_an_end_stays_open_with_its_position() -> None:
    trace = _nested_run()
    cut = trace.index(trace.of_type(HandoffAttemptEndEvent)[0])
    spans = build_spans(trace[:cut])
    open_handoffs = [h for h in spans.handoffs if h.end is None]
    assert [h.handoff_id for h in open_handoffs] == ["handoff:t1", "handoff:m1"]
    assert all(h.end_at == -1 and h.start_at >= 0 for h in open_handoffs)
    assert [a.end for a in spans.attempts] == [None, None]
    assert trace[:cut].unbalanced() == [
        "handoff:t1: handoff_start without handoff_end",
        "handoff:m1: handoff_start without handoff_end",
    ]


def test_an_end_without_a_start_is_a_span_of_its_own() -> None:
    spans = build_spans([_end(1, "run-1", "c1")])
    [alone] = spans.handoffs
    assert (alone.start, alone.start_at, alone.end_at, alone.again) == (None, -1, 0, False)
    assert Trace([_end(1, "run-1", "c1")]).handoffs() == []


def test_the_same_call_id_in_two_runs_makes_two_handoffs() -> None:
    events = [_start(1, "run-1", "c1"), _start(2, "run-2", "c1"), _end(3, "run-2", "c1")]
    events.append(_end(4, "run-1", "c1", status="failed"))
    first, second = build_spans(events).handoffs
    assert (first.run_id, first.end_at, second.run_id, second.end_at) == ("run-1", 3, "run-2", 2)
    assert not first.again
    assert not second.again
    assert [r.status for r in Trace(events).handoffs()] == ["failed", "completed"]


def test_a_repeated_handoff_id_in_one_run_pairs_each_start_with_its_own_end() -> None:
    events = [_start(1, "r", "c1"), _end(2, "r", "c1"), _start(3, "r", "c1")]
    events.append(_end(4, "r", "c1", status="failed"))
    first, second = build_spans(events).handoffs
    assert (first.end_at, second.end_at, second.again) == (1, 3, True)
    assert [r.status for r in Trace(events).handoffs()] == ["completed", "failed"]
    assert [v.message for v in check_invariants(events)] == ["handoff:c1 in r started twice"]


def test_a_second_end_of_one_handoff_stands_alone_marked_again() -> None:
    events = [_start(1, "r", "c1"), _end(2, "r", "c1"), _end(3, "r", "c1")]
    paired, extra = build_spans(events).handoffs
    assert (paired.end_at, extra.start, extra.again) == (1, None, True)
    assert Trace(events).unbalanced() == ["handoff:c1: handoff_end without handoff_start"]


def test_parallel_handoffs_pair_their_interleaved_events_by_id() -> None:
    events = [
        _start(1, "r", "a"),
        _start(2, "r", "b"),
        _attempt(3, "r", "b"),
        _attempt(4, "r", "a"),
    ]
    events += [_attempt(5, "r", "a", end=True), _attempt(6, "r", "b", end=True)]
    events += [_end(7, "r", "b"), _end(8, "r", "a")]
    a, b = build_spans(events).handoffs
    assert (a.start_at, a.end_at, [x.start_at for x in a.attempts]) == (0, 7, [3])
    assert (b.start_at, b.end_at, [x.end_at for x in b.attempts]) == (1, 6, [5])


def test_an_attempt_outside_any_handoff_is_kept_without_one() -> None:
    events = [_attempt(1, "r", "c9"), _attempt(2, "r", "c9", end=True)]
    [attempt] = build_spans(events).attempts
    assert (attempt.handoff, attempt.inside, attempt.start_at, attempt.end_at) == (
        None,
        False,
        0,
        1,
    )


def test_a_model_call_with_no_answer_is_cut_by_its_runs_next_event() -> None:
    stamp = _STAMP | {"run_id": "r"}
    events = [
        RunStartEvent(seq=1, input="go", session_id="s", **stamp),
        ModelRequestEvent(seq=2, step=1, messages=1, tools=(), **stamp),
        RunEndEvent(seq=3, status="failed", output=None, steps=1, error="boom", **stamp),
    ]
    spans = build_spans(events)
    [call] = spans.model_calls
    assert (call.response, call.cut_at) == (None, 2)
    [run] = spans.runs
    assert isinstance(run, RunSpan)
    assert (run.start_at, run.end_at) == (0, 2)


def test_a_trace_builds_its_spans_once() -> None:
    trace = _nested_run()
    assert trace.spans() is trace.spans()
    assert isinstance(trace.spans().handoffs[0], HandoffSpan)


def test_a_pickled_trace_leaves_its_span_model_behind_and_rebuilds_it() -> None:
    trace = _nested_run()
    trace.spans()
    alone = _nested_run()
    assert len(pickle.dumps(trace)) == len(pickle.dumps(alone))
    again = pickle.loads(pickle.dumps(trace))
    assert again == trace
    assert again.handoffs() == trace.handoffs()
    assert again.render_tree() == trace.render_tree()


def test_a_pickled_handoff_record_carries_its_own_events_not_the_whole_trace() -> None:
    trace = _nested_run()
    record = trace.handoffs()[0]
    copy = pickle.loads(pickle.dumps(record))
    assert copy == record
    assert repr(copy) == repr(record)
    assert copy.attempt_outcomes == record.attempt_outcomes == ("ok",)
    assert len(pickle.dumps(record)) < len(pickle.dumps(trace))


def test_handoff_records_equal_by_value_across_identical_traces() -> None:
    one, two = _nested_run(), _nested_run()
    assert one.handoffs() == two.handoffs()
    assert {*one.handoffs()} == {*two.handoffs()}
    record = one.handoffs()[0]
    assert repr(record).startswith("HandoffRecord(handoff_id='handoff:t1', parent_handoff_id=None,")
    assert record.started_at <= record.ended_at
    with pytest.raises(AttributeError):
        record.status = "failed"  # type: ignore[misc]
