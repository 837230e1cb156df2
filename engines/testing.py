"""Deliberately wrong engines: the kit must classify each of them correctly.

Each one is the reference engine with one classic RSP bug, while still declaring the reference
engine's (correct) profile and windows — exactly what a buggy engine does.
"""

from __future__ import annotations

from engines.contract import RunRequest
from engines.reference import ReferenceEngine
from oracle.model import ObservedReport


class NullEngine(ReferenceEngine):
    """Answers nothing at all."""

    name = "testing-null"

    def run(self, request: RunRequest) -> list[ObservedReport]:
        return []


class ShiftedEngine(ReferenceEngine):
    """Uses window borders shifted later by half a slide, but declares the nominal borders."""

    name = "testing-shifted"

    def content(self, request, o, c, inside):
        shift = max(1, request.window.slide // 2)
        return [e for e in request.stream.elements if o + shift <= e.t < c + shift]


class LatePurgeEngine(ReferenceEngine):
    """Purges late: keeps each window's elements for one extra slide (CQELS's Q6/Q7 bug in CSRBench)."""

    name = "testing-late-purge"

    def content(self, request, o, c, inside):
        return [e for e in request.stream.elements if o - request.window.slide <= e.t < c]


class WrongR2SEngine(ReferenceEngine):
    """Always streams the whole relation (Rstream), whatever R2S the query asks for."""

    name = "testing-wrong-r2s"

    def r2s(self, operator, current, previous, kind):
        return current
