"""Request fingerprints: what a replay compares a model request with, volatile ids left out.

A fingerprint keeps the model name, the offered tool names, the last message's role, a
hash of its normalised content and of the system prompt, and a short preview for
messages. Call ids, uuids and timestamps are replaced by placeholders before hashing, so
a request made again tomorrow, with new ids, has the same fingerprint.
"""

from __future__ import annotations

import hashlib
import operator
import re
from collections.abc import Mapping, Sequence
from typing import Annotated, Any

import msgspec

from handoff_sim._terminal import escape_value
from handoff_sim.errors import RecordingFormatError
from handoff_sim.messages import Message, ModelRequest, ToolSpec

__all__ = [
    "PREVIEW_CHARS",
    "Fingerprint",
    "Key",
    "KeyReader",
    "differences",
    "fingerprint",
    "normalise",
    "request_key",
    "whole_text",
]

PREVIEW_CHARS = 200
"""The longest preview a fingerprint keeps of its last message."""

_SHOWN = 60  # characters of a preview a difference line shows

_PROVIDER_ID = re.compile(
    r"\b(?:(?:call|fc|resp|msg|toolu|pyd_ai)_|chatcmpl-)(?=[A-Za-z0-9_-]*[0-9])[A-Za-z0-9_-]{6,}"
)
_UUID = re.compile(
    r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"
    r"|\b[0-9a-fA-F]{32}\b"
)
_ISO_TIME = re.compile(
    r"\b[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:[.,][0-9]+)?)?"
    r"(?:Z|[+-][0-9]{2}(?::?[0-9]{2})?)?(?![0-9])"
)
_UNIX_TIME = re.compile(
    r"""(?P<key>(?<![A-Za-z0-9_])["']?(?:\w*(?:time|Time|TIME)\w*|\w*(?:_ts|_at)|ts|TS)["']?"""
    r"""\s*[:=]\s*)(?P<quote>["']?)(?:[0-9]{13}|[0-9]{10})(?:\.[0-9]+)?(?P=quote)(?![0-9])"""
)
_HASH = Annotated[str, msgspec.Meta(pattern=r"^[0-9a-f]{16}$")]


class Fingerprint(msgspec.Struct, frozen=True, kw_only=True):
    """What a replay compares: model, offered tools, last message (role, hash), system prompt.

    ``text`` is a preview of the normalised last message, shown in a mismatch; it is not
    compared (a recording's previews may be redacted).
    """

    model: str
    tools: tuple[str, ...]
    role: str
    sha256: _HASH
    system: _HASH | None = None
    text: str = ""

    def key(self) -> Key:
        """What two requests must share to be the same request."""
        return (self.model, self.tools, self.role, self.sha256, self.system)

    @classmethod
    def from_mapping(cls, raw: Mapping[str, Any], where: str) -> Fingerprint:
        """A fingerprint as a recording writes it (``request:``), checked."""
        try:
            return msgspec.convert({"tools": [], "model": "", **raw}, cls)
        except (msgspec.ValidationError, TypeError) as exc:
            raise RecordingFormatError(where, f"request: {exc}") from None


# What each pattern needs to be found at all, looked for at C speed first (a request is
# fingerprinted on every model call; most texts hold no volatile id and skip the patterns).
_PREFIXES = (b"call_", b"fc_", b"resp_", b"msg_", b"toolu_", b"pyd_ai_")
_HEX = bytes.maketrans(b"0123456789abcdefABCDEF", b"\x02" * 22)
_DIGIT = bytes.maketrans(b"0123456789", b"\x01" * 10)
_HEX_RUN = b"\x02" * 8
_DIGIT_RUN = b"\x01" * 10
_DATE = b"\x01\x01\x01\x01-\x01\x01-\x01\x01"


