"""What a run records stays what it was: frozen events, request histories that never change
afterwards, memory linear in the conversation, and the same results as before."""

from __future__ import annotations

import gc
import inspect
import json
import pickle
import tracemalloc
from typing import Any

import msgspec
import pytest

from handoff_sim import Agent, RunResult, Session, SubAgent, simulate, tool
from handoff_sim._context import Frame, RunEnvironment
from handoff_sim._safe import JsonProblem, parse_arguments
from handoff_sim.events import (
    EVENT_TYPES,
    Event,
    HandoffEndEvent,
    ToolEndEvent,
    ToolStartEvent,
    event_from_dict,
)
from handoff_sim.messages import Message, MessageHistory, ModelRequest, ToolCall
from handoff_sim.subagents._input import envelope
from handoff_sim.testing import ScriptedModel
from tests._helpers import call, delegate


def _end_event(**changes: Any) -> HandoffEndEvent:
    fields: dict[str, Any] = {
        "seq": 3,
        "t": 0.5,
        "agent": "boss",
        "depth": 1,
        "run_id": "run-1",
        "handoff_id": "handoff:c1",
        "parent_handoff_id": None,
        "call_id": "c1",
        "tool": "delegate_w",
        "subagent": "w",
        "session_mode": "new_session",
        "session_id": "s",
        "status": "completed",
        "reason": None,
        "attempts": 1,
        "duration_ms": 2.0,
        "output": "done",
        "error": None,
    }
    return HandoffEndEvent(**{**fields, **changes})


@pytest.mark.parametrize("cls", [Event, *EVENT_TYPES.values()], ids=lambda c: c.__name__)
def test_every_event_type_takes_the_stamp_first_then_keyword_only_fields_with_defaults(
    cls: type[Event],
) -> None:
    params = list(inspect.signature(cls).parameters.values())
    fields = msgspec.structs.fields(cls)
    assert [p.name for p in params] == [f.name for f in fields]
    stamp, own = params[:5], params[5:]
    assert [p.name for p in stamp] == ["seq", "t", "agent", "depth", "run_id"]
    assert all(p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD for p in stamp)
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in own)
    for p, f in zip(params, fields, strict=True):
        expected = inspect.Parameter.empty if f.default is msgspec.NODEFAULT else f.default
        assert p.default == expected, p.name
    if own:
        with pytest.raises(TypeError, match="Extra positional arguments"):
            cls(1, 0.0, "a", 0, "run-1", "one too many")  # type: ignore[call-arg]


def test_events_stay_frozen_hashable_and_comparable() -> None:
    event = _end_event()
    with pytest.raises(AttributeError, match="immutable type: 'HandoffEndEvent'"):
        event.status = "failed"  # type: ignore[misc]
    with pytest.raises(AttributeError, match="immutable"):
        del event.tool  # type: ignore[misc]
    assert event == _end_event()
    assert hash(event) == hash(_end_event())
    assert event != _end_event(seq=4)
    assert msgspec.structs.replace(event, seq=9).seq == 9
    assert event_from_dict(event.to_dict()) == event
    assert pickle.loads(pickle.dumps(event)) == event
    with pytest.raises(TypeError, match="Missing required argument 'error'"):
        HandoffEndEvent(**{k: v for k, v in event.to_dict().items() if k not in ("type", "error")})


def test_events_of_two_types_with_the_same_fields_are_never_equal() -> None:
    fields: dict[str, Any] = {"seq": 1, "t": 0.0, "agent": "a", "depth": 0, "run_id": "run-1"}
    start = ToolStartEvent(call_id="c", tool="t", arguments="x", **fields)
    assert start != Event(**fields)
    assert Event(**fields) != start
    assert start.type == "tool_start"
    assert start.to_dict()["type"] == "tool_start"


def test_kept_events_are_left_out_of_the_cyclic_garbage_collector() -> None:
    model = ScriptedModel([{"tool_calls": [delegate("subagent_w")]}, {"text": "done"}])
    child = Agent("w", ScriptedModel([{"text": "ok"}]))
    result = simulate(Agent("boss", model, subagents=[SubAgent("w", "", child)]), "go")
    assert [h.status for h in result.trace.handoffs()] == ["completed"]
    assert not any(gc.is_tracked(event) for event in result.trace)


