"""R2R: the SPARQL 1.1 part of a continuous query, evaluated over one window's content by rdflib, by
Oxigraph, or by both with their answers compared (``evaluator``: auto, rdflib, oxigraph, both; see
:mod:`oracle.r2r.evaluators` for when each is used and the declared rules where they may differ).

Results are cached by window content (an element index range), so the oracle's cost grows with the
number of distinct window contents, not with the number of t0 candidates or profile variants.
"""

from __future__ import annotations

import functools
import re
from collections import Counter, OrderedDict
from dataclasses import replace
from typing import Any

from rdflib import BNode, Graph, Literal, URIRef, Variable
from rdflib.namespace import XSD
from rdflib.plugins.sparql import prepareQuery
from rdflib.plugins.sparql.parserutils import CompValue
from rdflib.plugins.sparql.sparql import Query

from oracle.model import Stream, triple_count
from oracle.r2r import evaluators, extremes, joinorder, mended, order, paths, sums
from oracle.r2r.algebra import nodes
from oracle.r2r.concat import concatenated
from oracle.r2r.evaluators import (
    EVALUATORS,
    EvaluatorDisagreement,
    Oxigraph,
    QueryFacts,
    as_rdf11,
    declared_rule,
    doubles_stand_in,
    from_plain,
    rewritten_literals,
    rules_may_apply,
)
from oracle.r2r.held import HeldStream
from oracle.r2r.solutions import Solutions, agree, same
from oracle.r2r.terms import show_solution, show_term

#: a trial window's solutions (``evaluate(keep=False)``) are remembered, the oldest forgotten first, while all
#: remembered trials hold at most this many solutions: gracious mode scores the same trial borders again in
#: its second round and for neighbouring windows (CSRBench Q6 on the CQELS recording: a third of the judging
#: time went to evaluating trials it had evaluated before), and the bound keeps memory to the window's scale
TRIAL_SOLUTIONS = 100_000


class QueryError(ValueError):
    """The R2R query cannot be parsed or evaluated."""


class OpenAnswer(EvaluatorDisagreement):
    """SPARQL leaves a window's answer open (a SAMPLE over a group of several values, a value of RAND, NOW,
    UUID or STRUUID that reaches it): the oracle, which compares values whole, picks none, as where its two
    evaluators disagree."""


class EvaluatorFailure(EvaluatorDisagreement):
    """An evaluator raised instead of answering (rdflib on some data): the oracle picks no answer, as where its
    two evaluators disagree."""


class KnownWrong(EvaluatorDisagreement):
    """Both evaluators are known to answer the query wrongly (a W3C test both fail, the same way): the oracle
    judges none of its windows, as where its two evaluators disagree."""


#: SAMPLE(…) as written (rdflib's own SAMPLEs, of the GROUP BY keys, are one value per group)
SAMPLE_CALL = re.compile(r"\bSAMPLE\s*\(", re.IGNORECASE)
#: the functions whose value changes from one evaluation to the next (and from the oracle's clock to the engine's)
VOLATILE_CALL = re.compile(r"\b(RAND|NOW|UUID|STRUUID)\s*\(", re.IGNORECASE)


def _rows(result, grouped: bool) -> list[dict]:
    """An rdflib SELECT result's solutions, variable name → term.  From ``bindings``, not by iterating
    the result: iteration skips a solution that binds nothing, and that is a solution (MAX over nothing
    without GROUP BY is one; W3C agg-empty-group-max-2, distinct-4).  But rdflib also answers a GROUP BY
    over no solutions with one empty solution where there is no group at all (W3C agg-empty-group-max-1,
    agg-empty-group-count-1): for a grouped query, an answer of nothing but empty solutions is none."""
    rows = [{str(v): term for v, term in row.items() if term is not None} for row in result.bindings]
    return [] if grouped and not any(rows) else rows


def _grouped(node: Any) -> bool:
    """Whether the query has a GROUP BY (rdflib wraps any aggregate in a Group; one with keys is grouped)."""
    if isinstance(node, CompValue):
        if node.name == "Group" and node.get("expr"):
            return True
        return any(_grouped(v) for v in node.values())
    if isinstance(node, (list, tuple)):
        return any(_grouped(v) for v in node)
    return False


def _order_vars(algebra: CompValue) -> tuple[str, ...] | None:
    """The projected variables an ORDER BY sorts on, if it sorts on projected variables only."""
    node, projected = algebra.p, None
    while isinstance(node, CompValue):
        if node.name == "Project":
            projected = {str(v) for v in node.PV}
        if node.name == "OrderBy":
            names = []
            for cond in node.expr:
                expr = cond.expr if isinstance(cond, CompValue) and cond.name == "OrderCondition" else cond
                if not isinstance(expr, Variable) or projected is None or str(expr) not in projected:
                    return None
                names.append(str(expr))
            return tuple(names)
        node = node.get("p")
    return None


