"""The kit's JSON Lines output format: one report per line, terms as in SPARQL 1.1 JSON results.

``{"window": [o, c], "tau": c, "solutions": [{"var": {"type": "uri", "value": "…"}}, …]}``; an ASK
report has ``"boolean": true|false`` instead of solutions.  ``rspconf spark run`` writes it; replay
manifests read it.
"""

from __future__ import annotations

import json

from rdflib import BNode, Literal, URIRef

from oracle.model import ObservedReport


def term_json(term) -> dict:
    if isinstance(term, URIRef):
        return {"type": "uri", "value": str(term)}
    if isinstance(term, BNode):
        return {"type": "bnode", "value": str(term)}
    out = {"type": "literal", "value": str(term)}
    if isinstance(term, Literal) and term.language:
        out["xml:lang"] = term.language
    elif isinstance(term, Literal) and term.datatype:
        out["datatype"] = str(term.datatype)
    return out


def json_term(obj: dict):
    kind = obj.get("type")
    if kind == "uri":
        return URIRef(obj["value"])
    if kind == "bnode":
        return BNode(obj["value"])
    if kind in ("literal", "typed-literal"):
        # as the engine wrote it: no lexical normalisation ("01"^^xsd:integer stays "01")
        if obj.get("xml:lang"):
            return Literal(obj["value"], lang=obj["xml:lang"], normalize=False)
        return Literal(obj["value"], datatype=URIRef(obj["datatype"]) if obj.get("datatype") else None,
                       normalize=False)
    raise ValueError(f"unknown term type {kind!r} in {obj}")


def report_line(report: ObservedReport) -> str:
    out: dict = {"window": list(report.window) if report.window else None, "tau": report.tau}
    if isinstance(report.solutions, bool):
        out["boolean"] = report.solutions
    else:
        out["solutions"] = [{k: term_json(v) for k, v in sorted(row.items())} for row in report.solutions]
    return json.dumps(out, sort_keys=True)


def parse_line(line: str) -> ObservedReport:
    return parse_report(json.loads(line))


class BadReport(ValueError):
    """A report that is not one (its window ends before it opens): the engine's output is garbage there."""


def parse_report(data: dict) -> ObservedReport:
    """One report object (a line of the format, or an item of a protocol run answer); a window whose close
    comes before its opening is :class:`BadReport`, naming the field."""
    window = tuple(data["window"]) if data.get("window") else None
    if window is not None and window[1] < window[0]:
        raise BadReport(f"field window: [{window[0]}, {window[1]}] closes before it opens; a report's window is "
                        "[opening, close] with opening <= close")
    if "boolean" in data:
        return ObservedReport(bool(data["boolean"]), tau=data.get("tau"), window=window)
    rows = [{k: json_term(v) for k, v in row.items()} for row in data.get("solutions", [])]
    return ObservedReport(rows, tau=data.get("tau"), window=window)