def test_values_on_the_wire_keep_their_constructors() -> None:
    message = Message(role="tool", content="x", tool_call_id="c1", name="t")
    assert message.tool_calls == ()
    assert message.is_error is False
    with pytest.raises(AttributeError, match="immutable type: 'Message'"):
        message.content = "y"  # type: ignore[misc]
    assert message == Message(role="tool", content="x", tool_call_id="c1", name="t")
    assert hash(message) == hash(Message(role="tool", content="x", tool_call_id="c1", name="t"))
    assert pickle.loads(pickle.dumps(message)) == message
    assert repr(message).startswith("Message(role='tool', content='x', tool_calls=()")
    assert ToolCall("c1", "t").arguments == "{}"
    request = ModelRequest(agent="a", model="m", messages=(message,))
    assert request.tools == ()
    assert request.parallel_tool_calls is False


def _conversation(turns: int) -> ScriptedModel:
    steps: list[Any] = [{"tool_calls": [call("echo", {"x": i}, id=f"c{i}")]} for i in range(turns)]
    return ScriptedModel([*steps, {"text": "done"}])


@tool
def echo(x: int) -> str:
    """Echo x."""
    return f"echo {x}"


def test_a_recorded_request_never_changes_when_the_conversation_grows() -> None:
    model = _conversation(3)
    result = simulate(Agent("a", model, tools=[echo]), "hi")
    seen = [r.messages for r in model.requests]
    assert [len(m) for m in seen] == [1, 3, 5, 7]
    assert seen[0] == (Message(role="user", content="hi"),)
    assert seen[-1] == result.messages[:-1]
    assert tuple(seen[1]) == result.messages[:3]
    assert [m.role for m in reversed(seen[1])] == ["tool", "assistant", "user"]


def test_a_request_history_reads_like_the_tuple_it_stands_for() -> None:
    log = [Message(role="user", content=str(i)) for i in range(5)]
    view = MessageHistory(log, 3)
    log.append(Message(role="user", content="later"))
    as_tuple = tuple(log[:3])
    assert view == as_tuple
    assert as_tuple == view
    assert view == MessageHistory(list(as_tuple))
    assert view != list(as_tuple)
    assert view != MessageHistory(log, 2)
    assert hash(view) == hash(as_tuple)
    assert repr(view) == repr(as_tuple)
    assert view[-1] is log[2]
    assert view[0] is log[0]
    assert view[1:] == as_tuple[1:]
    assert view[::-1] == as_tuple[::-1]
    assert view[5:1] == ()
    assert view[-10:] == as_tuple
    assert view + (log[3],) == (*as_tuple, log[3])  # noqa: RUF005 - the operator is the point
    assert (log[3],) + view == (log[3], *as_tuple)  # noqa: RUF005
    assert log[1] in view
    assert log[4] not in view
    assert view.index(log[2]) == 2
    assert view.count(log[0]) == 1
    assert pickle.loads(pickle.dumps(view)) == as_tuple
    with pytest.raises(IndexError):
        view[3]
    with pytest.raises(IndexError):
        view[-4]
    with pytest.raises(TypeError):
        view["0"]  # type: ignore[call-overload]


def test_history_changed_in_place_between_turns_is_what_the_next_request_sees() -> None:
    session = Session(id="kept")

    @tool
    def forget(x: int) -> str:
        """Forget all but the first message."""
        del session.messages[1:]
        return "forgotten"

    steps: list[Any] = [
        {"tool_calls": [call("forget", {"x": 1}, id="c1")]},
        {"tool_calls": [call("forget", {"x": 2}, id="c2")]},
        {"text": "done"},
    ]
    model = ScriptedModel(steps)
    simulate(Agent("a", model, tools=[forget]), "hi", session=session)
    first, second, third = (r.messages for r in model.requests)
    assert [m.role for m in first] == ["user"]
    assert [m.role for m in second] == ["user", "tool"]  # the assistant message was forgotten
    assert [m.role for m in third] == ["user", "tool"]
    assert [m.content for m in second] == ["hi", "forgotten"]


