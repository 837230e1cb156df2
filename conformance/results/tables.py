"""Plain tables for the terminal and for Markdown (a CI job summary), from the same rows."""

from __future__ import annotations

import re

#: the footnote every per-case table prints under a ``*``
KNOWN_DEVIATION = "* a known deviation listed in the engine's expectations file"
#: the footnote under a ``(vac)``
VACUOUS = ("(vac) a vacuous PASS: the explanation expects no report although the stream has data, so nothing was "
           "compared")


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def printable(text, keep_lines: bool = False) -> str:
    """Text from an engine (a reason, an error, a name) safe to print on a terminal: every control
    character shown as its escape (``\\x1b``), so an engine cannot move the cursor or recolour a row;
    newlines and tabs are kept only with ``keep_lines``."""
    text = str(text)
    if not keep_lines:
        text = text.replace("\n", "\\n").replace("\t", "\\t")
    return _CONTROL.sub(lambda m: m.group(0).encode("unicode_escape").decode("ascii"), text)


def fmt_ratio(x) -> str:
    return "-" if x is None else f"{x:.2f}"


def verdict_cell(case: dict) -> str:
    """A case's verdict as every per-case table shows it: ``(vac)`` for a vacuous PASS, ``~`` when it was
    reached with the query in the engine's declared syntax variant, ``*`` when the engine's expectations
    file lists the case (a PASS* is a fixed engine: an unexpected pass)."""
    return (case["verdict"] + ("(vac)" if case.get("vacuous") else "") + ("~" if case.get("syntax_variant") else "")
            + ("*" if case.get("expected_verdict") else ""))


def variant_note(cases) -> str | None:
    """The footnote under a ``~``: how many verdicts were reached in a declared syntax variant, and its
    deviations (None when no case was)."""
    marked = [c for c in cases if c.get("syntax_variant")]
    if not marked:
        return None
    names = sorted({n for c in marked for n in c["syntax_variant"]})
    return (f"~ reached with the query in the engine's declared syntax variant ({', '.join(names)}): "
            f"{len(marked)} verdict{'s' if len(marked) != 1 else ''}; the syntax family judges the standard form")


def windows_cell(case: dict) -> str:
    """Reports matched exactly / reports compared, for the best explanation."""
    return f"{case['matched']}/{len(case['windows'])}" if case.get("matched") is not None else "-"


def _md_cell(value) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


def render(headers: list[str], rows: list[list], fmt: str, width: int | None = None) -> str:
    """``fmt`` terminal: aligned columns, the last one cut at ``width`` (None: whole); markdown: a
    GitHub table."""
    rows = [[printable(v) for v in r] for r in rows]
    if fmt == "markdown":
        out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
        out += ["| " + " | ".join(_md_cell(v) for v in r) + " |" for r in rows]
        return "\n".join(out)
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]
    widths[-1] = len(headers[-1])

    def line(values):
        text = "  ".join(v.ljust(w) for v, w in zip(values[:-1], widths)) + "  " + values[-1]
        return text if width is None else text[:width]
    return "\n".join([line(headers), line(["-" * w for w in widths[:-1]] + ["-" * len(headers[-1])])]
                     + [line(r) for r in rows])
