"""Render the kit's neutral query form (SPARQL 1.1 R2R + window + R2S) into engine dialects.

So an adapter author does not rewrite queries: ``render(dialect, r2r, stream_iri, window, r2s)``
gives C-SPARQL, CQELS-QL or RSP-QL text (or the plain R2R SPARQL for ``sparql``).
"""

from __future__ import annotations

import re

from oracle.model import CountWindowSpec, MultiWindowSpec, ValiditySpec, WindowSpec


def _seconds(ms: int) -> str:
    return f"{ms // 1000}s" if ms % 1000 == 0 else f"{ms}ms"


def _iso(ms: int) -> str:
    return f"PT{ms // 1000}S" if ms % 1000 == 0 else f"PT{ms / 1000:g}S"


def _split(r2r: str) -> tuple[str, str, str, str]:
    """(prologue, projection, where body, solution modifiers) of a SELECT/CONSTRUCT/ASK query."""
    depth, start, in_iri, in_str = 0, None, False, None
    form = re.search(r"\b(SELECT|CONSTRUCT|ASK)\b", r2r, re.IGNORECASE)
    if not form:
        raise ValueError("the R2R query has no SELECT, CONSTRUCT or ASK")
    prologue = r2r[:form.start()]
    body_from = form.start()
    if form.group(1).upper() == "CONSTRUCT":
        # skip the template block
        m = re.search(r"\{", r2r[body_from:])
        i = body_from + m.start()
        d = 0
        while True:
            d += r2r[i] == "{"
            d -= r2r[i] == "}"
            i += 1
            if d == 0:
                break
        body_from = i
    i = body_from
    end = None
    while i < len(r2r):
        ch = r2r[i]
        if in_str:
            if ch == "\\":
                i += 1
            elif ch == in_str:
                in_str = None
        elif in_iri:
            in_iri = ch != ">"
        elif ch in "\"'":
            in_str = ch
        elif ch == "<" and re.match(r"<[^\s<>\"{}|^`\\]*>", r2r[i:]):
            in_iri = True
        elif ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                end = i
                break
        i += 1
    if start is None or end is None:
        raise ValueError("cannot find the WHERE block of the R2R query")
    head = r2r[form.start():start]
    head = re.sub(r"\bWHERE\s*$", "", head.rstrip(), flags=re.IGNORECASE).rstrip()
    return prologue, head, r2r[start + 1:end], r2r[end + 1:]


class Inexpressible(ValueError):
    """The dialect has no standard way to write this window (the engine is then UNSUPPORTED for the case)."""


def _count_window(dialect: str, window) -> str:
    """A count window in the dialect's own syntax: C-SPARQL ``[RANGE TRIPLES N]`` and CQELS-QL
    ``[TRIPLES N]`` count triples and slide by one; RSP-QL's window grammar has time ranges only."""
    if dialect == "rspql":
        raise Inexpressible("RSP-QL writes time-based windows only ([RANGE … STEP …]); this case has a count window")
    if window.slide != 1:
        raise Inexpressible(f"{dialect} writes a count window that slides by one triple; this one slides by "
                            f"{window.slide}")
    return f"[RANGE TRIPLES {window.count}]" if dialect == "csparql" else f"[TRIPLES {window.count}]"


def render(dialect: str, r2r: str, stream_iri: str, window: WindowSpec, r2s: str, name: str = "q") -> str:
    if dialect == "sparql":
        return r2r
    prologue, head, body, tail = _split(r2r)
    if isinstance(window, ValiditySpec):
        raise Inexpressible(f"{dialect} has no syntax for time-annotated data (facts valid over intervals); this "
                            "case queries such data, not a window")
    if isinstance(window, MultiWindowSpec) and window.merged:
        # C-SPARQL's dataset: every FROM STREAM window merged into the default graph
        if dialect != "csparql":
            raise Inexpressible(f"{dialect} reads each window apart (a named window or a stream-scoped pattern); "
                                "this case merges its windows into the default graph, as C-SPARQL does")
        streams = "".join(f"FROM STREAM <{w.stream}> "
                          + (_count_window(dialect, w) if w.count is not None
                             else f"[RANGE {_seconds(w.range)} STEP {_seconds(w.slide)}]") + "\n"
                          for w in window.windows)
        return (f"REGISTER {'STREAM' if head.upper().startswith('CONSTRUCT') else 'QUERY'} {name} AS\n{prologue}{head}\n"
                f"{streams}WHERE {{{body}}}{tail}")
    if isinstance(window, MultiWindowSpec):
        if dialect == "cqels":  # CQELS-QL scopes a pattern to a stream window: STREAM <s> [RANGE … SLIDE …] { … }
            by_name = {w.name: w for w in window.windows}

            def scoped(m: re.Match) -> str:
                w = by_name.get(m.group(1))
                if w is None:
                    raise Inexpressible(f"GRAPH <{m.group(1)}> names no window of the case")
                if w.count is not None:
                    return f"STREAM <{w.stream}> {_count_window(dialect, w)} {{"
                return f"STREAM <{w.stream}> [RANGE {_seconds(w.range)} SLIDE {_seconds(w.slide)}] {{"
            body = re.sub(r"GRAPH\s+<([^>]*)>\s*{", scoped, body, flags=re.IGNORECASE)
            return f"{prologue}{head}\nWHERE {{{body}}}{tail}"
        if dialect != "rspql":
            raise Inexpressible(f"{dialect} has no named windows for the query's GRAPH <window> blocks; this case "
                                "reads several windows apart (C-SPARQL merges its windows into one default graph)")
        for w in window.windows:
            if w.count is not None:
                _count_window(dialect, w)  # RSP-QL has no count window: Inexpressible, said by name
        named = "".join(f"FROM NAMED WINDOW <{w.name}> ON <{w.stream}> [RANGE {_iso(w.range)} STEP {_iso(w.slide)}]\n"
                        for w in window.windows)
        body = re.sub(r"\bGRAPH\s+<", "WINDOW <", body, flags=re.IGNORECASE)
        return f"{prologue}REGISTER {r2s.upper()} <{name}> AS\n{head}\n{named}WHERE {{{body}}}{tail}"
    if dialect in ("csparql", "cqels"):
        if isinstance(window, CountWindowSpec):
            spec = _count_window(dialect, window)
        else:
            spec = f"[RANGE {_seconds(window.range)} {'STEP' if dialect == 'csparql' else 'SLIDE'} {_seconds(window.slide)}]"
        if dialect == "csparql":
            return (f"REGISTER {'STREAM' if head.upper().startswith('CONSTRUCT') else 'QUERY'} {name} AS\n{prologue}{head}\n"
                    f"FROM STREAM <{stream_iri}> {spec}\nWHERE {{{body}}}{tail}")
        return f"{prologue}{head}\nWHERE {{\n  STREAM <{stream_iri}> {spec} {{{body}}}\n}}{tail}"
    if isinstance(window, CountWindowSpec) and dialect == "rspql":
        _count_window(dialect, window)  # RSP-QL has no count window: Inexpressible, said by name
    if dialect == "rspql":
        return (f"{prologue}REGISTER {r2s.upper()} <{name}> AS\n{head}\n"
                f"FROM NAMED WINDOW <{name}:w> ON <{stream_iri}> [RANGE {_iso(window.range)} STEP {_iso(window.slide)}]\n"
                f"WHERE {{\n  WINDOW <{name}:w> {{{body}}}\n}}{tail}")
    raise ValueError(f"unknown dialect {dialect!r}; use sparql, csparql, cqels or rspql")