def _keyed(query: Query) -> tuple[Query, tuple[str, ...], bool] | None:
    """For a query that orders by something it does not project (``SELECT ?s … ORDER BY ?o``, or an
    expression): the query without its LIMIT/OFFSET and DISTINCT, each ORDER BY condition's value projected too
    as ``__key0``, ``__key1`` …; those names; whether it had DISTINCT.  None for another shape (REDUCED)."""
    top = query.algebra
    node = top.p
    if isinstance(node, CompValue) and node.name == "Slice":
        node = node.p
    distinct = isinstance(node, CompValue) and node.name == "Distinct"
    if distinct:
        node = node.p
    if not (isinstance(node, CompValue) and node.name == "Project" and isinstance(node.p, CompValue)
            and node.p.name == "OrderBy"):
        return None
    order = node.p
    inner, names = order.p, []
    for i, cond in enumerate(order.expr):
        expr = cond.expr if isinstance(cond, CompValue) and cond.name == "OrderCondition" else cond
        names.append(f"__key{i}")
        inner = CompValue("Extend", p=inner, expr=expr, var=Variable(names[-1]))
    keyed_order = CompValue("OrderBy", p=inner, expr=order.expr)
    project = CompValue("Project", p=keyed_order, PV=list(node.PV) + [Variable(n) for n in names])
    algebra = CompValue(top.name, **{k: v for k, v in top.items()})
    algebra["p"] = project
    algebra["PV"] = project.PV
    return Query(query.prologue, algebra), tuple(names), distinct


ARITHMETIC = {"AdditiveExpression", "MultiplicativeExpression", "Aggregate_Avg", "Aggregate_Sum"}


def _names(node: Any) -> set:
    """The names of every algebra node and expression in a query (SUM and AVG by rdflib's names)."""
    return {sums.canonical(n.name) for n in nodes(node)}


#: expressions whose graph pattern rdflib leaves untranslated (no BGP inside): a pre-filter cannot see it
UNTRANSLATED = {"Builtin_EXISTS", "Builtin_NOTEXISTS"}


def _predicates(node: Any, found: set) -> bool:
    """Collect the constant predicates of every triple pattern; False if any predicate is not an IRI
    (a variable or a property path), in which case every triple may matter."""
    if isinstance(node, CompValue):
        if node.name == "BGP":
            for _, p, _ in node.triples:
                if not isinstance(p, URIRef):
                    return False
                found.add(p)
        if node.name in ("Graph", "ServiceGraphPattern", "DescribeQuery"):
            return False
        if node.name in UNTRANSLATED:  # rdflib keeps these patterns unparsed: their predicates are not read
            return False
        return all(_predicates(v, found) for v in node.values())
    if isinstance(node, (list, tuple)):
        return all(_predicates(v, found) for v in node)
    return True


def _graph(triples: list) -> Graph:
    g = Graph(store="SimpleMemory")
    g.addN((s, p, as_rdf11(o), g) for s, p, o in triples)
    return g


def _simple_strings(value):
    """``value`` with each ``"x"^^xsd:string`` constant the simple literal (:func:`evaluators.as_rdf11`), as rdflib
    is handed its data: a CompValue changed in place, a list, tuple or dict made anew."""
    if isinstance(value, CompValue):
        for key, inner in list(value.items()):
            value[key] = _simple_strings(inner)
        return value
    if isinstance(value, (list, tuple)):
        return type(value)(_simple_strings(inner) for inner in value)
    if isinstance(value, dict):
        return {key: _simple_strings(inner) for key, inner in value.items()}
    return as_rdf11(value)


@functools.lru_cache(maxsize=256)
def _prepared(text: str, alternative_sets: bool = False, negated_sets: bool = False, extremes_read: str = "Noted"
              ) -> Query:
    """rdflib's prepared query for ``text``, its BGPs marked for join ordering, shared by every R2R of that
    text: parsing takes 6–7 ms (pyparsing), and the oracle, the lint and the diagnosis build an R2R per
    (case, stream) again and again.  A prepared query is rdflib's form for reuse: no evaluation changes it,
    and nothing here writes to its algebra but what is done here, once: its ``xsd:string`` constants made simple
    literals (:func:`_simple_strings`), each BGP marked for join ordering (oracle/r2r/joinorder.py) and its
    ``*``, ``+`` and ``?`` paths made sets (oracle/r2r/paths.py), with ``alternative_sets`` its ``p|q`` paths
    too (Oxigraph's reading, which the ``alternative-path-bag`` rule checks a difference against), with
    ``negated_sets`` its negated property sets (the reading :meth:`R2R._determined` checks against); its MIN and
    MAX are ``extremes_read``'s (oracle/r2r/extremes.py: "Noted", rdflib's pick noting an open one, or "Other"),
    its SUM and AVG the oracle's (oracle/r2r/sums.py: a value that is no number makes them an error), its IN and
    NOT IN tests of ``=`` and its STR of a blank node an error (oracle/r2r/mended.py), its ORDER BY an
    expression's error first (oracle/r2r/order.py)."""
    prepared = prepareQuery(text)
    _simple_strings(prepared.algebra)
    every = list(nodes(prepared.algebra))
    for node in every:
        if node.name == "BGP":
            node[joinorder.MARK] = True
            node["triples"] = [(s, paths.as_sets(p, alternative_sets, negated_sets), o) for s, p, o in node.triples]
    extremes.mark(every, extremes_read)
    sums.mark(every)
    mended.mend(every)
    order.errors_first(every)
    return prepared


