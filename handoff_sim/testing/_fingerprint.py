"""Request fingerprints: what a replay compares a model request with, volatile ids left out.

A fingerprint keeps the model name, the offered tool names, the last message's role, a
hash of its normalised content and of the system prompt, and a short preview for
messages. Call ids, uuids and timestamps are replaced by placeholders before hashing, so
a request made again tomorrow, with new ids, has the same fingerprint.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Mapping
from typing import Annotated, Any

import msgspec

from handoff_sim._terminal import escape_value
from handoff_sim.errors import RecordingFormatError
from handoff_sim.messages import Message, ModelRequest

__all__ = [
    "PREVIEW_CHARS",
    "Fingerprint",
    "Key",
    "differences",
    "fingerprint",
    "normalise",
    "request_key",
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


def _digest(text: str) -> str:
    return hashlib.sha256(_utf8(text)).hexdigest()[:16]


def _normalised_digest(text: str) -> tuple[str, str]:
    """The normalised text and its digest."""
    raw = _utf8(text)
    normalised = _normalised(text, raw)
    return normalised, hashlib.sha256(raw if normalised is text else _utf8(normalised)).hexdigest()[
        :16
    ]


@functools.lru_cache(maxsize=256)
def _system_digest(text: str) -> str:
    """The digest of a normalised system prompt: the same prompt, call after call."""
    return _normalised_digest(text)[1]


def _content(message: Message) -> str:
    """What of the last message is hashed: its text, or each tool call's name and arguments."""
    if message.role == "assistant" and message.tool_calls:
        calls = "\n".join(f"{c.name} {c.arguments}" for c in message.tool_calls)
        return f"{message.content}\n{calls}" if message.content else calls
    return message.content or ""


Key = tuple[str, tuple[str, ...], str, str, "str | None"]
"""What :meth:`Fingerprint.key` gives: what two requests must share to be the same."""


def _parts(request: ModelRequest) -> tuple[Key, str]:
    """The request's key and the normalised text of its last message."""
    messages = request.messages
    count = len(messages)
    last = messages[-1] if count else None
    content, digest = _normalised_digest(_content(last) if last is not None else "")
    first = messages[0] if count else None
    if first is not None and first.role == "system":  # where a system prompt usually is
        system: str | None = first.content or ""
    else:
        system = next((m.content or "" for m in messages if m.role == "system"), None)
    role = last.role if last is not None else ""
    hashed = None if system is None else _system_digest(system)
    return (request.model, request.tool_names, role, digest, hashed), content


def request_key(request: ModelRequest) -> Key:
    """``fingerprint(request).key()``, without building the fingerprint (a replay's hot path)."""
    return _parts(request)[0]


def fingerprint(request: ModelRequest) -> Fingerprint:
    """The fingerprint of ``request``, computed on its normalised (never redacted) content."""
    (model, tools, role, digest, system), content = _parts(request)
    return Fingerprint(
        model=model,
        tools=tools,
        role=role,
        sha256=digest,
        system=system,
        text=content[:PREVIEW_CHARS],
    )


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
