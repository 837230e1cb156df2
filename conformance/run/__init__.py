"""Running cases against an engine: the adapter registry, the harness that judges each case, expectations, progress and the run report."""
