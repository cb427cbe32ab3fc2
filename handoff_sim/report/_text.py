"""Text made safe to show: printable, valid UTF-8, cut to a length (escaping is the page's job).

Control characters follow the rule of every other output (``handoff_sim._terminal``):
each is shown as its ``repr``-style escape, so the page and the terminal read alike.
"""

from __future__ import annotations

from handoff_sim._safe import text_of
from handoff_sim._terminal import escape_text, escape_value

__all__ = ["clean", "one_line"]


def _cut(value: str, limit: int) -> str:
    if len(value) > limit:
        left = len(value) - limit
        return f"{value[:limit]}… ({left} more characters)"
    return value


def clean(text: object, limit: int = 2000) -> str:
    """``text`` as printable, encodable text of at most ``limit`` characters (plus a note).

    Control characters but line breaks and tabs, and lone surrogates (which cannot be
    written as UTF-8) are shown as escapes; a longer text is cut and says how much was
    left out.
    """
    return _cut(escape_text(text), limit)


def one_line(text: object, limit: int = 160) -> str:
    """``text`` cleaned, on one line (line breaks shown as ``\\n``, tabs as spaces), cut."""
    return _cut(escape_value(text_of(text).replace("\t", " ")), limit)
