"""Solutions: a window's answer as a bag (or, under ORDER BY, a sequence) with comparison keys, and the
one rule for when an engine's answer equals the oracle's (:func:`same`)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from rdflib import BNode, URIRef

from oracle.r2r.terms import order_family, solution_keys, term_key


@dataclass(frozen=True)
class Solutions:
    """A bag (or, under ORDER BY, a sequence) of solutions with their comparison keys.

    Under ORDER BY on projected variables, ``order_vars`` names them and ``pool`` maps each sort key
    (the values of those variables) to the bag of rows that share it in the query's answer *without*
    LIMIT/OFFSET: SPARQL leaves the order of tied rows open, and which tied rows a LIMIT keeps, so an
    engine's sequence is right when its sort keys run in the same sequence and each tie group holds
    rows the pool has (:func:`same`).

    Under ORDER BY on anything else (a variable it does not project, an expression), ``places`` gives each
    row's tie group (its run of equal sort keys in the answer without LIMIT/OFFSET) and ``pool`` maps each
    group to its bag of rows: an engine's sequence is right when each run of places holds rows the pool has.
    """

    rows: tuple[dict, ...]
    keys: tuple[tuple, ...]
    ordered: bool = False
    order_vars: tuple[str, ...] | None = None
    pool: dict | None = None
    concat: tuple[tuple[str, str], ...] = ()  # (variable, separator): GROUP_CONCAT values, oracle/r2r/concat.py
    places: tuple[int, ...] | None = None  # each row's tie group, where the sort keys are not projected

    @classmethod
    def of(cls, rows, ordered: bool = False, concat=()) -> "Solutions":
        """``concat``: the query's GROUP_CONCAT variables (a mapping or pairs) with their separators."""
        rows = tuple(dict(r) for r in rows)
        concat = tuple(sorted(dict(concat).items()))
        return cls(rows, tuple(solution_keys(rows, dict(concat))), ordered, concat=concat)

    def __len__(self) -> int:
        return len(self.rows)

    def unordered(self) -> "Solutions":
        """The same solutions as a bag (a report's rows come in a sequence; only ORDER BY makes it count)."""
        return Solutions(self.rows, self.keys, concat=self.concat)

    def distinct(self) -> "Solutions":
        """The same solutions with each one once (first occurrence kept, so an order survives)."""
        seen: set = set()
        rows, keys = [], []
        for row, key in zip(self.rows, self.keys):
            if key not in seen:
                seen.add(key)
                rows.append(row)
                keys.append(key)
        return Solutions(tuple(rows), tuple(keys), self.ordered, self.order_vars, self.pool, self.concat,
                         None if self.places is None or len(rows) != len(self.rows) else self.places)

    def undefined_order(self, order_vars: tuple[str, ...]) -> tuple | None:
        """(variable, value, value): two values of an ORDER BY variable, in solutions its earlier variables tie,
        whose order SPARQL 1.1 §15.1 leaves undefined (two literals of two families, two blank nodes, two
        language-tagged literals…: :func:`terms.order_family`); None where every pair the order compares is
        ordered (by kind: unbound < blank nodes < IRIs < literals, or by ``<``)."""
        tied = [list(self.rows)]  # the solutions each earlier variable's values tie
        for v in order_vars:
            for rows in tied:
                seen: dict = {}  # the family of each kind ordered only among itself: literals, blank nodes
                for row in rows:
                    term = row.get(v)
                    if term is None or isinstance(term, URIRef):
                        continue
                    family = order_family(term)
                    other = seen.setdefault("bnode" if isinstance(term, BNode) else "literal", (family, term))
                    if other[0] != family:
                        return v, other[1], term
            groups: dict = {}
            for rows in tied:
                for row in rows:
                    key = (id(rows), term_key(row[v]) if row.get(v) is not None else None)
                    groups.setdefault(key, []).append(row)
            tied = list(groups.values())
        return None

    def sort_keys(self, order_vars: tuple[str, ...]) -> list[tuple]:
        return [tuple(term_key(row[v]) if row.get(v) is not None else None for v in order_vars) for row in self.rows]


def same(expected: Solutions, actual: Solutions) -> bool:
    """Whether an engine's solutions equal the expected ones: as bags, or under ORDER BY as sequences
    up to the order of tied rows and the choice of tied rows at a LIMIT border."""
    if not expected.ordered:
        return Counter(expected.keys) == Counter(actual.keys)
    if expected.places is not None and expected.pool is not None:
        if len(expected.keys) != len(actual.keys):
            return False
        taken: dict = {}
        for place, key in zip(expected.places, actual.keys):
            taken.setdefault(place, Counter())[key] += 1
        return all(not (bag - expected.pool.get(place, Counter())) for place, bag in taken.items())
    if expected.order_vars is None or expected.pool is None:
        return list(expected.keys) == list(actual.keys)
    if len(expected.keys) != len(actual.keys):
        return False
    groups = actual.sort_keys(expected.order_vars)
    if groups != expected.sort_keys(expected.order_vars):
        return False
    taken: dict = {}
    for group, key in zip(groups, actual.keys):
        taken.setdefault(group, Counter())[key] += 1
    return all(not (bag - expected.pool.get(group, Counter())) for group, bag in taken.items())


def agree(a: Solutions, b: Solutions) -> bool:
    """Whether two of the oracle's own answers are the same: :func:`same` both ways (under ORDER BY it takes its
    second argument's order of tied rows as any, so one way alone would let the first's ties go unchecked)."""
    return same(a, b) and (not a.ordered or same(b, a))
