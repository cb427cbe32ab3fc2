#!/usr/bin/env python3
"""Write docs/conformance.md: every bundled scenario on handoff-sim and each framework.

Runs each scenario under ``scenarios/`` on every runtime and writes the table
(passed / failed with the first mismatch / not applicable with the reason) and the
differences in delegation semantics the run exposes. It stops, writing nothing, when
the run and the stated differences disagree (a failure no difference explains, or a
listed one that no longer fails): update ``DIFFERENCES`` in
``handoff_sim/adapters/_conformance.py`` first. Needs every framework extra:
``pip install -e '.[openai-agents,pydantic-ai,langgraph]'``.

    python bench/conformance.py            # rewrite docs/conformance.md
    python bench/conformance.py --check    # exit 1 if docs/conformance.md is out of date
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
DOC = REPO_ROOT / "docs" / "conformance.md"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    parser.add_argument("-o", "--output", type=Path, default=DOC, help="the page to write")
    args = parser.parse_args(argv)
    logging.disable(logging.WARNING)  # the frameworks' own warnings (tool name collisions)
    from handoff_sim.adapters._conformance import ConformanceDrift, generate

    try:
        page = generate(REPO_ROOT / "scenarios", REPO_ROOT)
    except ConformanceDrift as exc:
        print(f"bench/conformance.py: {exc}", file=sys.stderr)
        return 2
    if args.check:
        current = args.output.read_text(encoding="utf-8") if args.output.exists() else ""
        if current != page:
            print(f"{args.output} is out of date: run python bench/conformance.py", file=sys.stderr)
            return 1
        print(f"{args.output} is up to date")
        return 0
    args.output.write_text(page, encoding="utf-8")
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
