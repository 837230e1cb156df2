"""Judging an engine's output: the verdict over every admissible explanation, and the diagnosis of a failure (explain, gracious mode, provenance)."""
