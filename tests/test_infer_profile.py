"""``rspconf infer-profile``: the semantics that explain an engine's outputs, found by search (conformance/run/infer.py).

Each engine here has a known truth: the reference engine with non-default options (its declared profile is
what it does), one that declares t0 = 0 and runs t0 = 3, and fault engines, each wrong in one way.
"""

import json
import subprocess
import sys
from pathlib import Path

import yaml

from conformance.run import infer

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "cases"


def inferred(spec, *pattern, **options):
    return infer.run(spec, options, CASES, list(pattern), 60, 20, None, out=None)


def test_the_reference_engine_with_closed_windows_is_recovered_through_the_cli(tmp_path):
    out = subprocess.run([sys.executable, "-m", "conformance.cli", "infer-profile", "reference", "--engine-option",
                          "boundary=[o,c]", "-k", "edges.", "--write", str(tmp_path / "p.yaml"),
                          "--json", str(tmp_path / "i.json")], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr
    written = yaml.safe_load((tmp_path / "p.yaml").read_text())
    declared = {"t0": 0, "report": ["window-close"], "tick": "time-driven", "grain": "multiple", "empty": True,
                "boundary": "[o,c]", "close": ">", "end_of_stream": "flush", "count_unit": "element"}
    assert {k: written[k] for k in declared} == declared
    data = json.loads((tmp_path / "i.json").read_text())
    assert data["alignment"] == "window" and data["unexplained"] == {}
    # edges.border has an element at exactly a window's close: it is what tells [o,c] from [o,c)
    assert "edges.border" in data["dimensions"]["borders"]["explains"]["[o,c] closing at > c"]
    assert "edges.border" not in data["dimensions"]["borders"]["explains"]["[o,c) closing at >= c"]
    assert "borders        [o,c] closing at > c" in out.stdout


def test_an_undeclared_t0_is_found(tmp_path):
    adapter = tmp_path / "t0three.py"
    adapter.write_text(
        "from dataclasses import replace\nfrom engines.reference import ReferenceEngine\n\n"
        "class T0Three(ReferenceEngine):\n"
        "    def __init__(self):\n        super().__init__(t0=3)\n"
        "    def info(self):\n        info = super().info()\n"
        "        return replace(info, profile={**info.profile, 't0': 0})\n")
    result = inferred(f"{adapter}:T0Three", "edges.")
    assert result.t0 == 3 and result.declared["t0"] == 0
    assert result.t0_evidence["0"] == [] and set(result.t0_evidence["3"]) == set(result.t0_evidence["any"])


def test_each_fault_engine_shows_as_the_dimension_it_breaks():
    wrong_r2s = inferred("engines/faults.py:WrongR2SEngine", "r2s.", "edges.r2s")
    assert wrong_r2s.chosen["r2s"] == "rstream" and wrong_r2s.unexplained == {}
    distinct = inferred("engines/faults.py:DistinctEngine", "bags.", "r2s.")
    assert distinct.chosen["multiplicity"] == "set" and distinct.declared.get("multiplicity", "bag") == "bag"
    shifted = inferred("engines/faults.py:ShiftedEngine", "edges.")
    # its window labels are the nominal ones, its contents half a slide later: the labels cannot be trusted
    assert shifted.chosen["alignment"] == "order"


def test_a_fault_outside_every_profile_is_named_by_the_pattern_of_the_cases_it_leaves():
    late = inferred("engines/faults.py:LatePurgeEngine", "edges.", "count.")
    assert late.unexplained
    top = next(iter(late.patterns))
    assert top in ("shifted", "stale"), late.patterns  # a window holds what it should have purged
    assert set(late.patterns["stale"]) <= set(late.unexplained)


def test_an_unknown_engine_is_one_line_and_exit_code_2():
    out = subprocess.run([sys.executable, "-m", "conformance.cli", "infer-profile", "no-such-engine"],
                         capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert out.returncode == 2
    assert out.stderr.startswith("error: rspconf infer-profile: --engine no-such-engine: unknown engine")
    assert "Traceback" not in out.stderr


def test_t0_is_the_most_specific_of_those_explaining_the_most_cases(monkeypatch):
    """aligned is not a narrowing of any (its windows may start before any's range): when it explains a case
    that 0 and any do not, it is chosen; when 0 explains as many, 0 (more specific) is."""
    from conformance.run import infer

    class Fake:
        def __init__(self, evidence):
            self.evidence, self.ran = evidence, []

        def explained(self, values, t0, cases=None):
            return self.evidence[str(t0)]

    monkeypatch.setattr(infer, "t0_candidates", lambda search, values: [0])
    pick = lambda evidence: infer.infer_t0(Fake(evidence), {})[0]  # noqa: E731
    assert pick({"0": ["a", "b"], "aligned": ["a", "b", "c"], "any": ["a", "b"]}) == "aligned"
    assert pick({"0": ["a", "b"], "aligned": ["a", "b"], "any": ["a", "b"]}) == 0
    assert pick({"0": [], "aligned": [], "any": []}) == "any"


def test_the_judgements_of_a_case_share_its_window_evaluations():
    """infer-profile judges each case under many profiles; an R2R's answer depends on the window's content only,
    so the case's windows are evaluated once (was: a new R2R per judgement, every window again — csrbench's
    7 cases 121 s and 2.8 GB, now 46 s and 0.35 GB, the same inference). The verdicts stay a fresh judge's."""
    from conformance.corpus.cases import load_corpus
    from conformance.run.harness import request_for
    from engines.reference import ReferenceEngine

    case = next(c for c in load_corpus(CASES) if c.id == "csrbench.q5[range=5s,slide=1s]")
    engine = ReferenceEngine()
    info = engine.info()
    stream = case.load_stream()
    reports = engine.run(request_for(case, info, stream))
    search = infer.Search(info, [infer.Ran(case, stream, reports)], 60)
    values = infer._start({**info.profile, "alignment": info.alignment})
    first = search.verdict(search.ran[0], values, "any")
    evaluated = search.queries[case.id].evaluations
    assert evaluated > 0
    other = dict(values, end_of_stream="drop")
    second = search.verdict(search.ran[0], other, "any")
    assert search.queries[case.id].evaluations == evaluated  # nothing evaluated again
    for got, vals in ((first, values), (second, other)):
        fresh = search.verdict(search.ran[0], vals, "any", diagnosed=True)  # its own R2R
        assert got.verdict == fresh.verdict
