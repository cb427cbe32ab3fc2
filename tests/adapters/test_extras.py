"""Importing an adapter without its framework raises one error that names the extra."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from handoff_sim.adapters import MissingExtraError
from tests.adapters._extras import hide


@pytest.mark.parametrize(
    ("blocked", "module", "extra", "package"),
    [
        ("agents", "handoff_sim.adapters.openai_agents", "openai-agents", "openai-agents"),
        ("pydantic_ai", "handoff_sim.adapters.pydantic_ai", "pydantic-ai", "pydantic-ai-slim"),
    ],
)
def test_importing_an_adapter_without_its_extra_names_the_extra(
    blocked: str, module: str, extra: str, package: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    hide(monkeypatch, blocked, module)  # the framework is "not installed"
    with pytest.raises(MissingExtraError) as raised:
        importlib.import_module(module)
    assert type(raised.value) is MissingExtraError
    assert isinstance(raised.value, ImportError)
    assert raised.value.extra == extra
    assert str(raised.value) == (
        f"{module} needs the optional extra {extra!r}: pip install 'handoff-sim[{extra}]' "
        f"(the package {package!r} is not installed)"
    )


def test_the_adapters_package_itself_imports_no_framework() -> None:
    code = (
        "import sys, handoff_sim.adapters; "
        "print(sorted(m for m in ('agents', 'pydantic_ai') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert out.stdout.strip() == "[]"
