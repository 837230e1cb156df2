"""ORDER BY an expression that raises an error: the error first.

SPARQL 1.1 §15.1 puts "no value assigned to the variable or expression in this solution" lowest, before blank
nodes, IRIs and literals. rdflib 7.6 sorts an expression's error where its sort key happens to put it: in
``ORDER BY STR(?o)`` over a blank node, a number, a tagged literal and a boolean it put the blank node's error
after the tagged literal. Oxigraph and the Spark engine put it first, and the oracle FAILed the Spark engine's
order (a differential fuzz found it: seed 20). :func:`errors_first` binds each ORDER BY expression to a variable
of its own first (an ``Extend``: an error leaves it unbound, as BIND does) and orders by that variable, which
rdflib sorts lowest when unbound; the query's projection leaves the variable out.
"""

from __future__ import annotations

from rdflib import Variable
from rdflib.plugins.sparql.parserutils import CompValue

#: the variables ORDER BY's expressions are bound to (no SPARQL query can name them: a name starts with a letter,
#: digit or underscore, and these hold a hyphen)
KEY = "order-key-"


def errors_first(nodes) -> None:
    """Rewrite, in place, every ORDER BY among ``nodes`` (an algebra's) that orders by an expression."""
    for node in nodes:
        if node.name != "OrderBy":
            continue
        inner, conditions = node.p, []
        for i, cond in enumerate(node.expr):
            condition = isinstance(cond, CompValue) and cond.name == "OrderCondition"
            expr = cond.expr if condition else cond
            if isinstance(expr, Variable):
                conditions.append(cond)
                continue
            var = Variable(f"{KEY}{i}")
            seen = dict.get(inner, "_vars")
            inner = CompValue("Extend", p=inner, expr=expr, var=var,
                              **({"_vars": set(seen) | {var}} if seen is not None else {}))
            conditions.append(CompValue("OrderCondition", expr=var, order=cond.order) if condition else var)
        if inner is not node.p:
            node["p"], node["expr"] = inner, conditions
