"""Request fingerprints: volatile ids normalised out, every real change seen and named."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from handoff_sim import ModelRequest, ToolCall
from handoff_sim.errors import RecordingFormatError
from handoff_sim.messages import Message, ToolSpec
from handoff_sim.recording import differences, fingerprint, normalise
from handoff_sim.testing._fingerprint import Fingerprint


def _request(
    last: Message,
    *,
    tools: tuple[str, ...] = ("lookup",),
    system: str | None = "You are triage.",
    model: str = "gpt-4o",
) -> ModelRequest:
    messages = [Message(role="system", content=system)] if system is not None else []
    messages += [Message(role="user", content="refund order 42"), last]
    return ModelRequest(
        agent="triage",
        model=model,
        messages=messages,
        tools=[ToolSpec(name, f"the {name} tool") for name in tools],
    )


def _tool_result(content: str, call_id: str = "call_1") -> Message:
    return Message(role="tool", content=content, tool_call_id=call_id, name="lookup")


def test_fingerprint_ignores_call_ids_uuids_and_timestamps() -> None:
    first = _request(
        _tool_result(
            '{"id": "call_Ab12Cd34Ef56", "trace": "123e4567-e89b-12d3-a456-426614174000", '
            '"at": "2026-12-01T23:40:00Z", "created_at": 1764632400, "order": 42}',
            call_id="call_Ab12Cd34Ef56",
        )
    )
    again = _request(
        _tool_result(
            '{"id": "call_Zz98Yy76Xx54", "trace": "9f8e7d6c5b4a39281716f5e4d3c2b1a0", '
            '"at": "2026-12-02T08:15:30.125+01:00", "created_at": 1764660930123, "order": 42}',
            call_id="call_Zz98Yy76Xx54",
        )
    )
    assert fingerprint(first).key() == fingerprint(again).key()
    assert differences(fingerprint(first), fingerprint(again)) == []


def test_fingerprint_sees_one_changed_word() -> None:
    refund = fingerprint(_request(Message(role="user", content="Refund order 42 today")))
    reimburse = fingerprint(_request(Message(role="user", content="Reimburse order 42 today")))
    assert refund.sha256 != reimburse.sha256
    assert differences(refund, reimburse) == [
        "the last message changed: recorded 'Refund order 42 today' now 'Reimburse order 42 today'"
    ]


def test_a_number_that_is_no_time_is_kept() -> None:
    one = fingerprint(_request(_tool_result('{"results": 1764632400}')))
    other = fingerprint(_request(_tool_result('{"results": 1764632401}')))
    assert one.sha256 != other.sha256


def test_tool_calls_are_fingerprinted_by_name_and_arguments_not_by_call_id() -> None:
    def calls(call_id: str, arguments: str) -> Message:
        return Message(role="assistant", tool_calls=(ToolCall(call_id, "lookup", arguments),))

    same = fingerprint(_request(calls("call_1", '{"order": 42}')))
    renamed = fingerprint(_request(calls("call_2", '{"order": 42}')))
    other_arguments = fingerprint(_request(calls("call_1", '{"order": 43}')))
    assert same.key() == renamed.key()
    assert same.sha256 != other_arguments.sha256
    assert same.role == "assistant"


def test_normalise_replaces_provider_ids_but_not_ordinary_words() -> None:
    text = "msg_count stays; call_1 stays; toolu_01A09q90qw90lq917835lq9 and fc_68a1b2c3d4e5f6 go"
    assert normalise(text) == "msg_count stays; call_1 stays; <id> and <id> go"
    assert normalise("uuid 0123456789ABCDEF0123456789abcdef") == "uuid <uuid>"
    assert normalise('{"ts": "1764632400"}') == '{"ts": <time>}'


def test_differences_name_a_tool_added_and_a_tool_removed() -> None:
    last = Message(role="user", content="hi")
    recorded = fingerprint(_request(last, tools=("lookup", "refund")))
    actual = fingerprint(_request(last, tools=("lookup", "reimburse")))
    assert differences(recorded, actual) == ["tool added: reimburse", "tool removed: refund"]


def test_differences_name_tools_offered_in_another_order() -> None:
    last = Message(role="user", content="hi")
    recorded = fingerprint(_request(last, tools=("a", "b")))
    actual = fingerprint(_request(last, tools=("b", "a")))
    assert differences(recorded, actual) == [
        "the tools are offered in another order: recorded a, b; now b, a"
    ]


def test_differences_name_a_changed_prompt_model_and_role() -> None:
    recorded = fingerprint(_request(Message(role="user", content="hi")))
    actual = fingerprint(_request(_tool_result("hi"), system="You are billing.", model="gpt-4.1"))
    assert differences(recorded, actual) == [
        "model: recorded gpt-4o, now gpt-4.1",
        "the system prompt changed",
        "the last message's role: recorded user, now tool",
    ]
    no_prompt = fingerprint(_request(Message(role="user", content="hi"), system=None))
    assert no_prompt.system is None
    assert differences(recorded, no_prompt) == ["the system prompt was removed"]
    assert differences(no_prompt, recorded) == ["a system prompt was added"]


def test_terminal_never_receives_escape_sequences_from_recorded_previews() -> None:
    recorded = fingerprint(_request(Message(role="user", content="\x1b]0;pwned\x07 hello")))
    actual = fingerprint(_request(Message(role="user", content="line\nbreak\u202e")))
    (line,) = differences(recorded, actual)
    assert "\x1b" not in line
    assert "\n" not in line
    assert "\u202e" not in line
    assert "\\x1b]0;pwned\\x07" in line
    assert "\\n" in line


def test_preview_is_at_most_200_characters_and_long_ones_are_cut_in_differences() -> None:
    long = fingerprint(_request(Message(role="user", content="x" * 10_000)))
    assert len(long.text) == 200
    other = fingerprint(_request(Message(role="user", content="y" * 10_000)))
    (line,) = differences(long, other)
    assert len(line) < 200
    assert "..." in line


def test_a_lone_surrogate_in_a_message_is_fingerprinted() -> None:
    found = fingerprint(_request(Message(role="user", content="bad \ud800 text")))
    assert len(found.sha256) == 16


def test_a_recorded_fingerprint_with_a_malformed_hash_is_refused_naming_where() -> None:
    with pytest.raises(RecordingFormatError, match=r"agent 'x', step 2: request: .*sha256"):
        Fingerprint.from_mapping({"role": "user", "sha256": "not-hex"}, "agent 'x', step 2")


def test_the_preview_is_not_compared() -> None:
    found = fingerprint(_request(Message(role="user", content="secret sk-123")))
    redacted = Fingerprint(**{**_fields(found), "text": "secret <redacted>"})
    assert redacted.key() == found.key()


def _fields(found: Fingerprint) -> dict[str, object]:
    return {name: getattr(found, name) for name in found.__struct_fields__}


_HEX = "0123456789abcdef"
_VOLATILE = st.one_of(
    st.uuids().map(str),
    st.uuids().map(lambda u: u.hex),
    st.text(_HEX + "ABCDEF", min_size=5, max_size=20).map(lambda t: f"call_{t}9"),
    st.text(_HEX, min_size=5, max_size=20).map(lambda t: f"toolu_0{t}"),
    st.datetimes().map(lambda d: d.isoformat(timespec="seconds") if d.year >= 1000 else None),
    st.integers(10**9, 10**10 - 1).map(lambda n: f'"timestamp": {n}'),
    st.integers(10**12, 10**13 - 1).map(lambda n: f'"ts": "{n}"'),
).filter(lambda token: token is not None)
_FILLER = st.text(alphabet=' ,:{}"abcxyz_-0123456789', max_size=12)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(_FILLER, _VOLATILE), min_size=1, max_size=4), _FILLER)
def test_every_volatile_id_is_normalised_out_wherever_it_stands(
    parts: list[tuple[str, str]], tail: str
) -> None:
    text = "".join(f"{filler} {token} " for filler, token in parts) + tail
    normalised = normalise(text)
    for _, token in parts:
        value = token.rsplit(" ", 1)[-1].strip('"')
        assert value not in normalised, (text, normalised)
