"""How each kind of window is judged: the one place that decides it, for the harness, lint and the check
of hand-written expectations alike.

- A time window (:class:`~oracle.model.WindowSpec`): t0 classes enumerated (:func:`oracle.judge.verdict.check`),
  diagnosed with gracious mode.
- A count window (:class:`~oracle.model.CountWindowSpec`): t0 is a position, over the stream *by triple*
  (:func:`oracle.s2r.counting.by_triple`), whatever the engine counts; no gracious mode (no time
  borders to shift).
- Time-annotated data (:class:`~oracle.model.ValiditySpec`) and several windows
  (:class:`~oracle.model.MultiWindowSpec`): the evaluation instants are fixed, so no t0 class is
  enumerated; the kind's module (:mod:`oracle.expected.validity`, :mod:`oracle.expected.multiwindow`:
  ``expected`` and ``check`` with one signature) judges one profile at a time
  (:func:`oracle.judge.verdict.over_profiles`).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

from oracle.expected import multiwindow, validity
from oracle.model import CountWindowSpec, MultiWindowSpec, Stream, ValiditySpec, WindowSpec
from oracle.s2r.counting import by_triple


@dataclass(frozen=True)
class WindowKind:
    """What judging a kind of window takes."""

    name: str
    #: the module judging it one profile at a time (``expected`` and ``check``); None: t0 classes enumerated
    fixed: ModuleType | None = None
    #: the stream the oracle judges it over is the stream by triple (count windows)
    by_triple: bool = False
    #: gracious mode may reconstruct its windows' time borders
    gracious: bool = True

    def judged(self, stream: Stream) -> Stream:
        """The stream as the oracle judges this kind over it."""
        return by_triple(stream) if self.by_triple else stream


TIME = WindowKind("time")
COUNT = WindowKind("count", by_triple=True, gracious=False)
VALIDITY = WindowKind("time-annotated", fixed=validity, gracious=False)
MULTI = WindowKind("several windows", fixed=multiwindow, gracious=False)

KINDS = {WindowSpec: TIME, CountWindowSpec: COUNT, ValiditySpec: VALIDITY, MultiWindowSpec: MULTI}


def kind(window) -> WindowKind:
    """The kind of ``window`` (a case's window spec)."""
    try:
        return KINDS[type(window)]
    except KeyError:
        raise TypeError(f"no window kind for {type(window).__name__}") from None
