"""Run reports read back: alignment, the matrix document, summary, diff, EARL and the site's files, on
hand-made reports whose expected outcomes are worked out by hand below."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from rdflib import Graph
from rdflib.namespace import RDF

from conformance import schema as schemas
from conformance.cli import main
from conformance.results import diff, earl, runs, summary
from conformance.site import pages as site
from tests import reportmaker as rm

SECOND = "2026-11-25T01:00:00+00:00"


def two_engines(tmp_path, cases_b=None, commit_b="c" * 40):
    a = rm.write(tmp_path / "a.json", "alpha", "1.0", [rm.case("fam1.x", "PASS"), rm.case("fam1.y", "FAIL", recall=0.5),
                                                       rm.case("fam2.z", "UNSUPPORTED", level="should")])
    b = rm.write(tmp_path / "b.json", "beta", "2.0", cases_b or [rm.case("fam1.x", "PASS"), rm.case("fam1.y", "PASS"),
                                                                 rm.case("fam2.z", "ERROR", level="should")],
                 commit=commit_b)
    return a, b


def test_exact_alignment_refuses_different_case_sets_naming_the_cases(tmp_path):
    a, b = two_engines(tmp_path, cases_b=[rm.case("fam1.x", "PASS"), rm.case("fam3.w", "PASS")])
    with pytest.raises(runs.NotAligned) as err:
        runs.align(runs.gather([a, b]))
    text = str(err.value)
    assert "alpha@1.0 lacks 1: fam3.w" in text and "beta@2.0 lacks 2: fam1.y, fam2.z" in text
    assert "--align intersect" in text
    chosen, ids, notes = runs.align(runs.gather([a, b]), "intersect")
    assert ids == ["fam1.x"] and "dropped 3" in notes[0]  # 4 distinct cases, 1 shared
    chosen, ids, notes = runs.align(runs.gather([a, b]), "union")
    doc = runs.matrix(chosen, ids, notes)
    assert doc["cells"]["beta@2.0"]["fam1.y"] is None and doc["cells"]["alpha@1.0"]["fam3.w"] is None


def test_exact_alignment_refuses_different_corpus_commits(tmp_path):
    a, b = two_engines(tmp_path, commit_b="d" * 40)
    with pytest.raises(runs.NotAligned, match="different corpus commits"):
        runs.align(runs.gather([a, b]))


def test_a_second_run_of_one_engine_version_is_refused_unless_keep_latest(tmp_path):
    old = rm.write(tmp_path / "old.json", "alpha", "1.0", [rm.case("fam1.x", "FAIL")])
    new = rm.write(tmp_path / "new.json", "alpha", "1.0", [rm.case("fam1.x", "PASS")], started=SECOND)
    with pytest.raises(runs.NotAligned, match="alpha@1.0 has 2 runs"):
        runs.align(runs.gather([new, old]))
    chosen, ids, notes = runs.align(runs.gather([new, old]), keep_latest=True)
    assert [r.path for r in chosen] == [new] and "kept the latest" in notes[0]


def test_an_incomplete_run_is_refused_or_shown_marked(tmp_path):
    a = rm.write(tmp_path / "a.json", "alpha", "1.0", [rm.case("fam1.x", "PASS")], complete=False)
    with pytest.raises(runs.NotAligned, match="incomplete"):
        runs.align(runs.gather([a]))
    chosen, ids, notes = runs.align(runs.gather([a]), allow_incomplete=True)
    doc = runs.matrix(chosen, ids, notes)
    assert doc["runs"][0]["complete"] is False and "INCOMPLETE" in notes[0]


def test_matrix_document_validates_and_is_deterministic(tmp_path):
    a, b = two_engines(tmp_path)
    docs = [runs.matrix(*runs.align(runs.gather([b, a]))) for _ in range(2)]
    schema = schemas.schema("matrix")
    jsonschema.validate(docs[0], schema)
    assert json.dumps(docs[0], sort_keys=True) == json.dumps(docs[1], sort_keys=True)
    assert [r["key"] for r in docs[0]["runs"]] == ["alpha@1.0", "beta@2.0"]  # same start: by engine name
    assert docs[0]["cells"]["alpha@1.0"]["fam1.y"]["mean_recall"] == 0.5
    bad = dict(docs[0], cells={"alpha@1.0": {"fam1.x": {"verdict": "MAYBE", "reason": "", "windows": 0}}})
    with pytest.raises(runs.ReportError, match="MAYBE"):
        runs.validate_matrix(bad)


def test_summary_is_worst_first_and_fail_on_counts_only_unexpected(tmp_path):
    path = rm.write(tmp_path / "r.json", "alpha", "1.0", [
        rm.case("p", "PASS"), rm.case("f-half", "FAIL", recall=0.5), rm.case("f-low", "FAIL", recall=0.25),
        rm.case("e", "ERROR"), rm.case("u", "UNSUPPORTED"), rm.case("t", "TIMEOUT")])
    run = runs.gather([path])
    assert [c["id"] for c in summary.rows(run[0], "all")] == ["e", "t", "f-low", "f-half", "u", "p"]
    assert [c["id"] for c in summary.rows(run[0], "failures")] == ["e", "t", "f-low", "f-half"]
    assert summary.failing(run) == ["alpha@1.0: e ERROR", "alpha@1.0: t TIMEOUT", "alpha@1.0: f-low FAIL",
                                    "alpha@1.0: f-half FAIL"]
    known = rm.write(tmp_path / "k.json", "alpha", "1.0", [rm.case("p", "PASS"), rm.case("f", "FAIL", expected="FAIL")])
    assert summary.failing(runs.gather([known])) == []
    md = summary.render(runs.gather([known]), "markdown")
    assert "| case | verdict | windows | P | R | reason |" in md and "| f | FAIL* | 0/2 |" in md


def test_diff_classifies_hand_made_pairs(tmp_path):
    base = rm.write(tmp_path / "base.json", "alpha", "1.0", [
        rm.case("a", "PASS"), rm.case("b", "FAIL", recall=0.5), rm.case("c", "FAIL", recall=0.5),
        rm.case("d", "FAIL", recall=0.75), rm.case("e", "PASS"), rm.case("f", "FAIL"), rm.case("g", "UNSUPPORTED"),
        rm.case("h", "PASS"), rm.case("i", "PASS")])
    head = rm.write(tmp_path / "head.json", "alpha", "1.1", [
        rm.case("a", "FAIL", recall=0.5), rm.case("b", "PASS"), rm.case("c", "FAIL", recall=0.75),
        rm.case("d", "FAIL", recall=0.5), rm.case("e", "PASS"), rm.case("f", "ERROR"), rm.case("g", "PASS"),
        rm.case("h", "UNSUPPORTED"), rm.case("j", "PASS")], started=SECOND)
    d = diff.compare(base, head)
    got = {e["case"]: e["change"] for e in d["entries"]}
    assert got == {"a": "regressed", "b": "improved", "c": "improved", "d": "regressed", "e": "unchanged",
                   "f": "changed", "g": "improved", "h": "regressed", "i": "removed", "j": "added"}
    assert d["counts"] == {"regressed": 3, "changed": 1, "improved": 3, "added": 1, "removed": 1, "unchanged": 1}
    assert [e["change"] for e in d["entries"]][:3] == ["regressed"] * 3  # regressions first
    assert next(e for e in d["entries"] if e["case"] == "c")["delta_recall"] == pytest.approx(0.25)
    assert diff.regressed(d) and not diff.regressed(diff.compare(base, base))


def test_diff_of_two_matrices_is_per_engine_and_case(tmp_path):
    a, b = two_engines(tmp_path)
    m1 = tmp_path / "m1.json"
    m1.write_text(json.dumps(runs.matrix(*runs.align(runs.gather([a, b])))))
    a2 = rm.write(tmp_path / "a2.json", "alpha", "1.1", [rm.case("fam1.x", "FAIL", recall=0.0),
                                                         rm.case("fam1.y", "FAIL", recall=0.5),
                                                         rm.case("fam2.z", "UNSUPPORTED", level="should")],
                  started=SECOND)
    m2 = tmp_path / "m2.json"
    m2.write_text(json.dumps(runs.matrix(*runs.align(runs.gather([a2, b])))))
    d = diff.compare(m1, m2)
    changed = [(e["engine"], e["case"], e["change"]) for e in d["entries"] if e["change"] != "unchanged"]
    assert changed == [("alpha", "fam1.x", "regressed")]  # the new alpha version, matched by engine name
    assert d["counts"]["unchanged"] == 5


def test_earl_has_one_assertion_per_case_and_run_with_mapped_outcomes(tmp_path):
    a, b = two_engines(tmp_path)
    gathered = runs.gather([a, b])
    for name, fmt in (("earl.ttl", "turtle"), ("earl.jsonld", "json-ld")):
        earl.write(gathered, tmp_path / name)
        g = Graph().parse(tmp_path / name, format=fmt)
        assertions = list(g.subjects(RDF.type, earl.EARL.Assertion))
        assert len(assertions) == 6
        outcome = {}
        for s in assertions:
            test = str(g.value(s, earl.EARL.test)).rsplit("#", 1)[1]
            subject = str(g.value(g.value(s, earl.EARL.subject), earl.DOAP.name))
            outcome[(subject, test)] = g.value(g.value(s, earl.EARL.result), earl.EARL.outcome)
        assert outcome[("alpha", "fam1.y")] == earl.EARL.failed
        assert outcome[("alpha", "fam2.z")] == earl.EARL.inapplicable
        assert outcome[("beta", "fam2.z")] == earl.EARL.cantTell
        assert outcome[("beta", "fam1.y")] == earl.EARL.passed
    with pytest.raises(ValueError, match=r"\.ttl"):
        earl.write(gathered, tmp_path / "earl.txt")


def test_site_pages_badges_and_diff_page(tmp_path):
    old = rm.write(tmp_path / "h" / "a.json", "alpha", "1.0", [rm.case("fam1.x", "PASS"), rm.case("fam1.y", "PASS"),
                                                                  rm.case("fam2.z", "UNSUPPORTED", level="should")],
                   started="2026-11-23T01:00:00+00:00")
    a, b = two_engines(tmp_path)
    chosen, ids, notes = runs.align(runs.gather([a, b]))
    written = site.build(runs.matrix(chosen, ids, notes), chosen, runs.gather([old, a, b]), tmp_path / "site")
    assert written == {"cases": 3, "engines": 2, "diffs": 1}
    index = (tmp_path / "site" / "index.html").read_text()
    assert index.count('<tr data-family=') == 3 and "no overall score" in index
    assert (tmp_path / "site" / "cases" / "fam1.y.html").exists()
    badge = json.loads((tmp_path / "site" / "badges" / "alpha@1.0.json").read_text())
    assert badge["message"] == "must 1/2" and badge["schemaVersion"] == 1  # fam1.x PASS, fam1.y FAIL
    assert json.loads((tmp_path / "site" / "badges" / "beta@2.0.json").read_text())["message"] == "must 2/2"
    assert runs.read(tmp_path / "site" / "runs" / "alpha.json").cases["fam1.y"]["verdict"] == "FAIL"
    assert (tmp_path / "site" / "runs" / "beta@2.0.json").exists()
    page = (tmp_path / "site" / "diff.html").read_text()
    assert "fam1.y" in page and "regressed" in page  # alpha: fam1.y PASS on the 23rd, FAIL on the 24th


def test_a_case_page_is_made_from_the_reports_alone(tmp_path):
    """A run of cases kept outside the project (``--cases`` elsewhere): the case page shows what the report
    recorded — the case's file, title, window and stream, and the query each engine received — with no
    corpus to read."""
    from conformance.corpus.cases import expand, read_family
    from conformance.run.harness import run_case
    from engines.reference import ReferenceEngine

    family = tmp_path / "elsewhere" / "mine.yaml"
    family.parent.mkdir()
    family.write_text("""schema_version: 1
