"""``rspconf earl``: run reports as a W3C EARL implementation report (Turtle or JSON-LD), written with rdflib.

One ``earl:Assertion`` per case and engine run, so the RDF tools that read the W3C test suites'
implementation reports read ours.  Outcomes: PASS → ``earl:passed``, FAIL → ``earl:failed``,
UNSUPPORTED → ``earl:inapplicable``, SKIPPED and UNJUDGED → ``earl:untested``, ERROR and TIMEOUT → ``earl:cantTell``
(the harness could not judge; the engine is not said to fail).
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

from rdflib import Graph, Literal, Namespace, URIRef
from rdflib.namespace import DCTERMS, FOAF, RDF, XSD

from conformance.results.runs import Run

EARL = Namespace("http://www.w3.org/ns/earl#")
DOAP = Namespace("http://usefulinc.com/ns/doap#")
CASES = "https://w3id.org/rspconf/cases#"
ENGINES = "https://w3id.org/rspconf/engines/"
KIT = URIRef("https://w3id.org/rspconf")
OUTCOME = {"PASS": EARL.passed, "FAIL": EARL.failed, "UNSUPPORTED": EARL.inapplicable,
           "SKIPPED": EARL.untested, "UNJUDGED": EARL.untested, "ERROR": EARL.cantTell, "TIMEOUT": EARL.cantTell}
FORMATS = {".ttl": "turtle", ".jsonld": "json-ld", ".json": "json-ld"}


def case_iri(case_id: str) -> URIRef:
    """A case's stable id as an IRI (the corpus's ids are its stable names)."""
    return URIRef(CASES + quote(case_id, safe="._-~"))


def subject_iri(run: Run) -> URIRef:
    return URIRef(ENGINES + quote(run.engine, safe="") + "/" + quote(run.version, safe=""))


def graph(runs: list[Run]) -> Graph:
    g = Graph()
    g.bind("earl", EARL)
    g.bind("doap", DOAP)
    g.bind("dct", DCTERMS)
    g.bind("foaf", FOAF)
    g.add((KIT, RDF.type, EARL.Software))
    g.add((KIT, DOAP.name, Literal("rspconf")))
    for run in runs:
        subject = subject_iri(run)
        g.add((subject, RDF.type, EARL.TestSubject))
        g.add((subject, RDF.type, DOAP.Project))
        g.add((subject, DOAP.name, Literal(run.engine)))
        release = URIRef(str(subject) + "#release")
        g.add((subject, DOAP.release, release))
        g.add((release, DOAP.revision, Literal(run.version)))
        about = run.info["engine"].get("about") or {}
        if about.get("homepage"):
            g.add((subject, DOAP.homepage, URIRef(about["homepage"])))
        if about.get("issues"):
            g.add((subject, DOAP["bug-database"], URIRef(about["issues"])))
        if about.get("source"):
            repository = URIRef(str(subject) + "#repository")
            g.add((subject, DOAP.repository, repository))
            g.add((repository, RDF.type, DOAP.Repository))
            g.add((repository, DOAP.browse, URIRef(about["source"])))
        syntax = run.info["engine"].get("syntax") or []
        if syntax:
            g.add((release, DCTERMS.description, Literal(
                "reads its dialect with declared deviations from the standard syntax: " + ", ".join(syntax))))
        if not run.complete:
            g.add((subject, DCTERMS.description, Literal(
                f"incomplete run: {run.info.get('finished')} of {run.info.get('selected')} cases finished")))
        for case_id, case in sorted(run.cases.items()):
            test = case_iri(case_id)
            g.add((test, RDF.type, EARL.TestCase))
            g.add((test, DCTERMS.identifier, Literal(case_id)))
            assertion = URIRef(f"{subject}#{quote(case_id, safe='._-~')}")
            result = URIRef(f"{subject}#{quote(case_id, safe='._-~')}-result")
            g.add((assertion, RDF.type, EARL.Assertion))
            g.add((assertion, EARL.assertedBy, KIT))
            g.add((assertion, EARL.subject, subject))
            g.add((assertion, EARL.test, test))
            g.add((assertion, EARL.mode, EARL.automatic))
            g.add((assertion, EARL.result, result))
            g.add((result, RDF.type, EARL.TestResult))
            g.add((result, EARL.outcome, OUTCOME[case["verdict"]]))
            g.add((result, DCTERMS.description, Literal(case["reason"])))
            if case.get("syntax_variant"):  # EARL's info: what else a reader needs to weigh the outcome
                g.add((result, EARL.info, Literal("reached with the query in the engine's declared syntax variant ("
                                                  + ", ".join(case["syntax_variant"]) + "); the syntax family "
                                                  "judges the standard form")))
            if run.started:
                g.add((result, DCTERMS.date, Literal(run.started, datatype=XSD.dateTime)))
    return g


def write(runs: list[Run], out: Path) -> str:
    """Write the report; the format follows the file's extension (.ttl, .jsonld)."""
    out = Path(out)
    fmt = FORMATS.get(out.suffix.lower())
    if fmt is None:
        raise ValueError(f"{out}: give a file ending in .ttl (Turtle) or .jsonld (JSON-LD)")
    out.parent.mkdir(parents=True, exist_ok=True)
    graph(runs).serialize(destination=str(out), format=fmt)
    return fmt
