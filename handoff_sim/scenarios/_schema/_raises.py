"""What a fake tool raises: an exception type a file may name, and its message."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

__all__ = ["ExceptionName", "RaisesSpec"]

ExceptionName = Literal[
    "RuntimeError",
    "ValueError",
    "TypeError",
    "KeyError",
    "LookupError",
    "PermissionError",
    "TimeoutError",
    "ConnectionError",
    "OSError",
]


class RaisesSpec(BaseModel):
    """An exception a fake tool raises."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    type: ExceptionName = "RuntimeError"
    message: str = ""
