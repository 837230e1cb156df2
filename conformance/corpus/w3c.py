"""The W3C SPARQL 1.0 and 1.1 query test suites, read from the data root at run time (never copied into the
project): every query-evaluation test whose dataset is a default graph alone, with its query, its data
and its expected result, compared by the W3C rules (a bag of solutions, a sequence under ORDER BY, blank
nodes up to isomorphism, literals as terms; CONSTRUCT results as graphs up to isomorphism).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from rdflib import Graph, Namespace, URIRef
from rdflib.collection import Collection
from rdflib.namespace import RDF
from rdflib.query import Result

from conformance.corpus import datapaths
from conformance.streams.readers import literals_as_written

MF = Namespace("http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#")
QT = Namespace("http://www.w3.org/2001/sw/DataAccess/tests/test-query#")
DAWGT = Namespace("http://www.w3.org/2001/sw/DataAccess/tests/test-dawg#")
DATASET = re.compile(r"^\s*FROM\b", re.IGNORECASE | re.MULTILINE)
RESULT_FORMATS = {".srx": "xml", ".srj": "json", ".tsv": "tsv", ".csv": "csv"}


class SuiteMissing(LookupError):
    """The suite is not under the data root (the message says where it was looked for)."""


@dataclass(frozen=True)
class SuiteTest:
    """One query-evaluation test: ``folder/name``, the query text, the data file (None: no data), the
    expected result file."""

    folder: str
    name: str
    query: Path
    data: Path | None
    result: Path
    #: the manifest's mf:resultCardinality mf:LaxCardinality (REDUCED): fewer duplicates are right too
    lax: bool = False

    @property
    def id(self) -> str:
        return f"{self.folder}/{self.name}"

    def query_text(self) -> str:
        return self.query.read_text(encoding="utf-8")

    def graph(self) -> Graph:
        """The test's data, literals kept as written (rdflib would normalise ``"01"^^xsd:integer`` to ``"1"``,
        and the suite's sameTerm and DISTINCT tests tell the two apart)."""
        g = Graph()
        if self.data is not None:
            with literals_as_written():
                g.parse(self.data, format="xml" if self.data.suffix == ".rdf" else "turtle",
                        publicID=self.data.as_uri())  # four subquery tests' data is RDF/XML
        return g

    def expected(self):
        """The expected result: an rdflib Graph for a Turtle result (CONSTRUCT), else a ``Result``."""
        if self.result.suffix == ".ttl":
            g = Graph()
            g.parse(self.result, format="turtle", publicID=self.result.as_uri())
            return g
        with open(self.result, "rb") as f:
            return Result.parse(f, format=RESULT_FORMATS[self.result.suffix])


def root(data_root: Path | None = None) -> Path:
    base = data_root or datapaths.data_root()
    folder = Path(base) / "w3c-sparql" / "sparql" if base else None
    if folder is None or not folder.is_dir():
        raise SuiteMissing(f"the W3C SPARQL test suites are not under {base}/w3c-sparql/sparql: give --data-root "
                           "(the folder holding w3c-sparql/), or $RSPCONF_DATA")
    return folder


def tests(data_root: Path | None = None, folders: list[str] | None = None) -> list[SuiteTest]:
    """Every approved query-evaluation test with a default graph alone (no named graphs, no service, no
    entailment), in manifest order, folder by folder; ``folders`` (``sparql11/exists``) narrows them."""
    base = root(data_root)
    found = []
    for manifest in sorted(base.glob("*/*/manifest.ttl")):
        folder = manifest.parent.relative_to(base).as_posix()
        if folders and folder not in folders:
            continue
        found += _read(manifest, folder)
    return found


def _read(manifest: Path, folder: str) -> list[SuiteTest]:
    g = Graph()
    g.parse(manifest, format="turtle", publicID=manifest.as_uri())
    out = []
    for m in g.subjects(RDF.type, MF.Manifest):
        entries = g.value(m, MF.entries)
        for test in Collection(g, entries) if entries is not None else []:
            if (test, RDF.type, MF.QueryEvaluationTest) not in g:
                continue
            if g.value(test, DAWGT.approval) in (DAWGT.Withdrawn, DAWGT.Rejected) or g.value(test, MF.requires):
                continue
            action, result = g.value(test, MF.action), g.value(test, MF.result)
            query = g.value(action, QT.query) if action is not None else None
            if query is None or result is None or g.value(action, QT.graphData) is not None \
                    or g.value(action, QT.serviceData) is not None:
                continue
            data = g.value(action, QT.data)
            path = _path(result)
            if DATASET.search(_path(query).read_text(encoding="utf-8")):
                continue  # FROM / FROM NAMED: the query names its own dataset, not the test's default graph
            if path.suffix not in RESULT_FORMATS and path.suffix != ".ttl":
                continue
            name = str(test).rsplit("#", 1)[-1].rsplit("/", 1)[-1]
            lax = g.value(test, MF.resultCardinality) == MF.LaxCardinality
            out.append(SuiteTest(folder, name, _path(query), _path(data) if data is not None else None, path, lax))
    return out


def _path(iri: URIRef) -> Path:
    return Path(str(iri).removeprefix("file://"))
