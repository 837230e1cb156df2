"""Declared dialect variants: named deviations from a dialect's standard syntax that an engine may declare.

A driver never repairs its engine's parser.  An engine may instead **declare** the syntax it reads, as
a list of names from :data:`VOCABULARY`; the kit then renders every case in that declared form (the
standard rendering with each deviation's rule applied), keeps judging the standard form in the
``syntax`` family (those cases carry their own verbatim texts, which no rule touches), and shows the
deviations wherever the verdicts appear.  Each deviation names the ``syntax`` case whose standard text
such an engine cannot read, so the evidence sits beside the declaration.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable


class UnknownDeviation(ValueError):
    """A declared deviation the vocabulary has no rule for (the message lists the ones there are)."""


@dataclass(frozen=True)
class Deviation:
    """One named deviation: the dialect it belongs to, what the engine reads instead of the standard, the
    rule that writes the standard rendering that way, and the syntax case that shows the standard form."""

    name: str
    dialect: str
    reads: str
    rule: Callable[[str], str]
    syntax_case: str


_RANGE = re.compile(r"\[RANGE\s+(PT[0-9.HMS]+)\s+STEP\s+(PT[0-9.HMS]+)\]")
_ISO = re.compile(r"PT(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?$")
_ON = re.compile(r"(FROM\s+NAMED\s+WINDOW\s+\S+\s+)ON\s+(?!STREAM\b)")
_BLOCK = re.compile(r"(?<!NAMED )\bWINDOW(?=\s+<)")


def _ms(iso: str) -> int:
    h, m, s = _ISO.match(iso).groups()
    return int(h or 0) * 3_600_000 + int(m or 0) * 60_000 + round(float(s or 0) * 1000)


def _window_ms(text: str) -> str:
    """``[RANGE PT10S STEP PT2S]`` → ``[RANGE 10000 STEP 2000]``."""
    return _RANGE.sub(lambda m: f"[RANGE {_ms(m.group(1))} STEP {_ms(m.group(2))}]", text)


def _on_stream(text: str) -> str:
    """``FROM NAMED WINDOW <w> ON <s>`` → ``FROM NAMED WINDOW <w> ON STREAM <s>``."""
    return _ON.sub(r"\1ON STREAM ", text)


def _window_line(text: str) -> str:
    """Each ``WINDOW <w> {`` block starts a line of its own (unindented); the window clauses are untouched."""
    out = []
    for line in text.split("\n"):
        cuts = [m.start() for m in _BLOCK.finditer(line) if line[:m.start()].strip()]
        pieces = [line[a:b] for a, b in zip([0] + cuts, cuts + [len(line)])]
        for i, piece in enumerate(pieces):
            piece = piece.rstrip() if i < len(pieces) - 1 else piece
            out.append(piece.lstrip() if _BLOCK.match(piece.lstrip()) else piece)
    return "\n".join(out)


VOCABULARY: dict[str, Deviation] = {d.name: d for d in (
    Deviation("window-ms", "rspql", "window sizes as integers of milliseconds ([RANGE 10000 STEP 2000]), not "
              "xsd:duration (PT10S)", _window_ms, "syntax.rspql-on-stream"),
    Deviation("on-stream", "rspql", "'ON STREAM <s>' in a window clause, not 'ON <s>'", _on_stream,
              "syntax.rspql-multiline"),
    Deviation("window-line", "rspql", "each WINDOW block at the start of a line of its own (the parser reads "
              "the query line by line)", _window_line, "syntax.rspql-one-line"),
)}


def check(dialect: str, names) -> tuple[str, ...]:
    """The declared deviations in vocabulary order, or :class:`UnknownDeviation` naming what is wrong."""
    names = tuple(names or ())
    for name in names:
        if name not in VOCABULARY:
            raise UnknownDeviation(f"unknown syntax deviation {name!r}; the kit knows "
                                   f"{', '.join(f'{n} ({d.dialect})' for n, d in VOCABULARY.items())}")
        if VOCABULARY[name].dialect != dialect:
            raise UnknownDeviation(f"syntax deviation {name!r} belongs to {VOCABULARY[name].dialect}, not to the "
                                   f"engine's dialect {dialect}")
    return tuple(n for n in VOCABULARY if n in names)


def apply(text: str, names) -> str:
    """The standard rendering ``text`` written in the declared variant (each named deviation's rule)."""
    for name in names:
        text = VOCABULARY[name].rule(text)
    return text
