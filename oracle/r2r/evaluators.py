"""The oracle's SPARQL 1.1 evaluators behind one small interface: rdflib (Python) and Oxigraph (Rust,
through pyoxigraph) — two independent implementations that share no code with each other or with any
engine.  ``both`` evaluates every relation with each and refuses to pick when they disagree.

An evaluator takes the query text and the triples of one window (static data included; the stream is
held for Oxigraph by oracle/r2r/held.py) and gives the solutions as rdflib terms, so everything after R2R
(R2S, comparison, provenance) is the same whichever evaluated.  Declared rules where the two differ on purpose are in oracle/README.md.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Iterable

import pyoxigraph as ox
from rdflib import BNode, Literal, URIRef

from oracle.r2r.solutions import Solutions, agree
from oracle.r2r.terms import solution_keys

EVALUATORS = ("auto", "rdflib", "oxigraph", "both")
#: RDF 1.1 makes "x"^^xsd:string the simple literal "x": Oxigraph's answers and rdflib's input are read so.  A
#: plain str: rdflib's URIRef is never equal to a str, nor a str to it
XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
#: Under ``auto``, a window with at most this many triples is evaluated by both (the differential check
#: costs well under a second there); a larger one by Oxigraph alone unless a declared rule may apply.
SMALL_WINDOW = 20_000


class EvaluatorDisagreement(ValueError):
    """rdflib and Oxigraph gave different solutions for one window: a harness error, never a silent pick."""


class Oxigraph:
    """SPARQL 1.1 by pyoxigraph over an in-memory store filled with one window's triples."""

    name = "oxigraph"

    def __init__(self, query_text: str):
        self.text = query_text
        self.unsliced = _without_top_slice(query_text)

    def answer(self, store, form: str) -> dict:
        """The query's answer over ``store`` in plain, picklable values (:func:`answer`)."""
        return answer(store, self.text, self.unsliced, form)


def plain(term) -> tuple:
    """An Oxigraph term as a plain tuple: ("iri", v), ("bnode", v) or ("lit", v, datatype, language)."""
    if isinstance(term, ox.NamedNode):
        return ("iri", term.value)
    if isinstance(term, ox.BlankNode):
        return ("bnode", term.value)
    if isinstance(term, ox.Literal):
        return ("lit", term.value, term.datatype.value, term.language)
    raise TypeError(f"not an RDF term: {term!r}")


def answer(store, text: str, unsliced: str | None, form: str) -> dict:
    """A query's answer in plain values — what a Spark task sends back, and what the in-process path
    reads too, so both go through one conversion (:func:`from_plain`)."""
    if form == "AskQuery":
        return {"ask": bool(store.query(text))}
    if form == "ConstructQuery":
        return {"triples": [(plain(t.subject), plain(t.predicate), plain(t.object)) for t in store.query(text)]}

    def rows(query_text):
        result = store.query(query_text)
        names = [v.value for v in result.variables]
        return [{n: plain(sol[n]) for n in names if sol[n] is not None} for sol in result]
    return {"rows": rows(text), "unsliced": rows(unsliced) if unsliced else None}


def from_plain(term: tuple):
    """An rdflib term from :func:`plain`'s tuple (literals kept as written)."""
    kind = term[0]
    if kind == "iri":
        return URIRef(term[1])
    if kind == "bnode":
        return BNode(term[1])
    _, value, datatype, language = term
    if language:
        return Literal(value, lang=language, normalize=False)
    return Literal(value, datatype=None if datatype == XSD_STRING else URIRef(datatype), normalize=False)


def _to_ox(term):
    if isinstance(term, URIRef):
        return ox.NamedNode(str(term))
    if isinstance(term, BNode):
        return ox.BlankNode(str(term))
    if isinstance(term, Literal):
        if term.language:
            return ox.Literal(str(term), language=term.language)
        if term.datatype is not None:
            return ox.Literal(str(term), datatype=ox.NamedNode(str(term.datatype)))
        return ox.Literal(str(term))
    raise TypeError(f"not an RDF term: {term!r}")


_SLICE = re.compile(r"(\s+(LIMIT|OFFSET)\s+\d+)+\s*$", re.IGNORECASE)


def _without_top_slice(text: str) -> str | None:
    """The query without its final LIMIT/OFFSET (None if it has none): the pool of tied ORDER BY rows."""
    stripped = _SLICE.sub("", text)
    return stripped if stripped != text else None


