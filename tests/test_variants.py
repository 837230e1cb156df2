"""Declared dialect variants (engines/dialects/variants.py): each deviation's rule writes the standard
rendering the way the engine reads it, worked out by hand here; the syntax family keeps the standard form;
an undeclarable name is one clear error; and every place a verdict is shown marks the ones reached in a
declared variant."""

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from conformance.corpus.cases import load_corpus
from conformance.results import runs, summary
from conformance.run import report
from conformance.run.harness import request_for, variant_of
from conformance.site import pages as site
from engines.dialects import variants
from engines.dialects.render import render
from engines.reference import ReferenceEngine
from oracle.model import MultiWindowSpec, NamedWindow, WindowSpec
from tests import reportmaker as rm

ROOT = Path(__file__).resolve().parent.parent
CASES = {c.id: c for c in load_corpus(ROOT / "cases")}
Q = "PREFIX ex: <http://ex.org/>\nSELECT ?s WHERE { ?s ex:p ?o } ORDER BY ?s"
ALL = ("window-ms", "on-stream", "window-line")


def test_each_rule_writes_what_rsp_js_reads():
    standard = render("rspql", Q, "http://s", WindowSpec(10, 2500), "rstream")
    assert standard == ("PREFIX ex: <http://ex.org/>\nREGISTER RSTREAM <q> AS\nSELECT ?s\n"
                        "FROM NAMED WINDOW <q:w> ON <http://s> [RANGE PT0.01S STEP PT2.5S]\n"
                        "WHERE {\n  WINDOW <q:w> { ?s ex:p ?o }\n} ORDER BY ?s")
    assert variants.apply(standard, ["window-ms"]).count("[RANGE 10 STEP 2500]") == 1
    assert "ON STREAM <http://s> [RANGE PT0.01S" in variants.apply(standard, ["on-stream"])
    assert "\nWINDOW <q:w> { ?s ex:p ?o }\n" in variants.apply(standard, ["window-line"])
    assert variants.apply(standard, ALL) == (
        "PREFIX ex: <http://ex.org/>\nREGISTER RSTREAM <q> AS\nSELECT ?s\n"
        "FROM NAMED WINDOW <q:w> ON STREAM <http://s> [RANGE 10 STEP 2500]\n"
        "WHERE {\nWINDOW <q:w> { ?s ex:p ?o }\n} ORDER BY ?s")
    assert variants.apply(variants.apply(standard, ALL), ALL) == variants.apply(standard, ALL)  # idempotent


def test_several_window_blocks_on_one_line_each_get_a_line_of_their_own():
    q = "SELECT ?a ?b WHERE { GRAPH <http://w1> { ?a <http://p> ?x } GRAPH <http://w2> { ?b <http://p> ?x } }"
    spec = MultiWindowSpec((NamedWindow("http://w1", "http://s1", 5, 5), NamedWindow("http://w2", "http://s2", 60000, 5)))
    text = variants.apply(render("rspql", q, "http://s", spec, "rstream"), ALL)
    lines = text.splitlines()
    assert "FROM NAMED WINDOW <http://w2> ON STREAM <http://s2> [RANGE 60000 STEP 5]" in lines
    assert [line for line in lines if line.startswith("WINDOW")] == ["WINDOW <http://w1> { ?a <http://p> ?x }",
                                                                       "WINDOW <http://w2> { ?b <http://p> ?x } }"]


def test_a_declaration_is_checked_against_the_vocabulary_and_the_dialect():
    assert variants.check("rspql", ["window-line", "window-ms"]) == ("window-ms", "window-line")
    with pytest.raises(variants.UnknownDeviation, match="unknown syntax deviation 'sizes-in-minutes'; the kit knows "
                                                        "window-ms \\(rspql\\), on-stream"):
        variants.check("rspql", ["sizes-in-minutes"])
    with pytest.raises(variants.UnknownDeviation, match="belongs to rspql, not to the engine's dialect csparql"):
        variants.check("csparql", ["on-stream"])
    for name, deviation in variants.VOCABULARY.items():  # each names the syntax case that shows the standard form
        assert deviation.syntax_case in CASES and CASES[deviation.syntax_case].query.get("text"), name


