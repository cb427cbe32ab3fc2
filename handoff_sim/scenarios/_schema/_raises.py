"""What a fake tool raises: an exception type a file may name, and its message."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from handoff_sim.testing._steps import ExceptionName

__all__ = ["ExceptionName", "RaisesSpec"]


class RaisesSpec(BaseModel):
    """An exception a fake tool raises."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    type: ExceptionName = "RuntimeError"
    message: str = ""
