"""``python -m handoff_sim``: the ``handoff-sim`` command."""

from handoff_sim.cli import main

raise SystemExit(main())
