"""rspconf's reference oracle for RDF stream processing semantics.

The oracle is the kit's measuring stick: it computes, for a stream, a continuous query and an
operational-semantics profile (SECRET + CQL R2S), every admissible expected output, and judges an
engine's output against them.  It evaluates SPARQL with rdflib and shares no evaluation code with
``engines/`` — a kit whose oracle shares code with the engine under test proves nothing.
"""

from oracle.model import (
    Element,
    ObservedReport,
    Profile,
    ProfileSpace,
    Report,
    Stream,
    StreamError,
    WindowSpec,
)
from oracle.verdict import CaseVerdict, check, expected_outputs

__all__ = [
    "CaseVerdict",
    "Element",
    "ObservedReport",
    "Profile",
    "ProfileSpace",
    "Report",
    "Stream",
    "StreamError",
    "WindowSpec",
    "check",
    "expected_outputs",
]