def _traced_bytes_per_handoff(n: int) -> float:
    child_model = ScriptedModel([{"text": "ok"}] * n)
    steps: list[Any] = [{"tool_calls": [delegate("subagent_w")]} for _ in range(n)]
    parent_model = ScriptedModel([*steps, {"text": "done"}])
    child = Agent("w", child_model)
    parent = Agent("boss", parent_model, subagents=[SubAgent("w", "", child)], max_steps=n + 1)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        result = simulate(parent, "go", wall_clock=False)
        assert len(result.trace.handoffs()) == n
        return (tracemalloc.get_traced_memory()[1] - before) / n
    finally:
        tracemalloc.stop()


def test_recording_every_request_keeps_memory_linear_in_the_handoffs() -> None:
    small, large = _traced_bytes_per_handoff(50), _traced_bytes_per_handoff(400)
    assert large < 1.5 * small, (small, large)  # a copy of the history per request: ~8x


def test_agent_run_never_reprs_its_result(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(self: object) -> str:
        raise AssertionError("the result was repr'd")

    monkeypatch.setattr(RunResult, "__repr__", refuse)
    result = Agent("a", ScriptedModel([{"text": "hello"}])).run("hi")
    assert result.output == "hello"


@pytest.mark.parametrize(
    ("subagent", "tool_name", "output", "steps"),
    [
        ("child", "delegate", "child-done", 1),
        ('c"h\\', "t\n\t", "é\ud800\x01 </script>", 12),
        ("a", "b", None, 0),
        ("a", "b", "", 3),
    ],
)
def test_the_envelope_is_what_json_writes(
    subagent: str, tool_name: str, output: str | None, steps: int
) -> None:
    data: dict[str, Any] = {"subagent": subagent, "toolName": tool_name}
    if output is not None:
        data["output"] = output
    data["steps"] = steps
    expected = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    assert envelope(subagent, tool_name, output, steps) == expected


def test_the_envelope_of_unusual_types_is_still_what_json_writes() -> None:
    class Name(str):
        pass

    written = envelope(Name("n"), "t", "o", True)
    assert written == '{"subagent":"n","toolName":"t","output":"o","steps":true}'


def test_arguments_read_twice_are_parsed_once_and_equal_text_is_read_again() -> None:
    text = json.dumps({"task": "x"})
    first = parse_arguments(text)
    assert parse_arguments(text) is first
    again = parse_arguments("".join(text))  # equal text, another object
    assert again == first
    with pytest.raises(JsonProblem, match="not valid JSON"):
        parse_arguments("{")
    with pytest.raises(JsonProblem, match="not JSON text"):
        parse_arguments(None)


def test_an_event_built_from_the_stamp_takes_the_next_number_and_the_time_given() -> None:
    env = RunEnvironment(clock=lambda: 2.5)  # a given clock counts from 0
    frame = Frame("boss", 0, "run-1", Session(id="s"))
    env.publish(ToolStartEvent(*env.stamp(frame, 1), call_id="c1", tool="t", arguments="{}"))
    env.publish(
        ToolEndEvent(
            *env.stamp(frame, None, 1_500_000), call_id="c1", tool="t", status="ok", output="done"
        )
    )
    stamp: dict[str, Any] = {"agent": "boss", "run_id": "run-1"}
    assert env.events == [
        ToolStartEvent(seq=1, t=2.5, depth=1, call_id="c1", tool="t", arguments="{}", **stamp),
        ToolEndEvent(
            seq=2, t=1.5, depth=0, call_id="c1", tool="t", status="ok", output="done", **stamp
        ),
    ]
    (first, second) = env.events
    assert type(first) is ToolStartEvent
    assert type(second) is ToolEndEvent
    assert repr(first).startswith("ToolStartEvent(seq=1, t=2.5, agent='boss', depth=1")
