"""Importing an adapter without its framework raises one error that names the extra."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest


def _import_without(blocked: str, module: str) -> subprocess.CompletedProcess[str]:
    code = textwrap.dedent(
        f"""
        import sys
        sys.modules[{blocked!r}] = None  # the framework is "not installed"
        from handoff_sim.adapters import MissingExtraError
        try:
            import {module}
        except MissingExtraError as exc:
            print(type(exc).__name__, isinstance(exc, ImportError), exc.extra)
            print(exc)
        """
    )
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )


@pytest.mark.parametrize(
    ("blocked", "module", "extra", "package"),
    [
        ("agents", "handoff_sim.adapters.openai_agents", "openai-agents", "openai-agents"),
        ("pydantic_ai", "handoff_sim.adapters.pydantic_ai", "pydantic-ai", "pydantic-ai-slim"),
    ],
)
def test_importing_an_adapter_without_its_extra_names_the_extra(
    blocked: str, module: str, extra: str, package: str
) -> None:
    out = _import_without(blocked, module).stdout.splitlines()
    assert out[0] == f"MissingExtraError True {extra}"
    assert out[1] == (
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
