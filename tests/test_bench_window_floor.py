"""bench/window_floor.py stays runnable: at a small size it measures every row, and the oracle's held pass
and the rdflib evaluator agree on every window (the script asserts it, and fails when they do not)."""

import sys
from pathlib import Path

import pytest

from oracle.r2r.query import R2R
from oracle.r2r.solutions import Solutions

BENCH = Path(__file__).resolve().parent.parent / "bench"


def measure(stations: int):
    sys.path.insert(0, str(BENCH))
    try:
        import window_floor
        return window_floor.measure(stations, "filter (Q1)")
    finally:
        sys.path.remove(str(BENCH))


def test_window_floor_measures_every_row_on_a_small_stream():
    rows = measure(20)
    names = [what.strip() for what, _, _ in rows]
    assert names[0] == "the rdflib evaluator"
    assert names[-2:] == ["Oxigraph alone, one core: load + rows as TSV",
                          "Oxigraph alone, two forked processes sharing the held stream"]
    seconds = dict((what.strip(), s) for what, s, _ in rows)
    assert len(rows) == 8 and all(s > 0 for s in seconds.values())  # every row timed work that ran
    # the floor on one core is Oxigraph's load plus its TSV rows: never less than the load alone
    assert seconds["Oxigraph alone, one core: load + rows as TSV"] > seconds["Oxigraph's load"]
    assert "s alone," in rows[-1][2]


def test_window_floor_stops_when_the_two_evaluators_disagree(monkeypatch):
    real = R2R.evaluate

    def one_row_short(self, content, keep=True):
        sols = real(self, content, keep)
        if self.evaluator == "rdflib" and sols.rows:  # a broken rdflib side: one solution dropped
            return Solutions.of(sols.rows[1:])
        return sols
    monkeypatch.setattr(R2R, "evaluate", one_row_short)
    with pytest.raises(AssertionError, match="rdflib and Oxigraph disagree"):
        measure(20)