family: mine
title: cases kept elsewhere
prefixes: {ex: "http://ex.org/"}
cases:
  - id: hot
    title: Hot readings kept outside the project
    spec: [test]
    level: must
    capabilities: [time-window, filter]
    stream:
      elements:
        - {t: 1000, turtle: "ex:s1 ex:temp 85 ."}
        - {t: 12000, turtle: "ex:s2 ex:temp 70 ."}
    query:
      r2r: "SELECT ?s WHERE { ?s ex:temp ?v FILTER(?v > 80) }"
      window: {range: 10s, slide: 10s}
""", encoding="utf-8")
    case = expand(read_family(family), family)[0]
    engine = ReferenceEngine()
    result = run_case(case, engine, engine.info()).to_json()
    assert result["verdict"] == "PASS" and result["query_text"] == case.r2r
    assert result["about"]["stream"] == {"elements": 2, "triples": 2, "static": 0, "first": 1000, "last": 12000,
                                         "times": [1000, 12000]}
    path = rm.write(tmp_path / "r.json", "reference", "1", [result])
    chosen, ids, notes = runs.align(runs.gather([path]))
    site.build(runs.matrix(chosen, ids, notes), chosen, chosen, tmp_path / "site")
    page = (tmp_path / "site" / "cases" / "mine.hot.html").read_text()
    assert "Hot readings kept outside the project" in page and str(family) in page
    assert "time window: range 10000 ms, slide 10000 ms" in page and "as reference@1 received it" in page
    assert "elements: 2" in page and "FILTER(?v &gt; 80)" in page


def test_cli_bad_report_is_one_clear_line(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    totals = {"verdicts": {}, "levels": {}, "capabilities": {}, "total": 0}
    bad.write_text(json.dumps({"schema_version": 1, "run": {}, "cases": [], "totals": totals}))
    assert main(["summary", str(bad)]) == 2
    err = capsys.readouterr().err
    assert str(bad) in err and "field run" in err and "Traceback" not in err and err.count("\n") == 1


def test_cli_diff_and_summary_exit_codes(tmp_path, capsys):
    base = rm.write(tmp_path / "base.json", "alpha", "1.0", [rm.case("a", "PASS")])
    head = rm.write(tmp_path / "head.json", "alpha", "1.0", [rm.case("a", "FAIL", recall=0.0)], started=SECOND)
    assert main(["diff", str(base), str(head)]) == 0
    assert main(["diff", str(base), str(head), "--fail-on-regression", "--format", "markdown"]) == 1
    assert "| a | regressed | PASS | FAIL |" in capsys.readouterr().out
    assert main(["summary", str(head), "--fail-on", "regression", "--base", str(base)]) == 1
    assert main(["summary", str(base), "--fail-on", "regression", "--base", str(base)]) == 0
    assert main(["summary", str(head), "--fail-on", "fail"]) == 1
    assert main(["summary", str(base), "--fail-on", "fail", "--format", "json"]) == 0


def test_matrix_run_continues_past_a_crashing_engine_and_stops_a_hung_one(tmp_path):
    config = tmp_path / "matrix.yaml"
    config.write_text(
        "labels: [nightly]\ntimeout: 120\n"
        "engines:\n"
        "  - {name: crash, engine: 'cmd:python3 -c \"import sys; sys.exit(3)\"', args: ['-k', 'seed002.fig1']}\n"
        "  - {name: hung, engine: 'cmd:sleep 300', args: ['-k', 'seed002.fig1'], timeout: 4}\n"
        "  - {name: reference, engine: reference, args: ['-k', 'seed002.fig1']}\n")
    out = tmp_path / "runs"
    proc = subprocess.run([sys.executable, "-m", "conformance.cli", "matrix", "run", str(config), "--out", str(out),
                           "--date", "2026-11-24"], capture_output=True, text=True, timeout=240)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    listed = {r["name"]: r for r in json.loads((out / "2026-11-24" / "runs.json").read_text())["runs"]}
    assert listed["crash"]["report"] is None and listed["crash"]["state"] == "no report"
    assert listed["hung"]["state"] == "timeout" and listed["hung"]["seconds"] < 60
    assert listed["reference"]["complete"] is True
    ref = runs.read(out / "2026-11-24" / "reference.json")
    assert ref.labels == ["nightly"] and ref.cases["seed002.fig1"]["verdict"] == "PASS"
    leftover = subprocess.run(["pgrep", "-f", "cmd:sleep 300"], capture_output=True, text=True)
    assert leftover.stdout.strip() == ""


def test_matrix_config_errors_name_the_field(tmp_path):
    from conformance.results.matrixrun import ConfigError, load_config

    config = tmp_path / "m.yaml"
    config.write_text("engines:\n  - {engine: reference, colour: red}\n")
    with pytest.raises(ConfigError, match=r"m.yaml: field engines\[0\].colour: unknown field"):
        load_config(config)
    config.write_text("engines: []\n")
    with pytest.raises(ConfigError, match="field engines"):
        load_config(config)


def test_shipped_example_config_names_every_engine_kind():
    from conformance.results.matrixrun import load_config
    from conformance.run import adapters

    config = load_config(Path(__file__).parents[1] / "docs" / "examples" / "matrix.yaml")
    given = {e["engine"].split(":")[0] for e in config["engines"]}
    real = {n for n in adapters.available() if not n.startswith("testing-")}
    assert real <= given and "replay" in given


def test_workflows_validate_against_the_github_workflow_schema(tmp_path):
    """The nightly workflow and the engine-CI example (check-jsonschema's vendored SchemaStore schema)."""
    root = Path(__file__).parents[1]
    files = [root / ".github" / "workflows" / "nightly.yml", root / "docs" / "examples" / "engine-ci.yml"]
    proc = subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows",
                           *map(str, files)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    broken = root / "docs" / "examples" / "engine-ci.yml"
    bad = tmp_path / "broken.yml"
    bad.write_text(broken.read_text().replace("runs-on:", "runs_on:"))
    proc = subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.github-workflows",
                           str(bad)], capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0  # the check can fail