def normalise(text: str) -> str:
    """``text`` with volatile ids replaced: provider call and message ids (``call_…``,
    ``fc_…``, ``resp_…``, ``msg_…``, ``toolu_…``) by ``<id>``, uuids by ``<uuid>``, ISO-8601
    date-times and 10- or 13-digit unix times under a key naming a time by ``<time>``."""
    return _normalised(text, _utf8(text))


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def _normalised(text: str, raw: bytes) -> str:
    if (b"_" in raw and any(prefix in raw for prefix in _PREFIXES)) or b"chatcmpl-" in raw:
        text = _PROVIDER_ID.sub("<id>", text)
    if _HEX_RUN in raw.translate(_HEX):
        text = _UUID.sub("<uuid>", text)
    digits = raw.translate(_DIGIT)
    if _DATE in digits:
        text = _ISO_TIME.sub("<time>", text)
    if _DIGIT_RUN in digits:
        text = _UNIX_TIME.sub(lambda m: f"{m['key']}<time>", text)
    return text


def _digest(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()[:16]


def _normalised_digest(text: str) -> tuple[str, str]:
    """The normalised text and its digest."""
    raw = _utf8(text)
    normalised = _normalised(text, raw)
    return normalised, _digest(raw if normalised is text else _utf8(normalised))


_SYSTEM_DIGESTS: dict[str, str] = {}
_SYSTEM_CACHE = 256  # system prompts kept; the cache is emptied when it is full


def _system_digest(text: str) -> str:
    """The digest of a normalised system prompt: the same prompt, call after call, is
    looked up by its value (a hash the string keeps, its identity compared first)."""
    found = _SYSTEM_DIGESTS.get(text)
    if found is None:
        found = _normalised_digest(text)[1]
        if len(_SYSTEM_DIGESTS) >= _SYSTEM_CACHE:
            _SYSTEM_DIGESTS.clear()
        _SYSTEM_DIGESTS[text] = found
    return found


def _content(message: Message) -> str:
    """What of the last message is hashed: its text, or each tool call's name and arguments."""
    if message.tool_calls and message.role == "assistant":
        calls = "\n".join([f"{c.name} {c.arguments}" for c in message.tool_calls])
        return f"{message.content}\n{calls}" if message.content else calls
    return message.content or ""


def _system(messages: Sequence[Message]) -> str | None:
    """The digest of the request's system prompt (first message, else the first system one)."""
    first = messages[0]
    if first.role == "system":  # where a system prompt usually is
        return _system_digest(first.content or "")
    if "system" not in map(_ROLE, messages):  # no Python code run per message
        return None
    for message in messages:
        if message.role == "system":
            return _system_digest(message.content or "")
    return None


Key = tuple[str, tuple[str, ...], str, str, "str | None"]
"""What :meth:`Fingerprint.key` gives: what two requests must share to be the same."""

_ROLE = operator.attrgetter("role")
_NOTHING = _digest(b"")  # the digest of a request without messages


def _parts(request: ModelRequest, names: tuple[str, ...]) -> tuple[Key, str]:
    """The request's key (``names``: its tool names) and its last message normalised."""
    messages = request.messages
    if not messages:
        return (request.model, names, "", _NOTHING, None), ""
    last = messages[-1]
    content, digest = _normalised_digest(_content(last))
    return (request.model, names, last.role, digest, _system(messages)), content


def request_key(request: ModelRequest) -> Key:
    """``fingerprint(request).key()``, without building the fingerprint."""
    return _parts(request, request.tool_names)[0]


def fingerprint(request: ModelRequest) -> Fingerprint:
    """The fingerprint of ``request``, computed on its normalised (never redacted) content."""
    (model, tools, role, digest, system), content = _parts(request, request.tool_names)
    return Fingerprint(
        model=model,
        tools=tools,
        role=role,
        sha256=digest,
        system=system,
        text=content[:PREVIEW_CHARS],
    )


def whole_text(recorded: Fingerprint) -> str | None:
    """The recorded last message itself, normalised, when its preview is all of it: the
    preview has the recorded digest and holds no ``<`` (so no placeholder, and normalising
    it again leaves it as it is). ``None`` for a cut or redacted preview."""
    text = recorded.text
    if "<" in text or _digest(_utf8(text)) != recorded.sha256:
        return None
    return text


class KeyReader:
    """Reads the keys of one lane's requests, the cheap fields first (a replay's hot path).

    It keeps the tool names of the last tool specs it saw: an agent offers the same
    specs (one tuple) request after request.
    """

    __slots__ = ("_names", "_specs")

    def __init__(self) -> None:
        self._specs: object = None
        self._names: tuple[str, ...] = ()

    def tool_names(self, request: ModelRequest) -> tuple[str, ...]:
        """``request.tool_names``, worked out once per tuple of tool specs."""
        specs = request.tools
        if specs is self._specs:
            return self._names
        names = tuple([spec.name for spec in specs])
        if type(specs) is tuple and all(type(spec) is ToolSpec for spec in specs):
            self._specs, self._names = specs, names  # immutable: safe to keep by identity
        return names

    def key(self, request: ModelRequest) -> Key:
        """``request_key(request)``."""
        return _parts(request, self.tool_names(request))[0]

    def matches(self, request: ModelRequest, key: Key, whole: str | None = None) -> bool:
        """Whether ``request_key(request) == key``, the last message looked at only when
        every other field is equal. ``whole`` is the recorded last message when known
        (:func:`whole_text`): a text equal to it has the recorded digest.

        Otherwise the text is hashed as it is first: when that gives the recorded digest
        and the text holds no ``<``, normalising cannot change it (every placeholder holds
        a ``<``, so the recorded text it equals was left as it was), and the patterns are
        skipped.
        """
        model, tools, role, digest, system = key
        if request.model != model or self.tool_names(request) != tools:
            return False
        messages = request.messages
        if not messages:
            return role == "" and digest == _NOTHING and system is None
        last = messages[-1]
        if last.role != role or _system(messages) != system:
            return False
        content = _content(last)
        if content == whole:
            return True
        raw = _utf8(content)
        plain = _digest(raw)
        if plain == digest and b"<" not in raw:
            return True
        normalised = _normalised(content, raw)
        if normalised is content:
            return plain == digest
        return _digest(_utf8(normalised)) == digest


def _preview(text: str) -> str:
    shown = text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."
    return "'" + escape_value(shown) + "'"


def _tool_lines(recorded: tuple[str, ...], actual: tuple[str, ...]) -> list[str]:
    lines = [f"tool added: {escape_value(t)}" for t in actual if t not in recorded]
    lines += [f"tool removed: {escape_value(t)}" for t in recorded if t not in actual]
    if not lines and recorded != actual:
        lines.append(
            "the tools are offered in another order: recorded "
            f"{', '.join(map(escape_value, recorded))}; now {', '.join(map(escape_value, actual))}"
        )
    return lines


def differences(recorded: Fingerprint, actual: Fingerprint) -> list[str]:
    """What changed from ``recorded`` to ``actual``, in plain words (empty: the same request)."""
    lines: list[str] = []
    if recorded.model != actual.model:
        lines.append(
            f"model: recorded {escape_value(recorded.model)}, now {escape_value(actual.model)}"
        )
    lines += _tool_lines(recorded.tools, actual.tools)
    if recorded.system != actual.system:
        if recorded.system is None:
            lines.append("a system prompt was added")
        elif actual.system is None:
            lines.append("the system prompt was removed")
        else:
            lines.append("the system prompt changed")
    if recorded.role != actual.role:
        lines.append(
            "the last message's role: recorded "
            f"{escape_value(recorded.role)}, now {escape_value(actual.role)}"
        )
    if recorded.sha256 != actual.sha256:
        lines.append(
            f"the last message changed: recorded {_preview(recorded.text)} "
            f"now {_preview(actual.text)}"
        )
    return lines
