"""MIN and MAX where SPARQL leaves the pick open.

SPARQL 1.1 §18.5.1.5–6 take MIN and MAX in ORDER BY's order, and §15.1 orders literals only by ``<``: a number
against a string, two language-tagged literals, two blank nodes are in no defined order.  So MIN over
{10, "x"} may be either, and rdflib and Oxigraph each pick one (a differential fuzz of the Spark engine, which
picks the other, found it: seed 7).  The oracle evaluates MIN and MAX with :class:`Noted` accumulators, rdflib's
own pick plus a note of every group whose extreme candidates fall in two or more of §15.1's order families; for
a window with such a note, it evaluates the query again with :class:`Other`, which picks the extreme of another
family, and where the two answers differ the window's answer is open (``R2R._picked``).

The accumulators are registered in rdflib's ``Aggregator.accumulator_classes`` under names of their own
(``Aggregate_Min_Noted`` …), used only by the algebra :func:`mark` renames: rdflib's own MIN and MAX, which the
reference engine runs, are untouched.
"""

from __future__ import annotations

import threading

from rdflib import BNode, URIRef
from rdflib.plugins.sparql.aggregates import Aggregator, Extremum, _eval, _val
from rdflib.plugins.sparql.sparql import NotBoundError, SPARQLError, SPARQLTypeError

from oracle.r2r.terms import order_family

_noted = threading.local()  # the open picks of the evaluation running on this thread


class _Collecting(Extremum):
    """rdflib's MIN or MAX (the same update, so the same pick), keeping the order families of the candidates of
    each kind, with a value of each (:meth:`_keep`)."""

    maximum = False

    def __init__(self, aggregation):
        super().__init__(aggregation)
        self.seen: dict[int, dict] = {}  # kind's rank -> family -> a value
        self._last: tuple = (None, None)  # the last value's (signature, family): most values share both
        self.error = False  # an expression's error met: the aggregate is an error (:meth:`update`)

    def compare(self, val1, val2):
        return max(val1, val2, key=_val) if self.maximum else min(val1, val2, key=_val)

    def set_value(self, bindings) -> None:
        """rdflib's, but an IRI or a blank node picked is bound as itself: rdflib 7.6 makes every pick a literal
        (``MIN(?sensor)`` over IRIs was the string of one, where Oxigraph and the Spark engine give the IRI, and
        the oracle stopped on the evaluators' disagreement; fuzz seed 20).  An error leaves it unbound."""
        if self.error:
            return
        if isinstance(self.value, (URIRef, BNode)):
            bindings[self.var] = self.value
        else:
            super().set_value(bindings)

    def update(self, row, aggregator) -> None:
        """rdflib's update; but an expression's error (rdflib hands it back as a value) makes the aggregate an
        error, unbound, as Oxigraph answers and as an error in SUM does (SPARQL 1.1 §18.5.1; the SPARQL WG's
        answer to comment BT-1): rdflib made a literal of the message over one and raised over two, so
        ``MIN(?o + 1)`` over a string was an ERROR for every engine.  An unbound variable is left out, as rdflib
        does (Oxigraph: an error; such a window stops on the evaluators' disagreement)."""
        if self.error:
            return
        try:
            value = _eval(self.expr, row)
        except (NotBoundError, SPARQLTypeError):  # skipped, as rdflib's Extremum does
            return
        if isinstance(value, SPARQLError):
            self.error, self.value, self.seen = True, None, {}
            return
        rank = _val(value)
        if rank is not None:
            signature = (type(value), getattr(value, "datatype", None), getattr(value, "language", None),
                         getattr(value, "ill_typed", None))
            family = self._last[1] if signature == self._last[0] else order_family(value)
            # a string is a family many values share; a tuple ("only", …) is this value's own (a blank node,
            # a tagged literal: terms.order_family)
            self._last = (signature, family) if isinstance(family, str) else (None, None)
            self._keep(self.seen.setdefault(rank[0], {}), family, value)
        self.value = value if self.value is None else self.compare(self.value, value)

    def _keep(self, families: dict, family, value) -> None:
        families.setdefault(family, value)

    def candidates(self) -> dict:
        """The values kept of the extreme kind, by family."""
        if not self.seen:
            return {}
        return self.seen[max(self.seen) if self.maximum else min(self.seen)]


class Noted(_Collecting):
    """rdflib's pick, noting a group whose candidates hold two families (:class:`open_picks`)."""

    def set_value(self, bindings) -> None:
        super().set_value(bindings)
        families = self.candidates()
        if len(families) > 1:
            picks = getattr(_noted, "picks", None)
            if picks is not None:
                picks.append(("MAX" if self.maximum else "MIN", tuple(families.values())))


class Other(_Collecting):
    """The extreme of another family than rdflib's pick, where the candidates hold two or more: a pick SPARQL
    allows too (the families are in no order, so any of them may hold the least value)."""

    def _keep(self, families: dict, family, value) -> None:  # each family's own extreme
        kept = families.get(family)
        families[family] = value if kept is None else self.compare(kept, value)

    def set_value(self, bindings) -> None:
        families = self.candidates()
        if len(families) > 1 and self.value is not None:
            picked = order_family(self.value)
            self.value = families[sorted((f for f in families if f != picked), key=repr)[0]]
        super().set_value(bindings)


def _classes() -> dict:
    made = {}
    for name, maximum in (("Aggregate_Min", False), ("Aggregate_Max", True)):
        for base in (Noted, Other):
            made[f"{name}_{base.__name__}"] = type(f"{base.__name__}{name[10:]}", (base,), {"maximum": maximum})
    return made


Aggregator.accumulator_classes.update(_classes())


def mark(nodes, reading: str) -> bool:
    """Rename every MIN and MAX among ``nodes`` (an algebra's) to this module's ``reading`` ("Noted" or
    "Other"); whether there was one."""
    found = False
    for node in nodes:
        if node.name in ("Aggregate_Min", "Aggregate_Max"):
            node.name = f"{node.name}_{reading}"
            found = True
    return found


class open_picks:
    """Within it, the picks the :class:`Noted` accumulators found open on this thread, as (aggregate, one value
    of each family) — a context manager around one evaluation."""

    def __enter__(self) -> list:
        self.outer = getattr(_noted, "picks", None)
        _noted.picks = []
        return _noted.picks

    def __exit__(self, *exc) -> None:
        _noted.picks = self.outer