def test_the_case_page_says_each_kind_of_window_in_words():
    from conformance.corpus.about import window_in_words
    from conformance.corpus.cases import load_corpus

    cases = {c.id: c for c in load_corpus(Path(__file__).parents[1] / "cases")}
    assert window_in_words(cases["count.tumbling"]).startswith("count window: the last 2 units, sliding by 2")
    assert window_in_words(cases["tad.reification-periodic"]) == "time-annotated data, evaluated every 4 ms"
    assert window_in_words(cases["mw.two-widths-all-close"]).startswith(
        "several windows (evaluated at all-close): <http://ex.org/w1> over <http://ex.org/s>: range 5 ms, slide 5 ms")
    assert window_in_words(cases["mw.count-windows-two-streams"]).startswith(
        "several windows (evaluated when the engine's profile says): <http://ex.org/wt> over <http://ex.org/temp>: "
        "the last 2 units, sliding by 2")
    assert window_in_words(cases["mw.merged-two-widths-one-stream"]).startswith("several windows merged into the "
                                                                                 "default graph")
    assert "evaluated whenever <http://ex.org/w2> closes" in window_in_words(cases["mw.closes-of-one-window"])
    assert window_in_words(cases["seed002.fig1"]).startswith("time window: range 10 ms, slide 10 ms")


