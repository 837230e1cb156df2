"""SPARQL 1.1's arbitrary-length paths as sets in the oracle's rdflib evaluation.

SPARQL 1.1 §18.5 evaluates ``p*``, ``p+`` and ``p?`` to distinct pairs.  rdflib 7.6 yields the zero-length
pair of a bound end first and the same pair again when a walk comes back to it: ``:a :p* ?y`` over a → b →
a gives ``?y = :a`` twice, ``:d :p? ?y`` over a loop d → d gives ``:d`` twice, where Oxigraph (and the W3C
suite's ``pp`` tests) give it once.  The two-evaluator check stopped on the first (``paths.zero-length``).
In the queries the oracle prepares, and only those (``r2r/query.py: _prepared``; rdflib's own ``MulPath``
is not touched), each ``*``, ``+`` and ``?`` path is replaced by :class:`SetPath`, which gives each pair
once.  Inside ``FILTER [NOT] EXISTS`` rdflib's own stays (it keeps those patterns untranslated), where
only whether a solution exists counts.
"""

from __future__ import annotations

from typing import Any

from rdflib import URIRef, Variable
from rdflib.paths import AlternativePath, InvPath, MulPath, NegatedPath, Path, SequencePath


class SetPath(MulPath):
    """rdflib's ``MulPath``, each pair once."""

    def eval(self, graph, subj=None, obj=None, first=True):
        given = set()
        for pair in super().eval(graph, subj, obj, first):
            if pair not in given:
                given.add(pair)
                yield pair


class SetAlternative(AlternativePath):
    """rdflib's ``AlternativePath``, each pair once: Oxigraph 0.5's reading of ``p|q``, which the
    ``alternative-path-bag`` rule (oracle/r2r/evaluators.py) checks a difference against; SPARQL 1.1 §18.5
    makes it a Union, a bag, as rdflib's own does."""

    def eval(self, graph, subj=None, obj=None):
        given = set()
        for pair in super().eval(graph, subj, obj):
            if pair not in given:
                given.add(pair)
                yield pair


class SetNegated(NegatedPath):
    """rdflib's ``NegatedPath``, each pair once where rdflib (and Oxigraph) give one per matching triple: the
    other reading of SPARQL 1.1 §18.5's "∃ triple", which the oracle checks a window's answer against
    (w3c/sparql-query#395 asks which one the specification means)."""

    def eval(self, graph, subj=None, obj=None):
        return iter(dict.fromkeys(super().eval(graph, subj, obj)))


def as_sets(path: Any, alternatives: bool = False, negated: bool = False) -> Any:
    """``path`` with every ``MulPath`` in it a :class:`SetPath`; with ``alternatives`` every ``AlternativePath``
    a :class:`SetAlternative`, with ``negated`` every ``NegatedPath`` a :class:`SetNegated`."""
    def again(inner):
        return as_sets(inner, alternatives, negated)
    if isinstance(path, MulPath):
        return SetPath(again(path.path), path.mod)
    if isinstance(path, AlternativePath):
        return (SetAlternative if alternatives else AlternativePath)(*map(again, path.args))
    if isinstance(path, SequencePath):
        return SequencePath(*map(again, path.args))
    if isinstance(path, InvPath):
        return InvPath(again(path.arg))
    if isinstance(path, NegatedPath) and negated:
        negation = SetNegated(path.args[0])  # rdflib's constructor takes one IRI, InvPath or AlternativePath
        negation.args = list(path.args)
        return negation
    return path


def _holds(path: Any, found) -> bool:
    """Whether ``found(part)`` holds of ``path`` or of a path inside it."""
    if found(path):
        return True
    if isinstance(path, (SequencePath, AlternativePath)):
        return any(_holds(a, found) for a in path.args)
    if isinstance(path, InvPath):
        return _holds(path.arg, found)
    return isinstance(path, MulPath) and _holds(path.path, found)


def alternatives(triples) -> bool:
    """Whether a triple pattern's path holds an alternative (``p|q``)."""
    return any(isinstance(p, Path) and _holds(p, lambda part: isinstance(part, AlternativePath)) for _, p, _ in triples)


def negated_sets(triples) -> bool:
    """Whether a triple pattern's path holds a negated property set (``!:p``, ``!(:p|:q)``)."""
    return any(isinstance(p, Path) and _holds(p, lambda part: isinstance(part, NegatedPath)) for _, p, _ in triples)


def _lost(part: Any) -> bool:
    return isinstance(part, NegatedPath) and not all(isinstance(a, (URIRef, InvPath)) for a in part.args)


def lost_inverse(triples) -> bool:
    """Whether a negated property set of a triple pattern lost a member: rdflib 7.6's grammar rule for ``^iri``
    inside ``!( … )`` keeps nothing of what it matched, so the set holds an empty ``InversePath`` where the
    IRI was, and rdflib cannot evaluate it ("Invalid path in NegatedPath")."""
    return any(isinstance(p, Path) and _holds(p, _lost) for _, p, _ in triples)


def _zero(path: Any) -> bool:
    """Whether a path connects a node to itself by zero steps (a ``*`` or ``?`` where it counts)."""
    if isinstance(path, MulPath):
        return path.mod in ("*", "?") or _zero(path.path)
    if isinstance(path, SequencePath):
        return all(_zero(a) for a in path.args)
    if isinstance(path, AlternativePath):
        return any(_zero(a) for a in path.args)
    return isinstance(path, InvPath) and _zero(path.arg)


def zero_length_ends(triples) -> frozenset:
    """The constant subjects and objects of the triple patterns whose path may have length zero: SPARQL 1.1's
    ALP pairs each with itself whether the graph holds it or not (the ``zero-length-constant`` rule,
    oracle/r2r/evaluators.py)."""
    return frozenset(t for s, p, o in triples if isinstance(p, Path) and _zero(p)
                     for t in (s, o) if not isinstance(t, Variable))
