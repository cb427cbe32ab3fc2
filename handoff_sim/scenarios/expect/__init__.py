"""Phase 5: compare what a run did with what the scenario expects, as readable mismatches."""
