"""Gate results as JUnit XML, one ``testcase`` per gate, in the dialect pytest writes
(the Jenkins xUnit plugin's ``junit-10.xsd``), so CI systems show each gate as a test.

Names and messages come from traces recorded anywhere: their control characters are
written as escapes, as on the terminal, so no name can forge a line of a CI log.
"""

from __future__ import annotations

import os
import platform
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from handoff_sim._gates._evaluate import GateReport
from handoff_sim._terminal import escape_value

__all__ = ["junit_xml", "write_junit"]


def _clean(text: str) -> str:
    """A name or a message on one line: control characters (every one XML 1.0 cannot hold
    among them), bidi overrides and lone surrogates as escapes, as the terminal shows them."""
    return escape_value(text)


def junit_xml(reports: Sequence[GateReport], *, suite: str = "handoff-sim gates") -> str:
    """The JUnit XML document of ``reports``: ``classname`` is the trace, ``name`` the gate."""
    cases = [(report, result) for report in reports for result in report.results]
    failures = sum(1 for _, r in cases if not r.passed)
    total = sum(r.seconds for _, r in cases)
    root = ET.Element("testsuites", name=suite)
    element = ET.SubElement(
        root,
        "testsuite",
        name=suite,
        errors="0",
        failures=str(failures),
        skipped="0",
        tests=str(len(cases)),
        time=f"{total:.3f}",
        timestamp=datetime.now(UTC).isoformat(timespec="seconds"),
        hostname=_clean(platform.node()),
    )
    for report, result in cases:
        case = ET.SubElement(
            element,
            "testcase",
            classname=_clean(report.label),
            name=_clean(result.gate),
            time=f"{result.seconds:.3f}",
        )
        if not result.passed:
            failure = ET.SubElement(case, "failure", message=_clean(result.headline()))
            failure.text = "\n".join(
                _clean(line) for line in (result.headline(), *result.offenders)
            )
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def write_junit(reports: Sequence[GateReport], path: str | Path) -> None:
    """Write :func:`junit_xml` to ``path`` (its folder created), replaced in one step."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    partial.write_text(junit_xml(reports), encoding="utf-8")
    os.replace(partial, target)