def test_the_syntax_family_keeps_the_standard_text_and_others_get_the_declared_variant():
    info = replace(ReferenceEngine().info(), dialect="rspql", syntax=ALL)
    syntax_case = CASES["syntax.rspql-multiline"]
    assert variant_of(syntax_case, info) == ()
    assert request_for(syntax_case, info, syntax_case.load_stream()).query_text == syntax_case.query["text"]["rspql"]
    border = CASES["edges.border"]
    assert variant_of(border, info) == ALL
    assert "ON STREAM <http://example.org/stream> [RANGE 10 STEP 10]" in request_for(border, info,
                                                                                    border.load_stream()).query_text
    assert variant_of(border, replace(info, dialect="sparql")) == ()


def test_a_syntax_case_that_fails_says_which_declared_deviations_its_standard_text_has():
    """syntax.rspql-on-stream writes 'ON STREAM' already but its window sizes as PT10S: of the three declared
    deviations only window-ms rewrites it (its WINDOW block is on a line of its own, indented — no deviation);
    rspql-multiline has 'ON <s>' too.  The reason of a FAIL or ERROR says so first; a PASS, an engine that
    declares nothing, or a case in the declared variant, says nothing of it."""
    from conformance.run.harness import run_case, standard_forms

    info = replace(ReferenceEngine().info(), dialect="rspql", syntax=ALL)
    names = lambda case: [f.split(":")[0] for f in standard_forms(CASES[case], info)]  # noqa: E731
    assert names("syntax.rspql-on-stream") == ["window-ms"]
    assert names("syntax.rspql-multiline") == ["window-ms", "on-stream"]
    assert names("edges.border") == []
    assert standard_forms(CASES["syntax.rspql-multiline"], replace(info, syntax=())) == []

    class Silent(ReferenceEngine):  # reads the declared variant only: the standard text gives it no window
        def info(self):
            return info

        def run(self, request):
            return []
    result = run_case(CASES["syntax.rspql-on-stream"], Silent(), info)
    assert result.verdict == "FAIL"
    assert result.reason.startswith("[this text has the standard form of a syntax deviation the engine declares — "
                                    "window-ms: it reads window sizes as integers of milliseconds"), result.reason
    passed = run_case(CASES["syntax.rspql-on-stream"], ReferenceEngine(), info)
    assert passed.verdict == "PASS" and "standard form" not in passed.reason


def test_an_engine_declaring_an_unknown_deviation_is_one_clear_line(tmp_path):
    fake = Path(__file__).resolve().parent / "fake_engine.py"
    out = subprocess.run([sys.executable, "-m", "pytest", "conformance/", "-q", "-p", "no:randomly", "-k", "edges.border",
                          "--engine", f"cmd:{sys.executable} {fake} badsyntax"], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 4, out.stdout + out.stderr
    assert "its declared syntax: unknown syntax deviation 'sizes-in-minutes'" in out.stderr
    assert "Traceback" not in out.stderr


def test_verdicts_in_a_declared_variant_are_marked_and_counted_apart(tmp_path):
    marked = rm.case("fam.a", "FAIL")
    marked["syntax_variant"] = ["on-stream"]
    path = rm.write(tmp_path / "r.json", "eng", "1", [marked, rm.case("fam.b", "PASS")])
    doc = json.loads(path.read_text())
    doc["run"]["engine"]["syntax"] = ["on-stream"]
    report.write(path, doc)
    run = runs.read(path)
    text = summary.render([run])
    assert "FAIL~" in text and "1 judged (of 1) in the declared syntax variant" in text
    assert "~ reached with the query in the engine's declared syntax variant (on-stream): 1 verdict" in text
    chosen, ids, notes = runs.align([run])
    matrix = runs.matrix(chosen, ids, notes)
    assert matrix["cells"]["eng@1"]["fam.a"]["syntax_variant"] == ["on-stream"]
    runs.validate_matrix(matrix)
    site.build(matrix, chosen, chosen, tmp_path / "site")
    index = (tmp_path / "site" / "index.html").read_text()
    assert 'FAIL<span class="variant">~</span>' in index and "in the declared syntax variant: on-stream" in index
    engine_page = (tmp_path / "site" / "engines" / "eng@1.html").read_text()
    assert "Declared syntax variant" in engine_page and "<code>on-stream</code>: &#39;ON STREAM &lt;s&gt;&#39;" in engine_page
    from conformance.results import earl
    ttl = earl.graph([run]).serialize(format="turtle")
    assert "declared syntax variant (on-stream)" in ttl and "declared deviations from the standard syntax: on-stream" in ttl