def _path_facts(algebra) -> tuple[frozenset, bool, bool, bool]:
    """The constants a path of the query may connect to themselves by zero steps; whether a path holds an
    alternative, a negated property set, or one whose ``^iri`` rdflib's parse lost (oracle/r2r/paths.py): one
    walk of the algebra for the four."""
    bgps = [n.triples for n in nodes(algebra) if n.name == "BGP"]
    return (frozenset().union(*map(paths.zero_length_ends, bgps)), any(map(paths.alternatives, bgps)),
            any(map(paths.negated_sets, bgps)), any(map(paths.lost_inverse, bgps)))


class R2R:
    """One prepared SPARQL query over window contents of one stream, with a content cache.

    Only triples whose predicate occurs in some triple pattern of the query are loaded: when every
    pattern has a constant IRI predicate, no other triple can match any pattern, so the answers are the
    same and the graphs are smaller.  Queries with variable predicates or property paths load everything.
    """

    def __init__(self, query: str, stream: Stream, evaluator: str = "auto", executor=None, picks: bool = True):
        """``picks``: check that each MIN and MAX pick is determined (:meth:`_picked`); SAMPLE's bounds, MIN
        and MAX standing in for it, do not (SAMPLE's own check says what is open)."""
        self.picks = picks
        if evaluator not in EVALUATORS:
            raise QueryError(f"unknown oracle evaluator {evaluator!r}: use {', '.join(EVALUATORS)}")
        self.evaluator = evaluator
        try:
            self.query = _prepared(query)
        except Exception as exc:  # rdflib raises pyparsing errors of several kinds
            raise QueryError(f"cannot parse the R2R query: {exc}") from exc
        self.text = query
        self.stream = stream
        self.form = self.query.algebra.name  # SelectQuery, ConstructQuery, AskQuery, DescribeQuery
        if self.form not in ("SelectQuery", "ConstructQuery", "AskQuery"):
            raise QueryError(f"unsupported query form {self.form}: use SELECT, CONSTRUCT or ASK")
        names = _names(self.query.algebra)
        self.ordered = self.form == "SelectQuery" and "OrderBy" in names
        self.order_vars = _order_vars(self.query.algebra) if self.ordered else None
        self.distinct = self.form == "SelectQuery" and "Distinct" in names
        self.optional = "LeftJoin" in names  # the diagnosis asks whether an OPTIONAL was read as an inner join
        self.aggregates = "AggregateJoin" in names  # and where a solution's value comes from a whole group
        self.grouped = _grouped(self.query.algebra)
        # compared by their pieces (oracle/r2r/concat.py); the walk only for a query that has a GROUP_CONCAT: it
        # was half the time of building an R2R, which a lint does hundreds of times
        self.concat = concatenated(self.query.algebra) if "Aggregate_GroupConcat" in names else {}
        self.unsliced = self._unsliced() if self.order_vars else None
        # ORDER BY on what the query does not project: the sort keys come from this form of it (:meth:`_keyed_pool`)
        self.keyed = _keyed(self.query) if self.ordered and not self.order_vars else None
        self._cache: dict[tuple[int, int], Solutions] = {}
        self._solutions: dict = {}  # each distinct cached solution once (:meth:`_shared`)
        self._trials: OrderedDict[tuple[int, int], Solutions] = OrderedDict()  # see TRIAL_SOLUTIONS
        self._trial_solutions = 0
        self.evaluations = 0
        wanted: set = set()
        self.relevant = wanted if _predicates(self.query.algebra, wanted) else None
        # the constant ends of zero-length paths that a window may not hold: one the background data names is
        # in every window, where the zero-length-constant rule cannot apply (a path query loads all static data)
        ends, alternatives, self.negated, self.lost_inverse = _path_facts(self.query.algebra)
        zero_ends = ends - {t for s, _, o in stream.static for t in (s, o)} if ends else ends
        # what the declared rules read of the query (oracle/r2r/evaluators.py)
        casts = "Function" in names and any(n.name == "Function" and str(dict.get(n, "iri", "")).startswith(str(XSD))
                                            for n in nodes(self.query.algebra))
        counts = sums.counted(self.query.algebra) if "Aggregate_Count" in names else frozenset()
        self.facts = QueryFacts(self.text, frozenset(names & ARITHMETIC), frozenset(zero_ends), self.concat,
                                alternatives, casts, counts)
        self.oxigraph = Oxigraph(query) if evaluator != "rdflib" else None
        self.executor = executor  # None: in process; else e.g. oracle.r2r.executors.SparkExecutor
        self._prefetched: dict = {}  # content → Oxigraph's plain answer, from the executor
        self.held: dict = {}  # the stream held for Oxigraph (oracle/r2r/held.py), made on first use
        self.fast_windows = 0  # windows Oxigraph alone evaluated under ``auto``
        self._stream_facts: dict | None = None
        self.disagreements: Counter = Counter()  # declared rule → windows where rdflib and Oxigraph differ by it
        # SAMPLE's value is any of its group's: a window's answer is determined where SAMPLE read as MIN and
        # as MAX give the same (each group holds one value); elsewhere the oracle stops (:meth:`_determined`)
        self.sample_bounds = tuple(R2R(SAMPLE_CALL.sub(f"{bound}(", query), stream, "rdflib", picks=False)
                                   for bound in ("MIN", "MAX")) if SAMPLE_CALL.search(query) else ()
        self.volatile = {m.upper() for m in VOLATILE_CALL.findall(query)}
        # a walk only for a query that calls BNODE (names: every node's name, already walked for)
        self.bnode_of_string = "Builtin_BNODE" in names and any(
            n.name == "Builtin_BNODE" and dict.get(n, "arg") is not None for n in nodes(self.query.algebra))

    def _unsliced(self):
        """The query without its top LIMIT/OFFSET (None if it has none): the pool of tied rows."""
        top = self.query.algebra
        if not (isinstance(top.p, CompValue) and top.p.name == "Slice"):
            return None
        algebra = CompValue(top.name, **{k: v for k, v in top.items()})
        algebra["p"] = top.p.p
        return Query(self.query.prologue, algebra)

    def _keyed_pool(self, sols: Solutions, g: Graph, init: dict | None = None, by: str = "rdflib") -> Solutions:
        """``sols`` (ordered by keys it does not project) with each row's tie group and each group's bag, from
        the keyed form of the query over ``g`` (:func:`_keyed`): SPARQL leaves the order of tied rows open, and
        which of them a LIMIT keeps, as for projected keys (:meth:`_pooled`).  Before, such an answer was
        compared as one exact sequence: ``SELECT ?s … ORDER BY ?o`` over two solutions of one ?o FAILed the
        engine that gave them in the other order (a differential fuzz of the Spark engine found it).  Under
        DISTINCT each row keeps its first solution's place (DISTINCT comes after ORDER BY and the projection).
        ``sols`` is the answer of the evaluator ``by``: where Oxigraph's order does not follow rdflib's keys, its
        answer keeps its own order without places (given by position, they would be wrong), for the comparison
        with rdflib's to find the difference and a declared rule to explain it or not (:meth:`_placed`: alone,
        such an answer stops the window).  Before, Oxigraph's order was never checked: rdflib's ``STR(_:b)`` is
        the node's label, where SPARQL has an error, and it sorted there; a declared rule then took the difference
        for another one."""
        keyed, names, distinct = self.keyed
        try:  # rdflib on Oxigraph's path too: its failure is the harness's one-line ERROR, as in evaluate_graph
            full = Solutions.of(_rows(g.query(keyed, initBindings=init or {}), self.grouped))
        except Exception as exc:  # noqa: BLE001 - rdflib's own failure, whatever it raises
            raise EvaluatorFailure(
                f"rdflib cannot evaluate the query's ORDER BY keys over a window (the oracle reads which solutions "
                f"tie from them): it raised {type(exc).__name__}: {exc}; the oracle picks no answer for it "
                "(oracle/README.md, 'Comparison')") from exc
        projected = [{v: t for v, t in row.items() if v not in names} for row in full.rows]
        runs, run, last = [], -1, object()  # each solution's run of equal sort keys
        for group in full.sort_keys(names):
            if group != last:
                run, last = run + 1, group
            runs.append(run)
        if distinct:  # the first solution of each row, rows told apart by their terms as rdflib's DISTINCT does
            seen: set = set()
            firsts = []
            for i, row in enumerate(projected):
                terms = tuple(sorted(row.items()))
                if terms not in seen:
                    seen.add(terms)
                    firsts.append(i)
            projected, runs = [projected[i] for i in firsts], [runs[i] for i in firsts]
        if not self._check_order(full, names, len(projected)):
            return sols.unordered()
        pool: dict = {}
        for place, key in zip(runs, self.solutions(projected).keys):
            pool.setdefault(place, Counter())[key] += 1
        top = self.query.algebra.p
        start = (top.start or 0) if top.name == "Slice" else 0
        places = tuple(runs[start:start + len(sols)])
        if len(places) != len(sols):
            return sols
        keyed = replace(sols, pool=pool, places=places)
        if not same(keyed, sols):
            if by != "rdflib":
                return sols
            raise EvaluatorFailure("rdflib orders the query's solutions apart from its own ORDER BY keys; the "
                                   "oracle picks no answer for it (oracle/README.md, 'Two evaluators')")
        return keyed

    def _placed(self, sols: Solutions, content: tuple[int, int]) -> Solutions:
        """Oxigraph's answer, to stand alone: where its order did not follow rdflib's ORDER BY keys
        (:meth:`_keyed_pool`), the window stops."""
        if self.keyed is None or not sols.ordered or sols.places is not None:
            return sols
        raise EvaluatorDisagreement(
            f"rdflib's ORDER BY keys and Oxigraph's order of the solutions disagree on the window "
            f"{self._span(content)} (Oxigraph gives {'; '.join(show_solution(r, precise=True) for r in sols.rows[:12])}"
            f"{' …' if len(sols) > 12 else ''}); the oracle picks neither (see oracle/README.md, 'Two evaluators')")

    def _with_pool(self, sols: Solutions, g: Graph, init: dict | None) -> Solutions:
        full = sols
        if self.unsliced is not None:
            full = self.solutions(_rows(g.query(self.unsliced, initBindings=init or {}), self.grouped))
        return self._pooled(sols, full)

    def _pooled(self, sols: Solutions, full: Solutions) -> Solutions:
        """``sols`` with the pool of tied rows taken from ``full``, the answer without LIMIT/OFFSET.  Where SPARQL
        leaves the order of two of its values undefined (:meth:`Solutions.undefined_order`), the evaluators'
        own order is no answer's: without LIMIT/OFFSET the window is compared as a bag, with one it is open
        (which solutions it keeps depends on that order)."""
        if not self._check_order(full, self.order_vars, len(full)):
            return sols.unordered()
        pool: dict = {}
        for group, key in zip(full.sort_keys(self.order_vars), full.keys):
            pool.setdefault(group, Counter())[key] += 1
        return replace(sols, order_vars=self.order_vars, pool=pool)

    def _check_order(self, full: Solutions, names: tuple[str, ...], n: int) -> bool:
        """Whether SPARQL orders every pair of ``full``'s sort keys (``names``) that the order compares; where it
        does not (:meth:`Solutions.undefined_order`), the evaluators' own order is no answer's: without
        LIMIT/OFFSET the window is compared as a bag (False), with one it is open (which solutions it keeps
        depends on that order) unless the slice keeps all ``n`` or none."""
        undefined = full.undefined_order(names)
        if undefined is None:
            return True
        v, a, b = undefined
        if self.query.algebra.p.name == "Slice" and not self._slice_keeps_all_or_none(n):
            shown = (f"?{v}'s values {show_solution({v: a}, precise=True)} and {show_solution({v: b}, precise=True)}"
                     if not v.startswith("__key") else f"the values of ORDER BY's key {int(v[5:]) + 1}, "
                     f"{show_term(a, precise=True)} and {show_term(b, precise=True)}")
            raise OpenAnswer(
                f"ORDER BY leaves the answer open: SPARQL 1.1 §15.1 does not order {shown}, so which solutions "
                "LIMIT/OFFSET keeps is any engine's choice; order by values of one kind (numbers, strings, dateTimes) "
                "or by STR(…) (oracle/README.md, 'Comparison')")
        return False

    def _slice_keeps_all_or_none(self, n: int) -> bool:
        """Whether the query's LIMIT/OFFSET keeps all ``n`` solutions or none, whatever their order."""
        top = self.query.algebra.p
        start, length = top.start or 0, top.length
        return length == 0 or start >= n or (start == 0 and (length is None or length >= n))

    def triples(self, content: tuple[int, int]) -> list:
        """The static data plus the elements in ``content``, restricted to the relevant predicates."""
        lo, hi = content
        triples = [t for t in self.stream.static]
        for element in self.stream.elements[lo:hi]:
            triples.extend(element.triples)
        keep = self.relevant
        return [t for t in triples if keep is None or t[1] in keep]

    def graph(self, content: tuple[int, int]) -> Graph:
        """The window's triples as an rdflib graph."""
        return _graph(self.triples(content))

    def evaluate_oxigraph(self, content: tuple[int, int], doubles: bool = False) -> Solutions:
        """The same relation, evaluated by Oxigraph (oracle/r2r/evaluators.py) over the held stream; with
        ``doubles``, over the stream with every xsd:float literal read as xsd:double."""
        prefetched = self._prefetched.get(content) if not doubles else None
        raw = prefetched or self.oxigraph.answer(self.held_stream(doubles).store(content), self.form)
        sols = self.from_answer(raw)
        return self._keyed_pool(sols, self.graph(content), by="Oxigraph") if self.keyed else sols

    def held_stream(self, doubles: bool = False):
        """The stream held for Oxigraph (oracle/r2r/held.py), made on first use."""
        if self.held.get(doubles) is None:
            self.held[doubles] = HeldStream(self.stream.elements, self.stream.static, self.relevant, doubles)
        return self.held[doubles]

    def from_answer(self, raw: dict) -> Solutions:
        """Solutions from Oxigraph's plain answer (oracle/r2r/evaluators.py :func:`answer`)."""
        if "ask" in raw:
            return Solutions.of([{"ask": Literal(raw["ask"])}])
        if "triples" in raw:
            return Solutions.of([dict(zip("spo", map(from_plain, t))) for t in raw["triples"]])

        def rows(plain_rows):
            return [{n: from_plain(t) for n, t in row.items()} for row in plain_rows]
        sols = self.solutions(rows(raw["rows"]), self.ordered)
        if not self.order_vars:
            return sols
        return self._pooled(sols, self.solutions(rows(raw["unsliced"])) if raw["unsliced"] is not None else sols)

    def prefetch(self, contents) -> None:
        """Evaluate many window contents at once with the executor (``--oracle-executor``), before the
        verdict asks for them one by one; a no-op in process."""
        if self.executor is None or self.evaluator == "rdflib":
            return
        wanted = [c for c in dict.fromkeys(contents) if c not in self._cache and c not in self._prefetched]
        if wanted:
            self._prefetched.update(self.executor.answers(self, wanted))

    def _evaluated(self, content: tuple[int, int], rdflib: Solutions | None = None) -> Solutions:
        """The window's answer by the R2R's evaluator(s); ``rdflib``: rdflib's answer, if already evaluated."""
        if self.evaluator == "rdflib":
            return rdflib if rdflib is not None else self.evaluate_graph(self.graph(content), content=content)
        oxigraph = self.evaluate_oxigraph(content)
        if self.evaluator == "oxigraph":
            return self._placed(oxigraph, content)
        if self.evaluator == "auto":
            route = self._auto_route(content, oxigraph)
            if route == "oxigraph":
                return self._placed(oxigraph, content)
            if route == "doubles":
                doubled = self.evaluate_oxigraph(content, doubles=True)
                if not same(doubled, oxigraph):
                    self.disagreements["float-arithmetic"] += 1
                return self._placed(doubled, content)
        triples = self.triples(content)
        if rdflib is None:
            rdflib = self.evaluate_graph(_graph(triples), content=content)
        if not agree(rdflib, oxigraph):
            rule = declared_rule(rdflib, oxigraph, self.facts, triples,
                                 rdflib_over=lambda merged: self.evaluate_graph(_graph(merged)),
                                 rdflib_alternative_sets=lambda: self.evaluate_graph(
                                     _graph(triples), query=_prepared(self.text, alternative_sets=True)))
            if rule:
                self.disagreements[rule] += 1
                return rdflib

            def shown(sols):
                return "; ".join(sorted(show_solution(r, precise=True) for r in sols.rows)[:12]) + (
                    f" … ({len(sols)} in all)" if len(sols) > 12 else "")
            window = self._span(content)
            raise EvaluatorDisagreement(
                f"rdflib and Oxigraph disagree on the window {window}: rdflib gives {len(rdflib)} solutions "
                f"[{shown(rdflib)}], Oxigraph {len(oxigraph)} [{shown(oxigraph)}]; the oracle picks neither "
                "(see oracle/README.md, 'Two evaluators')")
        return rdflib

    def _auto_route(self, content: tuple[int, int], oxigraph: Solutions) -> str:
        """Under ``auto``, who else evaluates this window: ``rdflib`` when it is small (the differential
        check costs little) or when a declared rule may apply to Oxigraph's answer (rdflib's answer then
        stands, oracle/README.md); ``doubles`` when the only such rule is float-arithmetic and Oxigraph
        over xsd:float read as xsd:double gives rdflib's double-precision answer; else ``oxigraph``."""
        lo, hi = content
        size = len(self.stream.static) + triple_count(self.stream.elements[lo:hi])
        if size <= evaluators.SMALL_WINDOW:  # read at call time: a test lowers it
            return "rdflib"
        self.fast_windows += 1
        rules = rules_may_apply(oxigraph, self.facts, self.stream_has)
        if not rules:
            return "oxigraph"
        if rules == {"float-arithmetic"} and doubles_stand_in(self.text):
            return "doubles"
        return "rdflib"

    def stream_has(self, what: str) -> bool:
        """A fact about the stream's literals that decides whether a declared rule may apply
        (oracle/r2r/evaluators.py :func:`rules_may_apply`); all are computed once per stream."""
        if self._stream_facts is None:
            facts = {"float": False, "inexact-float": False, "tagged": False}
            literals = {o for triples in (self.stream.static, *(e.triples for e in self.stream.elements))
                        for _, _, o in triples if isinstance(o, Literal)}
            facts.update(rewritten_literals(literals))
            for o in literals:
                if o.language:
                    facts["tagged"] = True
                elif o.datatype == XSD.float:
                    facts["float"] = True
                    try:
                        value = float(str(o))
                        exact = value == int(value) and abs(value) < 2 ** 24
                    except (ValueError, OverflowError):
                        exact = False
                    facts["inexact-float"] = facts["inexact-float"] or not exact
            self._stream_facts = facts
        return self._stream_facts[what]

    def _span(self, content: tuple[int, int]) -> str:
        lo, hi = content
        if lo >= hi:
            return "with no element"
        return f"of elements {lo}..{hi - 1} (t = {self.stream.elements[lo].t}..{self.stream.elements[hi - 1].t})"

    def evaluate_graph(self, g: Graph, init: dict | None = None, query: Query | None = None,
                       content: tuple[int, int] | None = None) -> Solutions:
        """rdflib's answer over ``g``: of the R2R's query, or of ``query``, a form of it (:func:`_prepared`).
        With ``content`` (the window's, for the message) a MIN or MAX whose pick SPARQL leaves open is checked
        (:meth:`_picked`).
        Where rdflib itself fails (it raises on a NaN under CEIL, on ORDER BY over some decimals; on SUM over a
        string until oracle/r2r/sums.py), :class:`EvaluatorFailure` says so: before, its
        exception went through the harness as a Python traceback (a differential fuzz met 7 in 150 queries)."""
        try:
            with extremes.open_picks() as picks:  # rdflib evaluates as the rows are read
                result = g.query(query or self.query, initBindings=init or {})
                if self.form == "AskQuery":
                    sols = Solutions.of([{"ask": Literal(bool(result.askAnswer))}])
                elif self.form == "ConstructQuery":
                    sols = Solutions.of([{"s": s, "p": p, "o": o} for s, p, o in result.graph])
                else:
                    sols = self.solutions(_rows(result, self.grouped), self.ordered)
                    sols = self._with_pool(sols, g, init) if self.order_vars else sols
                    sols = self._keyed_pool(sols, g, init) if self.keyed else sols
            if picks and content is not None and query is None and self.picks:
                self._picked(content, sols, picks, lambda: self.evaluate_graph(
                    g, init, _prepared(self.text, extremes_read="Other")))
            return sols
        except EvaluatorDisagreement:
            raise
        except Exception as exc:  # noqa: BLE001 - rdflib's own failure, whatever it raises
            raise EvaluatorFailure(
                f"rdflib cannot evaluate the query over a window: it raised {type(exc).__name__}: {exc}; the oracle "
                "picks no answer for it (--oracle-evaluator oxigraph judges by Oxigraph alone; oracle/README.md, "
                "'Two evaluators')") from exc

    def solutions(self, rows, ordered: bool = False) -> Solutions:
        """A SELECT's rows, from an evaluator or an engine, as this query's solutions."""
        return Solutions.of(rows, ordered, self.concat)

    def evaluate(self, content: tuple[int, int], keep: bool = True) -> Solutions:
        """Solutions of the query over the static data plus the elements ``content`` (cached unless
        ``keep`` is false: a trial, e.g. a gracious-mode border, must not grow the cache without bound;
        the latest trials are remembered up to :data:`TRIAL_SOLUTIONS`)."""
        hit = self._cache.get(content)
        if hit is not None:
            return hit
        hit = self._trials.pop(content, None)
        if hit is None:
            self.evaluations += 1
            # first: where the answer is open, the two evaluators may pick apart
            hit = self._evaluated(content, self._determined(content))
        else:
            self._trial_solutions -= len(hit) + 1
        if keep:
            hit = self._cache[content] = self._shared(hit)
        else:
            self._remember_trial(content, hit)
        return hit

    def _shared(self, sols: Solutions) -> Solutions:
        """``sols`` with each solution the cache already holds, term for term, taken from there.  A solution is in
        many windows (sliding windows; the t0 classes a judgement under ``t0: any`` tries), and each evaluation
        makes its own dict, keys and key strings: infer-profile held 180,748 cached solutions of 1,500 distinct
        ones for one 50-station weather case.  Exact: a solution is shared only with one of the same variables,
        in the same order, bound to terms of the same kind, text, datatype and language; one with a blank node
        is kept as it is (its key names the node by its place in its own window)."""
        rows, keys = [], []
        for row, key in zip(sols.rows, sols.keys):
            if not any(type(t) is BNode for t in row.values()):
                exact = tuple((v, type(t), str(t), getattr(t, "datatype", None), getattr(t, "language", None))
                              for v, t in row.items())
                row, key = self._solutions.setdefault(exact, (row, key))  # the key follows from the row
            rows.append(row)
            keys.append(key)
        return replace(sols, rows=tuple(rows), keys=tuple(keys))

    def _determined(self, content: tuple[int, int]) -> Solutions | None:
        """Raise :class:`OpenAnswer` where the query's RAND, NOW, UUID, STRUUID, SAMPLE or negated property set
        leaves the window's answer open: a volatile function's value is determined where two evaluations by rdflib
        give the same answer (a test of its type or range, as the W3C's functions tests write), a SAMPLE's where
        SAMPLE read as MIN and as MAX do (each group holds one value), a negated set's where one solution per
        matching triple (rdflib's and Oxigraph's reading) and one per pair do.  Raise :class:`KnownWrong` for
        BNODE with an argument.
        Give rdflib's answer where that took one (a volatile query: it is not evaluated a third time)."""
        if self.lost_inverse and self.evaluator != "oxigraph":
            raise KnownWrong(
                f"a negated property set with an inverse member (^iri) is not judged (window {self._span(content)}): "
                "rdflib's SPARQL parser drops the IRI after ^ inside !( … ), so the oracle's rdflib cannot evaluate "
                "the query; judge it with --oracle-evaluator oxigraph alone (which gives each pair once where a set "
                "has both kinds of members: the alternative-path-bag rule, oracle/README.md 'Two evaluators'), or "
                "write the inverse member as a triple pattern of its own with a FILTER on its predicate")
        if self.bnode_of_string:
            raise KnownWrong(
                f"BNODE with an argument is not judged (window {self._span(content)}): rdflib and Oxigraph both give "
                "one blank node per string across all the solutions, where SPARQL 1.1 §17.4.2.9 gives one per string "
                "and solution (W3C functions/bnode01, which both fail); write BNODE() without one, or make an IRI "
                "(IRI(CONCAT(…))) (oracle/README.md, 'Comparison')")
        checks = []
        negated = self.negated and not self.lost_inverse  # rdflib cannot read a set that lost a member
        g = self.graph(content) if self.volatile or negated else None
        if self.volatile:
            checks.append((", ".join(sorted(self.volatile)), "two evaluations give",
                           lambda: (self.evaluate_graph(g, content=content), self.evaluate_graph(g)),
                           "keep the function's value out of the solutions, or test only its type or range", True))
        if negated:
            checks.append(("a negated property set", "one solution per matching triple and one per pair give",
                           lambda: (self.evaluate_graph(g, content=content),
                                    self.evaluate_graph(g, query=_prepared(self.text, negated_sets=True))),
                           "project DISTINCT, or write the set as a triple pattern with a FILTER on its predicate "
                           "(SPARQL 1.1 §18.5 writes '∃ triple' and does not say how many; w3c/sparql-query#395)",
                           True))
        if self.sample_bounds:
            checks.append(("SAMPLE", "SAMPLE read as MIN and as MAX give",
                           lambda: tuple(bound.evaluate(content, keep=False) for bound in self.sample_bounds),
                           "write MIN or MAX in the query, or group so that each group holds one value", False))
        answered = None
        for what, how, answers, fix, the_query in checks:  # the_query: its answers are the query's own
            one, other = answers()
            if not agree(one, other):
                shown = ["; ".join(sorted(show_solution(r, precise=True) for r in sols.rows)[:6])
                         for sols in (one, other)]
                raise OpenAnswer(
                    f"{what} leaves the answer open on the window {self._span(content)}: {how} [{shown[0]}] and "
                    f"[{shown[1]}], SPARQL lets an engine give either, and the oracle compares values whole; {fix} "
                    "(oracle/README.md, 'Comparison')")
            if the_query:
                answered = one
        return answered

    def _picked(self, content: tuple[int, int], sols: Solutions, picks: list, other) -> None:
        """Raise :class:`OpenAnswer` where a MIN or MAX over values SPARQL does not order (``picks``: a number
        and a string, say; oracle/r2r/extremes.py) reaches the window's answer: where ``other()``, the answer
        with the extreme of another of the values' order families, is not ``sols``, rdflib's."""
        alternative = other()
        if agree(sols, alternative):
            return
        aggregate, values = picks[0]
        shown = ["; ".join(sorted(show_solution(r, precise=True) for r in x.rows)[:6]) for x in (sols, alternative)]
        raise OpenAnswer(
            f"{aggregate} leaves the answer open on the window {self._span(content)}: SPARQL 1.1 orders no two of "
            f"{', '.join(show_term(v, precise=True) for v in values[:3])} (§15.1: a number and a string, two "
            f"blank nodes, two language-tagged literals are in no defined order), so {aggregate} may pick either, and "
            f"rdflib's pick and another give [{shown[0]}] and [{shown[1]}]; the oracle compares values whole; compare "
            "values of one kind (FILTER(isNumeric(?v)), or a DATATYPE test) (oracle/README.md, 'Comparison')")

    def _remember_trial(self, content: tuple[int, int], sols: Solutions) -> None:
        """Keep a trial's solutions as the newest, forgetting the oldest past :data:`TRIAL_SOLUTIONS`
        (read at call time: a test lowers it)."""
        self._trials[content] = sols
        self._trial_solutions += len(sols) + 1
        while self._trial_solutions > TRIAL_SOLUTIONS and self._trials:
            _, old = self._trials.popitem(last=False)
            self._trial_solutions -= len(old) + 1
