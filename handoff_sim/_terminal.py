"""Text from a trace or a scenario made safe to show: control characters become escapes.

Names, ids and outputs come from scenario files and from traces recorded anywhere.
Written raw, an ESC or OSC sequence retitles the window, writes the clipboard or erases
a line, a ``\\r`` or a line break starts a forged ``PASS`` line, a bidi override
reorders what is shown, and a lone surrogate cannot be encoded at all. Each such
character is shown as its ``repr``-style escape (``\\x1b``, ``\\r``, ``\\u2028``,
``\\ud800``); printable text, backslashes included, is left exactly as it is.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO, cast

from handoff_sim._safe import text_of

__all__ = ["SafeStream", "escape_json", "escape_text", "escape_value", "safe_streams"]

# C0 and C1 controls and DEL, the Arabic letter mark, LRM/RLM, the line and paragraph
# separators, the bidi embeddings, overrides and isolates, and the surrogates.
_BEYOND_C0 = "\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff"
_IN_VALUE = re.compile(f"[\x00-\x1f{_BEYOND_C0}]")
_IN_TEXT = re.compile(f"[\x00-\x08\x0b-\x1f{_BEYOND_C0}]")  # keeps \t and \n
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escaped(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape_value(value: object) -> str:
    """``value`` as text for one place in a line: every control character escaped,
    line breaks and tabs included, so it can neither start a line nor move the cursor."""
    return _IN_VALUE.sub(_escaped, text_of(value))


def escape_text(text: object) -> str:
    """``text`` as lines for a terminal: ``\\n`` and tabs kept, every other control
    character escaped (``\\r`` too: it would let a line overwrite the one before)."""
    return _IN_TEXT.sub(_escaped, text_of(text))


def _json_escaped(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def escape_json(text: str) -> str:
    """JSON text with every control character a ``\\uXXXX`` escape: still the same JSON.

    ``json.dumps(..., ensure_ascii=False)`` leaves C1 controls, line separators, bidi
    controls and lone surrogates raw; they can only stand inside strings, where the
    escape means the same character. Line breaks between JSON lines are kept.
    """
    return _IN_TEXT.sub(_json_escaped, text)


class SafeStream:
    """A text stream that writes through :func:`escape_text`: the last line of defence of
    a command, so nothing it prints controls the terminal or fails to encode. Everything
    but ``write`` is the wrapped stream's."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        """Write ``text`` safe; returns its length, as a text stream does."""
        safe = escape_text(text)
        try:
            self._stream.write(safe)
        except UnicodeEncodeError:  # a stream that cannot show every printable character
            encoding = getattr(self._stream, "encoding", None) or "utf-8"
            self._stream.write(safe.encode(encoding, "backslashreplace").decode(encoding))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextmanager
def safe_streams() -> Iterator[None]:
    """``sys.stdout`` and ``sys.stderr`` wrapped in :class:`SafeStream` for the block."""
    saved = sys.stdout, sys.stderr
    if saved[0] is not None:
        sys.stdout = cast(TextIO, SafeStream(saved[0]))
    if saved[1] is not None:
        sys.stderr = cast(TextIO, SafeStream(saved[1]))
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
