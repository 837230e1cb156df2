"""rspconf's reference oracle for RDF stream processing semantics.

The oracle is the kit's measuring stick: it computes, for a stream, a continuous query and an
operational-semantics profile (SECRET + CQL R2S), every admissible expected output, and judges an
engine's output against them.  It evaluates SPARQL with two independent evaluators, rdflib and
Oxigraph (:mod:`oracle.r2r`), and shares no evaluation code with ``engines/`` — a kit whose oracle shares
code with the engine under test proves nothing.

Its parts follow the model: :mod:`oracle.model` (streams, windows, profiles, reports),
:mod:`oracle.s2r` (SECRET's scope, t0, report and tick), :mod:`oracle.r2r` (SPARQL per window),
:mod:`oracle.r2s` (CQL's R2S operators), :mod:`oracle.expected` (what an engine should report, per
window kind), :mod:`oracle.compare` (one expected output against the engine's) and :mod:`oracle.judge`
(the verdict over every admissible explanation, and the diagnosis of a failure).
"""

from oracle.compare import CaseVerdict
from oracle.judge.verdict import check
from oracle.model import Element, ExpectedReport, ObservedReport, Stream, StreamError, WindowSpec
from oracle.semantics import Profile, ProfileSpace

__all__ = [
    "CaseVerdict",
    "Element",
    "ObservedReport",
    "Profile",
    "ProfileSpace",
    "ExpectedReport",
    "Stream",
    "StreamError",
    "WindowSpec",
    "check",
]
