"""Read C-SPARQL and RSP-QL continuous queries back into the kit's neutral form.

The inverse of :mod:`engines.dialects.render` for one windowed stream: ``parse(text)`` gives the R2R SPARQL
query, the stream IRI, the window (range, slide in ms) and the R2S operator.  Plain SPARQL (no
``REGISTER``) is returned as it is, with no window.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from oracle.model import WindowSpec

UNITS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000}


class QuerySyntaxError(ValueError):
    pass


@dataclass(frozen=True)
class ContinuousQuery:
    r2r: str
    stream_iri: str | None
    window: WindowSpec | None
    r2s: str
    dialect: str


def _csparql_duration(text: str) -> int:
    m = re.fullmatch(r"(\d+)\s*(ms|s|m|h)", text.strip())
    if not m:
        raise QuerySyntaxError(f"cannot read the duration {text!r} (write 10s, 500ms, 1m)")
    return int(m.group(1)) * UNITS[m.group(2)]


def _iso_duration(text: str) -> int:
    m = re.fullmatch(r"PT(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?", text.strip().upper())
    if not m or not any(m.groups()):
        raise QuerySyntaxError(f"cannot read the ISO 8601 duration {text!r} (write PT10S, PT0.5S, PT1M)")
    h, mi, s = m.groups()
    return int(h or 0) * 3_600_000 + int(mi or 0) * 60_000 + round(float(s or 0) * 1000)


def _unwrap_window(body: str, name: str) -> str:
    """Replace ``WINDOW <name> { … }`` by its inner pattern."""
    m = re.search(r"WINDOW\s+" + re.escape(name) + r"\s*\{", body, re.IGNORECASE)
    if not m:
        raise QuerySyntaxError(f"the WHERE clause has no WINDOW {name} {{ … }} block")
    depth, i = 1, m.end()
    while depth and i < len(body):
        depth += {"{": 1, "}": -1}.get(body[i], 0)
        i += 1
    if depth:
        raise QuerySyntaxError(f"unbalanced braces in WINDOW {name} {{ … }}")
    return body[:m.start()] + body[m.end():i - 1] + body[i:]


def parse(text: str) -> ContinuousQuery:
    register = re.search(r"REGISTER\s+(QUERY|STREAM|RSTREAM|ISTREAM|DSTREAM)\s+(<[^>]*>|\S+)\s+AS\s", text, re.IGNORECASE)
    if not register:
        return ContinuousQuery(text, None, None, "rstream", "sparql")
    kind = register.group(1).upper()
    rest = text[:register.start()] + text[register.end():]
    csparql = re.search(r"FROM\s+STREAM\s+<([^>]*)>\s*\[\s*RANGE\s+([^\]]+?)\s+(?:STEP|SLIDE)\s+([^\]]+?)\s*\]", rest, re.IGNORECASE)
    if kind in ("QUERY", "STREAM"):
        if not csparql:
            raise QuerySyntaxError("a C-SPARQL query needs FROM STREAM <iri> [RANGE … STEP …]")
        r2r = rest[:csparql.start()] + rest[csparql.end():]
        window = WindowSpec(_csparql_duration(csparql.group(2)), _csparql_duration(csparql.group(3)))
        return ContinuousQuery(r2r.strip() + "\n", csparql.group(1), window, "rstream", "csparql")
    named = re.search(r"FROM\s+NAMED\s+WINDOW\s+(<[^>]*>|\S+)\s+ON\s+(?:STREAM\s+)?(<[^>]*>|[\w.-]*:[\w.-]*)\s*"
                      r"\[\s*RANGE\s+(\S+)\s+(?:STEP|SLIDE)\s+(\S+?)\s*\]", rest, re.IGNORECASE)
    if not named:
        raise QuerySyntaxError("an RSP-QL query needs FROM NAMED WINDOW <w> ON <stream> [RANGE … STEP …]")
    r2r = rest[:named.start()] + rest[named.end():]
    r2r = _unwrap_window(r2r, named.group(1))
    window = WindowSpec(_iso_duration(named.group(3)), _iso_duration(named.group(4)))
    return ContinuousQuery(r2r.strip() + "\n", _iri(named.group(2), text), window, kind.lower(), "rspql")


def _iri(name: str, text: str) -> str:
    """An <IRI> or a prefixed name resolved with the query's PREFIX declarations."""
    if name.startswith("<"):
        return name[1:-1]
    prefix, _, local = name.partition(":")
    for m in re.finditer(r"PREFIX\s+([\w.-]*):\s*<([^>]*)>", text, re.IGNORECASE):
        if m.group(1) == prefix:
            return m.group(2) + local
    raise QuerySyntaxError(f"the prefix of {name} is not declared")
