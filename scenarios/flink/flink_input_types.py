"""Input types the bundled Flink scenarios name by import path (flink/input_type.yaml).

The module name is unique in the repository: scenario files import it from their own
directory, as pytest imports test modules by a name that must not clash.
"""

from __future__ import annotations

from pydantic import BaseModel


# No docstring: pydantic would put it in the schema as its description.
class Review(BaseModel):  # what a reviewer sub-agent is called with
    path: str
    lines: int
