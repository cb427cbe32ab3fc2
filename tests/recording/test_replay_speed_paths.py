"""The shortcuts of replay's hot path decide exactly as the full fingerprint does.

A request is compared with the next recorded step field by field, its last message
matched against the recorded text when the preview is all of it, else hashed; other
requests find their step through an index; each lane remembers the run it served last.
Each test here is a case where a shortcut could decide differently from the definition:
it must not.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

import msgspec
import pytest

from handoff_sim import ModelRequest
from handoff_sim.errors import ReplayExhaustedError, ReplayMismatchError
from handoff_sim.messages import Message, ToolSpec
from handoff_sim.recording import ReplayModel, fingerprint, normalise
from handoff_sim.simulation import Simulation


def _request(text: str, *, role: str = "user", tools: Any = ()) -> ModelRequest:
    return ModelRequest(
        agent="a",
        model="m",
        messages=[Message(role=role, content=text)],  # type: ignore[arg-type]
        tools=tools,
    )


def _asked(request: ModelRequest, **changed: Any) -> dict[str, Any]:
    found = msgspec.to_builtins(fingerprint(request))
    assert isinstance(found, dict)
    return {**found, **changed}


def _run(coro: Coroutine[Any, Any, Any]) -> Any:
    with Simulation() as sim:
        return sim.run_coroutine(coro)


def _answers(model: ReplayModel, *requests: ModelRequest) -> list[str | None]:
    async def asking() -> list[str | None]:
        return [(await model.complete(r)).text for r in requests]

    answered: list[str | None] = _run(asking())
    return answered


def test_a_request_with_new_call_ids_matches_the_step_recorded_with_others() -> None:
    recorded = _request('{"id": "call_Ab12Cd34Ef56", "order": 42}', role="tool")
    model = ReplayModel([{"text": "ok", "request": _asked(recorded)}], agent="a")
    assert "<id>" in fingerprint(recorded).text  # the preview holds a placeholder
    again = _request('{"id": "call_Zz98Yy76Xx54", "order": 42}', role="tool")
    assert _answers(model, again) == ["ok"]


def test_a_redacted_preview_still_replays_by_the_recorded_hash() -> None:
    recorded = _request("my card is 4242")
    step = {"text": "ok", "request": _asked(recorded, text="my card is [REDACTED]")}
    assert _answers(ReplayModel([step], agent="a"), recorded) == ["ok"]


def test_a_request_equal_to_an_edited_preview_does_not_match_a_hash_it_does_not_have() -> None:
    recorded = _request("refund order 42")
    forged = {"text": "ok", "request": _asked(recorded, text="refund order 43")}
    model = ReplayModel([forged], agent="a")
    with pytest.raises(ReplayMismatchError) as caught:
        _answers(model, _request("refund order 43"))
    assert any("the last message changed" in line for line in caught.value.differences)


def test_a_request_holding_a_placeholder_matches_as_its_normalised_text_does() -> None:
    recorded = _request("see call_Ab12Cd34Ef56 for <time> details")
    model = ReplayModel([{"text": "ok", "request": _asked(recorded)}], agent="a")
    literal = _request(normalise("see call_Ab12Cd34Ef56 for <time> details"))
    assert literal.messages[-1].content == "see <id> for <time> details"
    assert _answers(model, literal) == ["ok"]


def test_a_text_that_normalises_further_than_the_recorded_one_does_not_match() -> None:
    # normalising the recorded text left an id beside the new <time>; normalising this
    # request, which reads as the recorded text did once normalised, replaces that id too
    recorded = _request("at 2024-01-01T10:00:00Zcall_abc1234 done")
    model = ReplayModel([{"text": "ok", "request": _asked(recorded)}], agent="a")
    looks_the_same = _request(fingerprint(recorded).text)
    assert looks_the_same.messages[-1].content == "at <time>call_abc1234 done"
    assert fingerprint(looks_the_same).sha256 != fingerprint(recorded).sha256
    with pytest.raises(ReplayMismatchError):
        _answers(model, looks_the_same)


def test_tools_offered_in_a_list_changed_between_requests_are_read_again() -> None:
    offered = [ToolSpec("lookup", "")]
    first = _request("hi", tools=offered)
    model = ReplayModel(
        [{"text": "one", "request": _asked(first)}, {"text": "two", "request": _asked(first)}],
        agent="a",
    )

    async def asking() -> list[str | None]:
        answers = [(await model.complete(first)).text]
        offered.append(ToolSpec("refund", ""))  # the same list object, one tool more
        answers.append((await model.complete(_request("hi", tools=offered))).text)
        return answers

    with pytest.raises(ReplayMismatchError) as caught:
        _run(asking())
    assert caught.value.differences == ["tool added: refund"]


def test_steps_of_one_request_are_served_in_lane_order_whatever_else_is_asked_between() -> None:
    same, other = _request("same"), _request("other")
    steps = [{"text": f"same {i}", "request": _asked(same)} for i in range(3)]
    steps.insert(1, {"text": "other", "request": _asked(other)})
    model = ReplayModel(steps, agent="a")
    asked = _answers(model, same, same, other, same)
    assert asked == ["same 0", "same 1", "other", "same 2"]
    with pytest.raises(ReplayExhaustedError):
        _answers(model, same)


def test_a_run_cut_off_twice_in_one_task_gives_its_step_back_both_times() -> None:
    question = _request("q")
    slow = {"text": "slow", "latency": "12s", "request": _asked(question)}
    model = ReplayModel([slow], agent="a")

    async def one_task() -> tuple[str | None, float]:
        for _ in range(2):  # asyncio.timeout cancels this task itself: the same run goes on
            with pytest.raises(TimeoutError):
                async with asyncio.timeout(10):
                    await model.complete(question)
        response = await model.complete(question)
        return response.text, asyncio.get_running_loop().time()

    assert _run(one_task()) == ("slow", 32.0)
    model.assert_complete()


def test_each_replay_of_a_loaded_recording_starts_with_every_step_unused() -> None:
    question = _request("q")
    template = ReplayModel([{"text": "x", "request": _asked(question)}], agent="a")
    first, second = template.again(), template.again(match="tools")
    assert _answers(first, question) == ["x"]
    assert (second.remaining, second.match, second.requests) == (1, "tools", [])
    assert _answers(second, _request("anything")) == ["x"]
    assert template.remaining == 1