def test_load_reports_show_on_the_case_and_engine_pages(tmp_path):
    """`matrix combine --loads`: a load of fam1.y by alpha shows on fam1.y's page (verdict, pictures, the
    spread per window) and in the table of alpha's page; a file that is not a load report is refused."""
    from conformance.load import experiment as load

    a, b = two_engines(tmp_path)
    windows = [{"index": i, "status": "MATCH", "open": 5000 * i, "close": 5000 * (i + 1), "precision": 1.0,
                "recall": r, "delay_ms": d, "expected_size": 4, "actual_size": 4} for i, (r, d) in
               enumerate([(1.0, 120.0), (0.5, 2400.0)])]
    run = {"repetition": 1, "verdict": "FAIL", "reason": "1 mismatch of 2 reports", "timed_out": False,
           "feed": {"groups": 10, "elements": 10, "triples": 70, "lateness_ms": {"median": 0.1, "p99": 1, "max": 2}},
           "windows": windows, "samples": [{"t": 1.0, "cpu": 0.5, "memory_mib": 80.0}, {"t": 2.0, "cpu": 0.7, "memory_mib": 90.0}],
           "missing_reports": 0, "extra_reports": 0, "duplicated_reports": 0, "reports": 2, "end_ms": 3.0}
    entry = {"case": "fam1.y", "status": "complete", "reason": "", "runs": [run], "spread": load.spread([run])}
    doc = load.report_doc(load.Experiment("nightly-load", ("fam1.y",)),
                          type("Info", (), {"name": "alpha", "version": "1.0", "profile": {}})(), [entry], "2026-11-24")
    assert load.validate(doc) == []
    (tmp_path / "loads").mkdir()
    (tmp_path / "loads" / "load.json").write_text(json.dumps(doc))
    chosen, ids, notes = runs.align(runs.gather([a, b]))
    site.build(runs.matrix(chosen, ids, notes), chosen, [], tmp_path / "site",
               load.read_reports([str(tmp_path / "loads")]))
    page = (tmp_path / "site" / "cases" / "fam1.y.html").read_text()
    assert "Live load runs" in page and "experiment nightly-load" in page and "repetition 1 of 1" in page
    assert page.count("<svg") >= 6 and "120.0 / 120.0 / 120.0" in page
    engine_page = next((tmp_path / "site" / "engines").glob("alpha*.html")).read_text()
    assert "Live load runs" in engine_page and "fam1.y.html#live" in engine_page
    assert "Live load runs" not in (tmp_path / "site" / "cases" / "fam1.x.html").read_text()
    (tmp_path / "bad.json").write_text(json.dumps({"kind": "rspconf-load"}))
    with pytest.raises(load.ExperimentError, match="bad.json: not a load report"):
        load.read_reports([str(tmp_path / "bad.json")])


