"""CPU and resident memory of an engine over time, sampled from ``/proc`` (Linux).

The sampled process is the engine's own (a subprocess adapter's ``pid``) or, for an in-process engine,
the kit's process — and every descendant of it: the Spark engine's JVM is a child of the Python
process.  Each sample: seconds since the run began, CPU used since the previous sample as a share of
one core (1.0 = one core busy), and resident memory in MiB.  For an in-process engine the figures
include the kit's own feeder and bookkeeping, which a reader compares against the control engine's.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def tree(pid: int) -> list[int]:
    """``pid`` and its descendants (from /proc/<pid>/task/*/children)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        for task in Path(f"/proc/{p}/task").glob("*"):
            try:
                todo.extend(int(c) for c in (task / "children").read_text().split())
            except OSError:
                continue
    return out


def usage(pid: int) -> tuple[float, float] | None:
    """(CPU seconds used so far, resident MiB) of a process tree, or None if /proc cannot tell."""
    cpu, rss, seen = 0.0, 0.0, False
    for p in tree(pid):
        try:
            stat = Path(f"/proc/{p}/stat").read_text()
            statm = Path(f"/proc/{p}/statm").read_text().split()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()  # after "pid (comm) "
        cpu += (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime
        rss += int(statm[1]) * PAGE / 2 ** 20
        seen = True
    return (cpu, rss) if seen else None


class Sampler:
    """Samples a process tree every ``every`` seconds in a daemon thread, between ``with`` enter and exit."""

    def __init__(self, pid: int, every: float = 1.0):
        self.pid, self.every = pid, every
        self.samples: list[dict] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="rspconf-sampler", daemon=True)

    def _run(self) -> None:
        previous = usage(self.pid)
        last = time.monotonic()
        while not self._stop.wait(self.every):
            now_usage, now = usage(self.pid), time.monotonic()
            if now_usage is None or previous is None:
                previous, last = now_usage, now
                continue
            self.samples.append({"t": now, "cpu": round((now_usage[0] - previous[0]) / (now - last), 3),
                                 "rss_mib": round(now_usage[1], 1)})
            previous, last = now_usage, now

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(timeout=5)
