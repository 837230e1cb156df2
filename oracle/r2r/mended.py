"""rdflib's operators mended where they leave SPARQL 1.1 and Oxigraph follows it.

- **IN and NOT IN** (§17.4.1.9–10) test with ``=`` ("the same value, as determined by the operator mapping"), an
  error counting only where no other member is equal: ``?x IN (a, b)`` is ``(?x = a) || (?x = b)``, and ``NOT
  IN`` its negation. rdflib 7.6 tests each member with Python's ``==``, term equality: ``1 IN (1.0)`` and
  ``1 IN ("01"^^xsd:integer)`` are false there, true in Oxigraph and the Spark engine. Where Oxigraph keeps the
  literal by value, the ``literal-by-value`` rule took rdflib's false for the right answer (a differential fuzz
  of the Spark engine found it: seed 20). :func:`mend` rewrites each IN with members into that
  disjunction of rdflib's own ``=`` and ``||``, which have SPARQL's errors.
- **STR** (§17.4.2.5) is defined on literals and IRIs: of a blank node it is a type error. rdflib 7.6 gives the
  node's label (so ``ORDER BY STR(?o)`` sorted blank nodes among the strings: seed 20 again).
  :func:`mend` gives each STR an evaluation that raises there.
- **<, >, <=, >=** (§17.3's operator table) compare two numbers, two simple literals (or xsd:string), two
  booleans, two dateTimes; a number against a string is a type error. rdflib 7.6 orders any two literals by
  its own rules: ``"N/A" > 80`` and ``"a"@en > 1`` are true there (a sensor stream with a "N/A" reading made
  ``FILTER(?v > 80)`` stop the oracle on the evaluators' disagreement, Oxigraph and the Spark engine dropping
  it). :func:`mend` makes a comparison of two literals of different kinds a type error before rdflib's own
  runs; literals of one kind (two tagged literals, two of another datatype) are rdflib's as before.
"""

from __future__ import annotations

from types import MethodType, SimpleNamespace

from rdflib import XSD, BNode, Literal
from rdflib.plugins.sparql import operators
from rdflib.plugins.sparql.parserutils import Expr
from rdflib.plugins.sparql.sparql import SPARQLError, SPARQLTypeError


def _str(e, ctx):
    """rdflib's STR, with a blank node a type error."""
    arg = e.arg
    if isinstance(arg, SPARQLError):
        raise arg
    if isinstance(arg, BNode):
        raise SPARQLTypeError(f"STR of the blank node {arg.n3()}")
    return Literal(str(arg))


NUMBERS = {str(XSD[t]) for t in (
    "integer decimal float double nonPositiveInteger negativeInteger long int short byte nonNegativeInteger "
    "unsignedLong unsignedInt unsignedShort unsignedByte positiveInteger").split()}


def _kind(term) -> str | None:
    """What §17.3 orders a literal among: numbers, strings, a tag's literals, or its datatype's; None: no literal."""
    if not isinstance(term, Literal):
        return None
    if term.language:
        return "tagged"
    datatype = str(term.datatype) if term.datatype is not None else str(XSD.string)
    return "number" if datatype in NUMBERS else datatype


def _ordered(e, ctx):
    """rdflib's <, >, <= or >=, with two literals of different kinds a type error; each side evaluated once."""
    expr, other = e.expr, e.other
    if other is None:
        return expr
    if isinstance(expr, Literal) and isinstance(other, Literal) and _kind(expr) != _kind(other):
        raise SPARQLTypeError(f"{expr.n3()} {e.op} {other.n3()}: literals of two kinds SPARQL does not order")
    return operators.RelationalExpression(SimpleNamespace(expr=expr, other=other, op=e.op), ctx)


def mend(nodes) -> None:
    """Rewrite, in place, every ``IN`` and ``NOT IN`` with members, every STR and every ``<``-like comparison
    among ``nodes`` (an algebra's)."""
    for node in nodes:
        if node.name == "Builtin_STR" and isinstance(node, Expr):
            node._evalfn = MethodType(_str, node)
        if node.name == "RelationalExpression" and dict.get(node, "op") in ("<", ">", "<=", ">="):
            node._evalfn = MethodType(_ordered, node)
        if node.name != "RelationalExpression" or dict.get(node, "op") not in ("IN", "NOT IN"):
            continue
        members = dict.get(node, "other")
        if not isinstance(members, list) or not members:  # an empty list: false (true), as rdflib answers
            continue
        tested, negated = dict.get(node, "expr"), node["op"] == "NOT IN"
        equal = [Expr("RelationalExpression", operators.RelationalExpression, expr=tested, op="=", other=m)
                 for m in members]
        either = Expr("ConditionalOrExpression", operators.ConditionalOrExpression, expr=equal[0], other=equal[1:])
        kept = dict.get(node, "_vars")
        node.clear()
        if negated:
            node.name, node["expr"] = "UnaryNot", either
            node._evalfn = MethodType(operators.UnaryNot, node)
        else:
            node.name, node["expr"], node["other"] = "ConditionalOrExpression", equal[0], equal[1:]
            node._evalfn = MethodType(operators.ConditionalOrExpression, node)
        if kept is not None:
            node["_vars"] = kept
