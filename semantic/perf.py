"""Small performance helpers shared by the semantic layer."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector around bulk term conversion.

    Hundreds of thousands of small acyclic objects (tuples, terms) would otherwise trigger repeated
    full collections, about 20 % of the LUBM(1) time; reference counting still frees everything.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
