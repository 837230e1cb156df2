"""The static conformance site (matrix, engine, case and trend pages); its builder is :mod:`conformance.site.pages`, kept apart so the SVG helpers import without it."""
