"""The corpus: case files read against their schema, expanded into variants, hand-written expectations checked, and lint."""
