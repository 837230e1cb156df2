"""Walking rdflib's SPARQL algebra (one walker for every module of the oracle's R2R that reads a query)."""

from __future__ import annotations

from typing import Any

from rdflib.plugins.sparql.parserutils import CompValue


def nodes(node: Any):
    """Every algebra node and expression in a query, each before the ones inside it."""
    if isinstance(node, CompValue):
        yield node
        for value in node.values():
            yield from nodes(value)
    elif isinstance(node, (list, tuple)):
        for value in node:
            yield from nodes(value)