def test_only_http_and_relative_evidence_links_are_published(tmp_path):
    """Issue 35 §11: an expectation's link becomes an href on three pages; a report is input too, so a
    ``javascript:`` link in it is shown as no link at all, and an expectations file refuses one."""
    from conformance.run import expectations

    evil = rm.case("fam1.x", "FAIL", expected="FAIL")
    evil["expectation_link"] = "javascript:alert(1)"
    fine = rm.case("fam1.y", "FAIL", expected="FAIL")
    fine["expectation_link"] = "docs/evidence.md#y"
    a = rm.write(tmp_path / "a.json", "alpha", "1.0", [evil, fine])
    chosen, ids, notes = runs.align(runs.gather([a]))
    site.build(runs.matrix(chosen, ids, notes), chosen, runs.gather([a]), tmp_path / "site")
    pages = [p.read_text() for p in (tmp_path / "site").rglob("*.html")]
    assert not any("javascript:" in page for page in pages)
    assert sum(page.count('href="docs/evidence.md#y"') for page in pages) == 3  # matrix, engine and case page
    listed = tmp_path / "expectations.yaml"
    listed.write_text("fam1.x: {verdict: FAIL, reason: known, link: 'JavaScript:alert(1)'}\n")
    with pytest.raises(expectations.ExpectationsError, match="link 'JavaScript:alert\\(1\\)': give an http"):
        expectations.read(listed)
    for link, safe in (("https://x.org/i/1", True), ("../notes.md", True), ("//evil.org", False),
                       ("data:text/html,x", False), ("http://x.org/\n", False)):
        assert (expectations.safe_link(link) is not None) == safe, link


