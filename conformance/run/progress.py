"""Progress of long work, said without getting in the way.

On a terminal: one status line beside the runner's own output ("csrbench.q5 … engine running 12 s"),
rewritten in place every second and wiped when the step ends (the cursor is saved and restored, so
pytest's dots and lines stay as they are).  Not on a terminal (a CI log, a pipe): quiet, unless
``verbose``, when a step that has run for ``every`` seconds gets a plain line, and another each
``every`` seconds after.
"""

from __future__ import annotations

import threading
import time

SAVE, RESTORE, CLEAR_TO_END = "\x1b7", "\x1b8", "\x1b[K"


class Progress:
    def __init__(self, write, terminal: bool, verbose: bool = False, every: float = 30.0, width: int = 100):
        """``write(text)`` puts text on the output (flushed); ``terminal``: it is an ANSI terminal."""
        self.write, self.terminal, self.verbose, self.every, self.width = write, terminal, verbose, every, width
        self._what: str | None = None
        self._since = 0.0
        self._said = 0.0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None

    def step(self, what: str) -> None:
        """A new step begins (and the one before ends)."""
        with self._lock:
            self._what, self._since, self._said = what, time.monotonic(), time.monotonic()
            self._show()
        if self._ticker is None and (self.terminal or self.verbose):
            self._ticker = threading.Thread(target=self._tick, daemon=True, name="rspconf-progress")
            self._ticker.start()

    def done(self) -> None:
        """The work ends: wipe the status line."""
        with self._lock:
            if self._what is not None and self.terminal:
                self.write(CLEAR_TO_END)
            self._what = None

    def close(self) -> None:
        self.done()
        self._stop.set()

    def _show(self) -> None:
        if self._what is None:
            return
        seconds = time.monotonic() - self._since
        text = f"{self._what} {seconds:.0f} s" if seconds >= 1 else self._what
        if self.terminal:
            self.write(f"{SAVE} {text[:self.width]}{CLEAR_TO_END}{RESTORE}")
        elif self.verbose and time.monotonic() - self._said >= self.every:
            self._said = time.monotonic()
            self.write(f"rspconf: {text}\n")

    def _tick(self) -> None:
        while not self._stop.wait(1.0):
            with self._lock:
                self._show()
