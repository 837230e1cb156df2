"""Building millions of small objects at once (a generated or a read stream)."""

from __future__ import annotations

import contextlib
import functools
import gc


@contextlib.contextmanager
def cyclic_gc_paused():
    """Pause the cyclic garbage collector: a stream's millions of new tuples hold no cycle, and the
    collector would rescan them again and again while they are made (30 % of reading a YABench file,
    bench/README.md)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def in_bulk(function):
    """Run ``function`` with the cyclic collector paused."""
    @functools.wraps(function)
    def paused(*args, **kwargs):
        with cyclic_gc_paused():
            return function(*args, **kwargs)
    return paused
