"""bench/window_floor.py stays runnable: at a small size it measures every row, and the oracle's held pass
and the rdflib evaluator agree on every window (the script asserts it)."""

import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"


def test_window_floor_measures_every_row_on_a_small_stream():
    sys.path.insert(0, str(BENCH))
    try:
        import window_floor
        rows = window_floor.measure(20, "filter (Q1)")
    finally:
        sys.path.remove(str(BENCH))
    names = [what.strip() for what, _, _ in rows]
    assert names[0] == "the rdflib evaluator"
    assert names[-2:] == ["Oxigraph alone, one core: load + rows as TSV",
                          "Oxigraph alone, two forked processes sharing the held stream"]
    assert len(rows) == 8 and all(seconds >= 0 for _, seconds, _ in rows)
    assert "s alone," in rows[-1][2]
