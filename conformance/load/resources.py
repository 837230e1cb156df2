"""CPU and resident memory of an engine over time, sampled from ``/proc`` (Linux).

The sampled process is the engine's own (a subprocess adapter's ``pid``) or, for an in-process engine,
the kit's process — and every descendant of it: the Spark engine's JVM is a child of the Python
process.  Each sample: seconds since the run began, CPU used since the previous sample as a share of
one core (1.0 = one core busy), and memory in MiB: the proportional set size (PSS, from
``smaps_rollup``), in which a page shared by several processes counts a share in each — summed
resident sizes counted a forked Python worker's shared pages twice (a 7.8 GiB spike in a Spark run that
otherwise held 4 GiB); the resident size where PSS cannot be read.  For an in-process engine the figures
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


def memory(pid: int) -> float:
    """MiB of one process: its PSS if the kernel tells it, else its resident size."""
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) / 1024  # kB
    except OSError:
        pass
    return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE / 2 ** 20


def stat_fields(stat: str) -> list[str]:
    """The fields of a ``/proc/<pid>/stat`` or ``/proc/<pid>/task/<tid>/stat`` text after "pid (comm) " (a
    command's name may hold spaces and parentheses): index 0 is the state, 7 minflt, 11 utime, 12 stime."""
    return stat[stat.rindex(")") + 2:].split()


def cpu_seconds(stat: str) -> float:
    """The CPU seconds (user and system) a ``/proc/<pid>/stat`` or ``/proc/<pid>/task/<tid>/stat`` text states."""
    fields = stat_fields(stat)
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime


def usage(pid: int) -> tuple[float, float] | None:
    """(CPU seconds used so far, memory MiB) of a process tree, or None if /proc cannot tell."""
    cpu, mib, seen = 0.0, 0.0, False
    for p in tree(pid):
        try:
            stat = Path(f"/proc/{p}/stat").read_text()
            mib += memory(p)
        except OSError:
            continue
        cpu += cpu_seconds(stat)
        seen = True
    return (cpu, mib) if seen else None


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
                                 "memory_mib": round(now_usage[1], 1)})
            previous, last = now_usage, now

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(timeout=5)