XSD = "http://www.w3.org/2001/XMLSchema#"


def as_rdf11(term):
    """``"x"^^xsd:string`` as the simple literal ``"x"``: RDF 1.1 makes them one term, Oxigraph does, and rdflib
    keeps two (DISTINCT over both forms gave two solutions, and the oracle stopped on the evaluators'
    disagreement).  rdflib is handed the one term, in its data and in the query's constants; the stream an
    engine reads stays as written."""
    if type(term) is Literal and term.datatype is not None and str(term.datatype) == XSD_STRING:
        return Literal(str(term))
    return term


EBV_FILTER = re.compile(r"FILTER\s*\(\s*\?\w+\s*\)", re.IGNORECASE)


FLOAT_TOLERANCE = 1e-6  # relative: xsd:float holds about 7 significant digits


def _split(row: dict) -> tuple[tuple, dict]:
    """A row as (its non-floating terms, its floating values by variable)."""
    exact, floating = [], {}
    for var, term in sorted(row.items()):
        value = term.toPython() if isinstance(term, Literal) else None
        if isinstance(value, (float, Decimal)) and not isinstance(value, bool):
            floating[var] = float(value)
        else:
            exact.append((var, str(term), str(getattr(term, "datatype", "")), getattr(term, "language", None)))
    return tuple(exact), floating


