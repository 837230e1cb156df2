"""SUM, AVG and COUNT with SPARQL's errors.

SPARQL 1.1 §18.5.1 defines Sum with ``op:numeric-add`` and Avg as Sum / Count, so a value that is no number (a
string, a blank node, an ill-typed literal, an expression's error) is a type error, the aggregate is an error,
and its variable is left unbound (W3C agg-err-01, a blank node in AVG; the SPARQL WG's answer to comment BT-1).
rdflib does otherwise: its SUM raises out of the query (``SUM(?v)`` over ``"x"``: the whole window was an
``EvaluatorFailure``), and its AVG leaves the value out and averages the rest. Oxigraph leaves the aggregate
unbound, as the Spark engine does.

:class:`Sum` and :class:`Avg` are rdflib's own arithmetic (its type promotion, its sums and quotients), with a
value that is no number making the aggregate an error. An unbound variable (``SUM(?v)`` with ``?v`` unbound by
an OPTIONAL) is left out, as rdflib does; Oxigraph makes it an error, so where the two evaluators differ on it
the oracle stops, as before. Registered in rdflib's ``Aggregator.accumulator_classes`` under names of their own
(:data:`READ`), which :func:`mark` gives the algebra's SUM, AVG and COUNT: rdflib's own are untouched (the
reference engine runs rdflib's SUM and AVG, and a COUNT of its own: engines/reference).

COUNT (SPARQL 1.1 §18.5.1.2) "counts the number of times a given expression has a bound, and non-error value within
the aggregate group". rdflib's counts an expression's error too (``COUNT(?o + 1)`` over ``"z"``: rdflib hands the
error back as a value and counts it); :class:`Count` leaves it out. Oxigraph 0.5 leaves such a COUNT unbound: the
``count-errors`` rule (oracle/r2r/evaluators.py).
"""

from __future__ import annotations

from decimal import Decimal

from rdflib import XSD, Literal, Variable
from rdflib.plugins.sparql.aggregates import Accumulator, Aggregator, Counter, _eval, type_safe_numbers
from rdflib.plugins.sparql.operators import numeric, type_promotion
from rdflib.plugins.sparql.sparql import NotBoundError, SPARQLError

from oracle.r2r.algebra import nodes, read_alone

#: the suffix of the names the oracle's SUM and AVG are registered under
READ = "_Erring"


class _Erring(Accumulator):
    """A numeric aggregate that is an error (no binding) once one value is no number."""

    def __init__(self, aggregation):
        super().__init__(aggregation)
        self.error = False
        self.datatype = None

    def use_row(self, row) -> bool:
        """DISTINCT's test, as rdflib's; an unbound value passes to :meth:`update`, which leaves it out."""
        if not self.distinct:
            return True
        try:
            return _eval(self.expr, row) not in self.seen
        except NotBoundError:
            return True

    def update(self, row, aggregator) -> None:
        if self.error:
            return
        try:
            value = _eval(self.expr, row)
        except NotBoundError:  # an unbound variable: left out, as rdflib does
            return
        try:
            if isinstance(value, SPARQLError) or not isinstance(value, Literal) or value.ill_typed:
                raise TypeError(value)
            number = numeric(value)  # raises for a literal of another datatype
            datatype = value.datatype if self.datatype is None else type_promotion(self.datatype, value.datatype)
        except (SPARQLError, TypeError):
            self.error = True
            return
        self.datatype = datatype
        self.add(number)
        if self.distinct:
            self.seen.add(value)

    def set_value(self, bindings) -> None:
        if not self.error:
            bindings[self.var] = self.get_value()


class Sum(_Erring):
    def __init__(self, aggregation):
        super().__init__(aggregation)
        self.value = 0

    def add(self, number) -> None:
        self.value = sum(type_safe_numbers(self.value, number))

    def get_value(self) -> Literal:
        return Literal(self.value, datatype=self.datatype)


class Avg(_Erring):
    def __init__(self, aggregation):
        super().__init__(aggregation)
        self.sum, self.counter = 0, 0

    def add(self, number) -> None:
        self.sum = sum(type_safe_numbers(self.sum, number))
        self.counter += 1

    def get_value(self) -> Literal:
        if self.counter == 0:
            return Literal(0)
        if self.datatype in (XSD.float, XSD.double):
            return Literal(self.sum / self.counter)
        return Literal(Decimal(self.sum) / Decimal(self.counter))


class Count(Counter):
    """rdflib's COUNT, an expression's error left out (an unbound variable already is)."""

    def update(self, row, aggregator) -> None:
        try:
            value = self.eval_row(row)
        except NotBoundError:
            return
        if isinstance(value, SPARQLError):  # rdflib's expressions hand their errors back as values
            return
        self.value += 1
        if self.distinct:
            self.seen.add(value)


Aggregator.accumulator_classes.update({"Aggregate_Sum" + READ: Sum, "Aggregate_Avg" + READ: Avg,
                                       "Aggregate_Count" + READ: Count})
MENDED = ("Aggregate_Sum", "Aggregate_Avg", "Aggregate_Count")


def mark(nodes) -> None:
    """Give every SUM, AVG and COUNT among ``nodes`` (an algebra's) this module's accumulators."""
    for node in nodes:
        if node.name in MENDED:
            node.name += READ


def canonical(name: str) -> str:
    """An algebra node's name as rdflib's translation gave it (``Aggregate_Sum``, not the oracle's)."""
    return name.removesuffix(READ)


def counted(algebra) -> frozenset[str]:
    """The projected variables a COUNT of an expression binds and nothing else reads (the ``count-errors``
    rule's: only an expression errs; ``COUNT(*)`` and ``COUNT(?v)`` never do)."""
    results = {n.res: True for n in nodes(algebra) if canonical(n.name) == "Aggregate_Count"
               and n.vars != "*" and not isinstance(n.vars, Variable)}
    return frozenset(read_alone(algebra, results))
