"""Delegation styles beyond the AI4J default, as options of the same runtime.

``handoff_sim.styles.flink``: sub-agents as ``subagent_<name>`` callables with declared input
schemas and results normalised to JSON.
``handoff_sim.styles.sophi``: one ``delegate_to_subagent`` dispatcher over agent types,
with least privilege, closed recursion, risk tiers and session lineage.
Both mount through :class:`~handoff_sim.SubAgent`, so policy, events and depth
are shared, and the styles mix freely in one tree. Their names import from those two
modules only: this package exports nothing of its own.
"""

__all__: list[str] = []
