"""A protocol trace (``--engine-trace FILE``): every line between the kit and an engine process, both ways,
with times, so an engine's author sees exactly what was sent and what came back.

One JSON object per line: ``at`` (seconds since the trace was opened in this process, 3 decimals),
``pid`` (the engine process), ``dir`` (``sent``: kit → engine stdin; ``received``: an engine stdout line,
garbage included; ``stderr``: a chunk of its log; ``started`` / ``exited``: the process's life, with its
command line or exit code), then ``message`` (a JSON object as sent or received) or ``line`` (a stdout
line that is not JSON, or a stderr chunk, as text).  Several pytest workers append to one file: each
record is one ``write`` to a file opened with ``O_APPEND``, so records never interleave; ``worker`` says
whose it is.  The trace is the engine's bytes, bounded as the pipes are (a stdout line at most
``max_line_mb``), so a trace file can be as large as what the engine printed.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path


class Trace:
    """An append-only trace file shared by every engine process of one adapter."""

    def __init__(self, path: str | Path, worker: str | None = None):
        self.path = Path(path)
        self.worker = worker or os.environ.get("PYTEST_XDIST_WORKER")
        self._fd: int | None = self._open()
        self._start = time.monotonic()
        self._lock = threading.Lock()

    def _open(self) -> int:
        return os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def record(self, pid: int, direction: str, **body) -> None:
        entry = {"at": round(time.monotonic() - self._start, 3), "pid": pid, "dir": direction}
        if self.worker:
            entry["worker"] = self.worker
        entry.update(body)
        data = (json.dumps(entry, ensure_ascii=False) + "\n").encode("utf-8")
        with self._lock:
            if self._fd is None:  # written after close (an exit heard late, an adapter used again): reopen
                self._fd = self._open()
            os.write(self._fd, data)

    def received(self, pid: int, line: str) -> None:
        """A stdout line: the message if it is a JSON object, else the line as it was."""
        try:
            message = json.loads(line)
        except ValueError:
            message = None
        if isinstance(message, dict):
            self.record(pid, "received", message=message)
        else:
            self.record(pid, "received", line=line.rstrip("\n"))

    def close(self) -> None:
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None


def start_file(path: str | Path) -> None:
    """Begin a new trace at ``path`` (a run's first step, in the controlling process): an old trace there is
    emptied, never appended to; a path that cannot be written is a ValueError saying so."""
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"--engine-trace {path}: is a folder; give a file name")
    try:
        path.write_bytes(b"")
    except OSError as exc:
        raise ValueError(f"--engine-trace {path}: cannot write it ({exc.strerror})") from None