def test_names_that_would_share_a_file_or_overflow_one_get_files_of_their_own(tmp_path):
    """Engine names eng/a and eng_a, a case id of 300 characters: one file each, every name bounded (issue 35 §12)."""
    from conformance.filenames import slug

    long_id = "fam1." + "x" * 300
    a = rm.write(tmp_path / "a.json", "eng/a", "1", [rm.case(long_id, "PASS"), rm.case("fam1.y", "PASS")])
    b = rm.write(tmp_path / "b.json", "eng_a", "1", [rm.case(long_id, "FAIL"), rm.case("fam1.y", "PASS")])
    chosen, ids, notes = runs.align(runs.gather([a, b]))
    written = site.build(runs.matrix(chosen, ids, notes), chosen, runs.gather([a, b]), tmp_path / "site")
    assert written["engines"] == 2
    for folder in ("badges", "runs", "engines", "cases"):
        names = [p.name for p in (tmp_path / "site" / folder).iterdir()]
        assert all(len(n.encode()) <= 120 for n in names), names
    badges = sorted(p.name for p in (tmp_path / "site" / "badges").glob("*.json"))
    assert len(badges) == 2 and len(list((tmp_path / "site" / "engines").iterdir())) == 2
    assert slug("eng/a") != slug("eng_a") == "eng_a" and slug("spark@0.1") == "spark@0.1"
    assert slug("../../x").startswith("x-") and "/" not in slug("../../x")


