"""The SPARQL grammar the Spark engine parses with: rdflib's own, read from rdflib's installed parser module
into a module of the engine's with one rule mended.

rdflib's rule for a member of a negated property set (SPARQL 1.1 grammar [96], ``'^' ( iri | 'a' )``) keeps
no part of what it matched, so ``!(:p|^:q)`` comes out of its parser as ``!(:p|InversePath_{})``: the IRI
``:q`` is lost, and nothing after the parse can recover it.  Here that member is parsed as a one-step inverse
path (``InvPath(:q)``), the form rdflib's algebra gives ``^:q`` anywhere else.  rdflib's module is not
touched: the oracle and the reference engine read queries with rdflib's parser as it is.  Where the installed
rdflib writes the rule otherwise, rdflib's parser is used, and the compiler refuses such a set by name."""

from __future__ import annotations

import importlib.util

import rdflib.plugins.sparql.parser as rdflib_parser

#: rdflib's rule, as its parser module writes it, and the mended rule
LOSSY_RULE = 'Comp("InversePath", "^" + (iri | A))'
MENDED_RULE = 'Comp("PathEltOrInverse", "^" + Param("part", iri | A))'


def _mended():
    """rdflib's parser module with :data:`LOSSY_RULE` replaced, or rdflib's own where the rule is not found."""
    with open(rdflib_parser.__file__, encoding="utf-8") as f:
        source = f.read()
    if source.count(LOSSY_RULE) != 1:
        return rdflib_parser
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(f"{__name__}.mended", loader=None))
    module.__package__ = rdflib_parser.__package__  # its relative imports are rdflib's
    exec(compile(source.replace(LOSSY_RULE, MENDED_RULE), rdflib_parser.__file__, "exec"), module.__dict__)
    return module


parseQuery = _mended().parseQuery