def _close(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(abs(a[v] - b[v]) <= FLOAT_TOLERANCE * max(abs(a[v]), abs(b[v]), 1e-30)
                                        for v in a)


def _agree_at_float_precision(left, right, limit: int = 2000) -> bool:
    """The two bags pair up row for row: the same non-floating terms, floating values within a relative
    tolerance of xsd:float's precision (a tolerance, not rounding: two values either side of a rounding
    border still agree).  Two sequences (ORDER BY) pair up place for place: a difference of order is no
    difference of precision (the rule explained one over xsd:float data, stop 68)."""
    if len(left) != len(right) or len(left) > limit:
        return False
    if left.ordered and right.ordered:
        pairs = [(_split(a), _split(b)) for a, b in zip(left.rows, right.rows)]
        return all(ea == eb and _close(fa, fb) for (ea, fa), (eb, fb) in pairs)
    unmatched = [_split(r) for r in right.rows]
    for row in left.rows:
        exact, floating = _split(row)
        hit = next((i for i, (e, f) in enumerate(unmatched) if e == exact and _close(floating, f)), None)
        if hit is None:
            return False
        unmatched.pop(hit)
    return True


@dataclass(frozen=True, eq=False)
class QueryFacts:
    """What the declared rules read of a query, worked out once per R2R: its ``text``; ``operators``, its
    arithmetic (rdflib algebra names); ``zero_ends``, the constant ends of its paths that may have length zero
    (oracle/r2r/paths.py), less those the background data names; ``concat``, its GROUP_CONCAT variables
    (oracle/r2r/concat.py); ``alternatives``, whether a path of it holds a ``p|q``; ``casts``, whether it calls an
    XSD constructor; ``counts``, its projected variables bound to a COUNT of an expression (:func:`counted`).  One
    argument for every rule, so a new rule adds a field, not a parameter."""

    text: str
    operators: frozenset = frozenset()
    zero_ends: frozenset = frozenset()
    concat: dict = field(default_factory=dict)
    alternatives: bool = False
    casts: bool = False
    counts: frozenset = frozenset()


def declared_rule(rdflib_sols, oxigraph_sols, query: QueryFacts, triples: list, rdflib_over=None,
                  rdflib_alternative_sets=None) -> str | None:
    """The declared rule that explains a disagreement of the two evaluators, if one does (then rdflib's
    answer stands and the verdict says so); None: an unexplained disagreement, a harness ERROR.

    - ``float-arithmetic``: over xsd:float data, rdflib computes in double precision and Oxigraph in
      single precision (XPath F&O 4.2 numeric promotion: float ÷ integer is a float, so Oxigraph is right);
      the two agree at float precision.  The kit keeps rdflib's double, as the engines it judges compute
      (documented limit: an engine that answers a strict xsd:float differs after the 7th digit).
    - ``literal-by-value``: Oxigraph's store keeps a literal of a numeric, boolean or date/time datatype
      by its value, so two distinct terms with one value ("01"^^xsd:integer and "1"^^xsd:integer) become
      one term.  RDF 1.1 §3.3 makes them two terms (equal lexical form and datatype), which DISTINCT,
      COUNT(DISTINCT …), GROUP BY and sameTerm see: rdflib keeps them apart and stands.  Not for a query that
      casts: rdflib's XSD constructors read the lexical form where SPARQL's read the value
      (``xsd:boolean("-0"^^xsd:integer)`` is an error in rdflib, false in SPARQL and Oxigraph, and false in
      rdflib too over Oxigraph's "0"), so rdflib over Oxigraph's forms giving Oxigraph's answer does not show
      that the forms alone make the difference (fuzz seed 28; stop 68).
    - ``ebv-language-tagged``: SPARQL 1.1 §17.2.2 gives a plain literal — a language-tagged one included —
      the effective boolean value true when it is not empty; rdflib does so, Oxigraph raises a type error
      (rdf:langString, as in RDF 1.1 / SPARQL 1.2 drafts).  rdflib follows the 1.1 text: it stands.
    - ``zero-length-constant``: SPARQL 1.1 §18.5 (ALP) pairs a constant end of a ``*`` or ``?`` path with
      itself whether the graph holds it or not (W3C ``zero_or_more_set_start`` and three more); rdflib
      does, Oxigraph 0.5 gives nothing for a term the graph does not hold.  The rule holds only when
      Oxigraph's bag is inside rdflib's and every solution rdflib has more binds such a term (one of the
      query's ``zero_ends``), absent from the window; rdflib stands.
    - ``group-concat-language``: Oxigraph 0.5 gives GROUP_CONCAT over values of one language tag that tag;
      the W3C suite's results are simple literals (agg-groupconcat-4, -6: Oxigraph fails both, rdflib
      passes).  The rule holds only when the answers are the same once the tags of Oxigraph's values of the
      query's GROUP_CONCAT variables (its ``concat``) are dropped; rdflib stands.
    - ``alternative-path-bag``: SPARQL 1.1 §18.5 evaluates an alternative path ``p|q`` as the Union of its two
      sides ("informally, the same as SELECT * { { X P Y } UNION { X Q Y } }"), a bag: two triples ``:a :p :b``
      and ``:a :q :b`` give ``:a (:p|:q) ?o`` two solutions, as rdflib does; Oxigraph 0.5 gives each pair
      once.  The rule holds only when rdflib with every alternative path read as a set of pairs
      (``rdflib_alternative_sets()``, oracle/r2r/paths.py) gives Oxigraph's answer; rdflib stands.
    - ``count-errors``: SPARQL 1.1 §18.5.1.2's Count "counts the number of times a given expression has a bound,
      and non-error value within the aggregate group", so a COUNT is never an error; the oracle's rdflib counts
      so (oracle/r2r/sums.py), Oxigraph 0.5 leaves a COUNT of an expression unbound in a group where the
      expression errs once.  The rule holds only when the only difference is such COUNTs (the query's
      ``counts``, read by nothing else) unbound in Oxigraph's answer, every other value the same; rdflib stands.
    """
    datatypes = {str(o.datatype) for _, _, o in triples if isinstance(o, Literal) and o.datatype is not None}
    if XSD + "float" in datatypes and _agree_at_float_precision(rdflib_sols, oxigraph_sols):
        return "float-arithmetic"
    tagged = any(isinstance(o, Literal) and o.language for _, _, o in triples)
    if tagged and EBV_FILTER.search(query.text) and not (Counter(oxigraph_sols.keys) - Counter(rdflib_sols.keys)):
        return "ebv-language-tagged"
    if rdflib_over is not None and not query.casts and _only_merged_literals(rdflib_sols, oxigraph_sols, triples,
                                                                              rdflib_over):
        return "literal-by-value"
    if query.zero_ends and _only_absent_ends(rdflib_sols, oxigraph_sols, triples, query.zero_ends):
        return "zero-length-constant"
    if query.concat and _only_concat_tags(rdflib_sols, oxigraph_sols, query.concat):
        return "group-concat-language"
    if query.alternatives and rdflib_alternative_sets is not None and agree(rdflib_alternative_sets(), oxigraph_sols):
        return "alternative-path-bag"
    if query.counts and _only_unbound_counts(rdflib_sols, oxigraph_sols, query.counts):
        return "count-errors"
    return None


def _only_unbound_counts(rdflib_sols, oxigraph_sols, counts: frozenset) -> bool:
    """Whether Oxigraph's answer is rdflib's with some of the ``counts`` variables unbound (the ``count-errors``
    rule): each of Oxigraph's solutions pairs with one of rdflib's, the same but for the COUNTs it leaves unbound.
    Paired greedily, the solutions with every COUNT bound first (an exact match); a pairing missed leaves the
    window open, never wrongly judged.  Not under ORDER BY: which position an unbound COUNT takes is Oxigraph's."""
    if rdflib_sols.ordered or len(rdflib_sols.rows) != len(oxigraph_sols.rows):
        return False
    by_unbound: dict[frozenset, list[dict]] = {}
    for row in oxigraph_sols.rows:
        by_unbound.setdefault(frozenset(counts - row.keys()), []).append(row)
    if set(by_unbound) == {frozenset()}:
        return False  # every COUNT bound: the difference lies elsewhere
    left, concat = list(rdflib_sols.rows), dict(rdflib_sols.concat)
    for unbound in sorted(by_unbound, key=lambda u: (len(u), sorted(u))):
        wanted = Counter(solution_keys(by_unbound[unbound], concat))
        keep = []
        restricted = [{v: t for v, t in r.items() if v not in unbound} for r in left]
        for row, key in zip(left, solution_keys(restricted, concat)):
            if wanted[key] > 0:
                wanted[key] -= 1
            else:
                keep.append(row)
        if +wanted:
            return False
        left = keep
    return not left


def _only_concat_tags(rdflib_sols, oxigraph_sols, concat: dict) -> bool:
    """Whether Oxigraph's answer is rdflib's once its GROUP_CONCAT values lose their language tags."""
    def untagged(term):
        return Literal(str(term)) if isinstance(term, Literal) and term.language else term
    rows = [{v: untagged(t) if v in concat else t for v, t in row.items()} for row in oxigraph_sols.rows]
    return rows != list(oxigraph_sols.rows) and agree(rdflib_sols, Solutions.of(rows, oxigraph_sols.ordered, concat))


def _only_absent_ends(rdflib_sols, oxigraph_sols, triples, zero_ends: frozenset) -> bool:
    """Whether rdflib's answer is Oxigraph's and more, each solution more binding a constant end of a path
    that may have length zero which no triple of the window holds (the ``zero-length-constant`` rule)."""
    if Counter(oxigraph_sols.keys) - Counter(rdflib_sols.keys):
        return False
    absent = zero_ends - {t for s, _, o in triples for t in (s, o)}
    more = Counter(rdflib_sols.keys) - Counter(oxigraph_sols.keys)
    rows = {key: row for key, row in zip(rdflib_sols.keys, rdflib_sols.rows)}
    return bool(absent) and all(absent & set(rows[key].values()) for key in more)


def _only_merged_literals(rdflib_sols, oxigraph_sols, triples, rdflib_over) -> bool:
    """Whether the two answers differ only by Oxigraph's keeping literals by value: rdflib over the window with
    every literal in Oxigraph's form gives Oxigraph's answer.  Two distinct literals merged (COUNT(DISTINCT …)
    over "01" and "1"), or one rewritten where the query reads its form or matches it against a constant
    (STR("01"^^xsd:integer) is "1" in Oxigraph; ``MINUS { ?s :q 0 }`` removes a "-0"^^xsd:integer solution there:
    a differential fuzz met both, and the oracle stopped on them; stop 67)."""
    literals = _literals(triples)
    forms = oxigraph_forms(literals)
    if not forms:
        return False  # no literal rewritten: the rule cannot explain anything
    merged = [(s, p, forms.get(o, o)) for s, p, o in triples]
    again = rdflib_over(merged)
    return agree(again, oxigraph_sols)


def _floating_computed(sols) -> bool:
    """Whether an answer holds a floating-point value that is not a whole number (a computed one)."""
    for row in sols.rows:
        for term in row.values():
            if isinstance(term, Literal) and str(term.datatype) in (XSD + "float", XSD + "double"):
                value = term.toPython()
                if not isinstance(value, float) or value != int(value):
                    return True
    return False


def _literals(triples) -> set:
    return {o for _, _, o in triples if isinstance(o, Literal)}


LEXICAL_FUNCTIONS = re.compile(r"\b(STR|STRLEN|SUBSTR|STRSTARTS|STRENDS|CONTAINS|STRBEFORE|STRAFTER|CONCAT|"
                               r"REGEX|REPLACE|UCASE|LCASE|ENCODE_FOR_URI|MD5|SHA1|SHA256|SHA384|SHA512)\s*\(",
                               re.IGNORECASE)


def oxigraph_forms(literals: Iterable) -> dict:
    """The literals Oxigraph's store gives back in another lexical form ("95.0"^^xsd:float comes back
    as "95"), each mapped to that form; found by a round trip through a store, once per literal."""
    typed = [lit for lit in literals if lit.datatype is not None and not lit.language]
    store = ox.Store()
    predicate = ox.NamedNode("urn:x-rspconf:value")
    quads = []
    for i, lit in enumerate(typed):
        try:
            quads.append(ox.Quad(ox.NamedNode(f"urn:x-rspconf:{i}"), predicate, _to_ox(lit)))
        except (ValueError, TypeError):
            continue
    store.extend(quads)
    forms = {}
    for quad in store:
        lit = typed[int(quad.subject.value.rsplit(":", 1)[1])]
        if quad.object.value != str(lit):
            forms[lit] = Literal(quad.object.value, datatype=URIRef(quad.object.datatype.value), normalize=False)
    return forms


def rewritten_literals(literals: Iterable) -> dict:
    """``rewritten``: Oxigraph gives some literal back in another lexical form; ``collisions``: two
    distinct literals come back as one term (the ``literal-by-value`` rule)."""
    literals = set(literals)
    forms = oxigraph_forms(literals)
    return {"rewritten": bool(forms), "collisions": _merges(literals, forms)}


def _merges(literals: set, forms: dict) -> bool:
    """Whether two distinct literals become one term in Oxigraph's forms."""
    return len({forms.get(lit, lit) for lit in literals}) < len(literals)


def rules_may_apply(oxigraph_sols, query: QueryFacts, stream_has) -> set[str]:
    """The declared rules that may explain a difference between Oxigraph's answer and rdflib's on this
    window — then ``auto`` does not take Oxigraph's answer alone.

    ``stream_has(fact)`` tells what the stream holds (``float``: xsd:float literals; ``inexact-float``:
    one that is not a whole number below 2^24, where float and double addition differ; ``tagged``:
    language-tagged literals; ``rewritten``/``collisions``: see :func:`rewritten_literals`).
    """
    operators = query.operators
    rules = {"zero-length-constant"} if query.zero_ends else set()
    if query.alternatives:
        rules.add("alternative-path-bag")
    if query.counts:
        rules.add("count-errors")  # no stream fact tells whether the expression errs: rdflib evaluates too
    if query.concat and stream_has("tagged"):
        rules.add("group-concat-language")
    if stream_has("tagged") and EBV_FILTER.search(query.text):
        rules.add("ebv-language-tagged")
    if stream_has("collisions") or (stream_has("rewritten") and LEXICAL_FUNCTIONS.search(query.text)):
        rules.add("literal-by-value")  # distinct terms merged, or a lexical form the query reads
    if stream_has("float") and (
            _floating_computed(oxigraph_sols)  # a computed float, e.g. an AVG
            or operators & {"MultiplicativeExpression", "Aggregate_Avg"}  # rounds apart in a FILTER
            or (stream_has("inexact-float") and operators & {"AdditiveExpression", "Aggregate_Sum"})):
        rules.add("float-arithmetic")
    return rules


FLOAT_SENSITIVE = re.compile(r"\b(DATATYPE|SAMETERM|STRDT)\s*\(|XMLSchema#float>|xsd:float\b", re.IGNORECASE)


def doubles_stand_in(query_text: str) -> bool:
    """Whether Oxigraph over the window with every xsd:float literal read as an xsd:double gives the
    answer the ``float-arithmetic`` rule keeps (rdflib's, computed in double precision): true when the
    query can tell the two datatypes apart neither by name nor by lexical form.  Results compare by
    numeric value whatever their numeric datatype (oracle/r2r/terms.py), so only the precision differs."""
    return not FLOAT_SENSITIVE.search(query_text) and not LEXICAL_FUNCTIONS.search(query_text)