@pytest.mark.parametrize("odd, field", [
    (lambda d: d.update(totals={}), "field totals: 'verdicts' is a required property"),
    (lambda d: d["cases"][1]["windows"][0].update(actual_window=["a", "b"]),
     "field cases/1/windows/0/actual_window/1: 'b' is not of type 'integer'"),
    (lambda d: d["totals"]["verdicts"].update(PASS="1"), "field totals/verdicts/PASS: '1' is not of type 'integer'"),
])
def test_a_report_valid_in_form_but_odd_in_content_is_one_line_in_summary_and_combine(tmp_path, odd, field):
    """Issue 35 §15: these gave KeyError, TypeError and jinja tracebacks."""
    path = rm.write(tmp_path / "r.json", "alpha", "1", [rm.case("fam.x", "PASS"), rm.case("fam.y", "FAIL")])
    doc = json.loads(path.read_text())
    odd(doc)
    path.write_text(json.dumps(doc))
    for argv in (["summary", str(path)], ["matrix", "combine", str(path), "--out", str(tmp_path / "site")]):
        done = subprocess.run([sys.executable, "-m", "conformance.cli", *argv], capture_output=True, text=True,
                              cwd=Path(__file__).resolve().parent.parent)
        assert done.returncode == 2 and "Traceback" not in done.stderr
        assert done.stderr.strip() == (f"error: {path}: {field}; the file is not a valid run report (was it "
                                       "edited, or written by another tool?)")


def test_a_diff_of_two_engines_says_so_and_is_no_regression_gate_unless_asked(tmp_path, capsys):
    """Issue 35 §17: a diff of alpha's run against beta's said '1 regressed' and exited 1, without a word."""
    base = rm.write(tmp_path / "a.json", "alpha", "1", [rm.case("fam.x", "PASS")])
    head = rm.write(tmp_path / "b.json", "beta", "1", [rm.case("fam.x", "FAIL")])
    assert main(["diff", str(base), str(head)]) == 0
    out = capsys.readouterr().out
    assert "1 regressed" in out
    assert ("note: these are runs of two different engines (alpha and beta): a change here compares one engine "
            "with another, not two versions of one") in out
    assert main(["diff", str(base), str(head), "--fail-on-regression"]) == 2
    assert capsys.readouterr().err.strip() == (
        f"error: --fail-on-regression: {base} is a run of alpha, {head} of beta; a regression is a change between "
        "two runs of one engine (add --across-engines to compare two engines so)")
    assert main(["diff", str(base), str(head), "--fail-on-regression", "--across-engines"]) == 1
    capsys.readouterr()
    same = rm.write(tmp_path / "c.json", "alpha", "2", [rm.case("fam.x", "FAIL")])
    assert main(["diff", str(base), str(same), "--fail-on-regression"]) == 1
    assert "different engines" not in capsys.readouterr().out


