"""SIGTERM behaves as Ctrl-C: CI cancellation and ``timeout`` send SIGTERM, and a run stopped so must still
stop its engines and say it is incomplete, as an interrupted one does (issue 35 §9)."""

from __future__ import annotations

import signal
import threading

TERMINATED = "terminated (SIGTERM)"


def _as_interrupt(signum, frame):
    raise KeyboardInterrupt(TERMINATED)


def sigterm_as_interrupt() -> None:
    """From now on SIGTERM raises KeyboardInterrupt (in the main thread, where Python delivers signals)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _as_interrupt)
