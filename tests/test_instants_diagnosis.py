"""Several windows and time-annotated data get a diagnosis too (oracle/judge/instants.py): each wrong
evaluation says what is wrong with it, and the reason names the pattern, not only "MISMATCH"."""

from dataclasses import replace
from pathlib import Path

import pytest

from conformance.corpus.cases import load_corpus
from conformance.run.harness import judge, request_for, run_case
from engines.faults import NullEngine, OutOfOrderEngine
from engines.reference import ReferenceEngine
from oracle.findings import FINDINGS
from oracle.judge.words import reason

ROOT = Path(__file__).resolve().parent.parent
CASES = {c.id: c for c in load_corpus(ROOT / "cases")}
REFERENCE = ReferenceEngine()


def reference_reports(case_id):
    case = CASES[case_id]
    stream = case.load_stream(None)
    return case, stream, REFERENCE.run(request_for(case, REFERENCE.info(), stream))


@pytest.mark.parametrize("case_id", ["mw.two-widths-one-stream", "tad.expiration-replaces"])
def test_an_engine_that_says_nothing_is_told_which_evaluations_it_missed(case_id):
    result = run_case(CASES[case_id], NullEngine(), NullEngine().info())
    assert result.verdict == "FAIL"
    first = next(w for w in result.windows if w.status == "MISSING")
    assert f"{FINDINGS['missing-report']} (" in result.reason
    # an evaluation instant is said as one, not as a window [t, t)
    assert f"first: the evaluation at t={first.expected_tau}: MISSING: the oracle reports the evaluation at " \
           f"t={first.expected_tau} ({first.expected_size} solutions)" in result.reason


def test_reports_out_of_order_among_several_windows_are_named():
    result = run_case(CASES["mw.two-widths-one-stream"], OutOfOrderEngine(), OutOfOrderEngine().info())
    assert result.findings == {"out-of-order": 1}
    assert "first: the evaluation at t=5: reported at τ=5 after a report at τ=10" in result.reason


def test_a_relation_one_evaluation_late_is_named_with_the_evaluation_it_belongs_to():
    # the valid facts at 0, 5, 10, 15, 30 (worked out in the case file): reporting 0's relation at 5 again
    case, stream, reports = reference_reports("tad.expiration-replaces")
    assert [r.tau for r in reports] == [0, 5, 10, 15, 30]
    late = list(reports)
    late[1] = replace(late[1], solutions=late[0].solutions)
    words = reason(judge(case, REFERENCE.info(), stream, late))
    assert "1 mismatch of 5 reports — pattern: " + FINDINGS["shifted"] + " (1 window)" in words
    assert "first: the evaluation at t=5: the engine reported the relation of the previous evaluation (t=0) here" in words


def test_doubled_solutions_at_every_instant_are_other_multiplicities():
    case, stream, reports = reference_reports("mw.two-widths-one-stream")
    doubled = [replace(r, solutions=list(r.solutions) * 2) for r in reports]
    verdict = judge(case, REFERENCE.info(), stream, doubled)
    assert verdict.findings == {"multiplicity": 4}
    assert "the engine repeats solutions the oracle has fewer times" in reason(verdict)


def test_a_wrong_solution_is_shown_as_missing_and_extra():
    case, stream, reports = reference_reports("mw.two-widths-one-stream")
    row = dict(reports[0].solutions[0])
    name = next(iter(row))
    other = dict(row, **{name: type(row[name])(str(row[name]) + "-wrong")})
    wrong = [replace(reports[0], solutions=[other])] + list(reports[1:])
    words = reason(judge(case, REFERENCE.info(), stream, wrong))
    assert "first: the evaluation at t=5: missing {" in words
    assert verdict_has_no_window_span(words)


def verdict_has_no_window_span(words):
    return "window [5, 5)" not in words
