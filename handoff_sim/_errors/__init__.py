"""The classes of ``handoff_sim.errors`` (their one public home), a module per family."""
