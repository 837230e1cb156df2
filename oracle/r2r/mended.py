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
"""

from __future__ import annotations

from types import MethodType

from rdflib import BNode, Literal
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


def mend(nodes) -> None:
    """Rewrite, in place, every ``IN`` and ``NOT IN`` with members and every STR among ``nodes`` (an algebra's)."""
    for node in nodes:
        if node.name == "Builtin_STR" and isinstance(node, Expr):
            node._evalfn = MethodType(_str, node)
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