def test_sigterm_to_matrix_run_stops_its_pytest_and_engine_and_writes_runs_json_saying_so(tmp_path):
    """Issue 35 §9: SIGTERM orphaned the pytest child (started with setsid) and its engine, and wrote no runs.json."""
    import os
    import signal
    import time

    marker = f"rspconf-matrix-term-{os.getpid()}"
    stubborn = Path(__file__).with_name("stubborn_engine.py")
    config = tmp_path / "matrix.yaml"
    config.write_text("engines:\n"
                      f"  - {{name: stuck, engine: 'cmd:{sys.executable} {stubborn} {marker}', args: ['-k', 'edges']}}\n"
                      "  - {name: reference, engine: reference, args: ['-k', 'seed002.fig1']}\n")
    out = tmp_path / "runs"
    proc = subprocess.Popen([sys.executable, "-m", "conformance.cli", "matrix", "run", str(config), "--out", str(out),
                             "--date", "2026-11-25"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    deadline = time.monotonic() + 90
    while not carrying(marker) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert carrying(marker), "the engine did not start"
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=90)
    assert proc.returncode == 130 and "Traceback" not in err
    assert left_behind(marker, 15) == []
    listed = json.loads((out / "2026-11-25" / "runs.json").read_text())
    assert listed["interrupted"] == "terminated (SIGTERM)"
    assert [(r["name"], r["state"], r["complete"]) for r in listed["runs"]] == [
        ("stuck", "interrupted", False), ("reference", "not run", False)]


def test_a_matrix_run_leaves_no_process_that_left_its_pytests_group(tmp_path):
    """An engine runs in a session of its own; if its pytest is killed (or interrupted while starting it),
    nothing in pytest can stop it.  The matrix run kills whatever carries its run's marker."""
    import os

    from conformance.results import matrixrun

    marker = f"rspconf-left-behind-{os.getpid()}"
    script = ("import subprocess, sys, time\n"
              f"subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)', {marker!r}],"
              " start_new_session=True)\n"
              "time.sleep(300)\n")
    code, _ = matrixrun._run([sys.executable, "-c", script], timeout=3, log=tmp_path / "log.txt")
    assert code is None and left_behind(marker, 5) == []


def test_a_timed_out_engine_run_is_stopped_by_a_signal_it_can_act_on_even_with_sigint_ignored(tmp_path):
    """A nightly matrix started from cron or a background job may pass SIGINT on ignored: the stop must still
    reach the run's own handler (the kit's pytest takes SIGTERM as Ctrl-C and writes its report), not wait
    for SIGKILL."""
    from conformance.results import matrixrun

    said = tmp_path / "stopped.txt"
    script = ("import signal, sys, time\n"
              "signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
              f"def stop(*_):\n    open({str(said)!r}, 'w').write('stopped')\n    sys.exit(130)\n"
              "signal.signal(signal.SIGTERM, stop)\n"
              "print('ready', flush=True)\n"
              "time.sleep(300)\n")
    code, _ = matrixrun._run([sys.executable, "-c", script], timeout=2, log=tmp_path / "log.txt")
    assert code is None  # timed out
    assert (tmp_path / "log.txt").read_text() == "ready\n"
    assert said.read_text() == "stopped"


def carrying(marker: str) -> list[str]:
    """The processes whose command line holds ``marker``."""
    return subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True).stdout.split()


def left_behind(marker: str, seconds: float) -> list[str]:
    """The processes still carrying ``marker`` after ``seconds`` (killed, so no test leaves them)."""
    import os
    import signal
    import time

    deadline = time.monotonic() + seconds
    while carrying(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = carrying(marker)
    for pid in left:
        os.kill(int(pid), signal.SIGKILL)
    return left
