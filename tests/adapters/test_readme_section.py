"""The README's "Test your openai-agents delegation with handoff-sim" example runs as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"
HEADING = "## Test your openai-agents delegation with handoff-sim"


def test_the_readme_openai_agents_example_runs() -> None:
    pytest.importorskip(
        "agents", reason="needs the 'openai-agents' extra: pip install 'handoff-sim[openai-agents]'"
    )
    section = README.read_text(encoding="utf-8").split(HEADING, 1)[1].split("\n## ", 1)[0]
    [code] = re.findall(r"```python\n(.*?)```", section, re.S)
    exec(compile(code, str(README), "exec"), {})
