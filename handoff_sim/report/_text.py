"""Text made safe to show: printable, valid UTF-8, cut to a length (escaping is the page's job)."""

from __future__ import annotations

import re

__all__ = ["clean", "one_line"]

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029]")


def _visible(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def clean(text: object, limit: int = 2000) -> str:
    """``text`` as printable, encodable text of at most ``limit`` characters (plus a note).

    Control characters and lone surrogates (which cannot be written as UTF-8) are shown
    as escapes; a longer text is cut and says how much was left out.
    """
    value = text if isinstance(text, str) else str(text)
    value = value.encode("utf-8", "backslashreplace").decode("utf-8")
    value = _CONTROL.sub(_visible, value)
    if len(value) > limit:
        left = len(value) - limit
        value = f"{value[:limit]}… ({left} more characters)"
    return value


def one_line(text: object, limit: int = 160) -> str:
    """``text`` cleaned, on one line (line breaks shown as ``\\n``), cut to ``limit``."""
    value = text if isinstance(text, str) else str(text)
    return clean(value.replace("\r", "\\r").replace("\n", "\\n").replace("\t", " "), limit)
