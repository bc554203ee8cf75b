"""How a server process paces Python's garbage collector.

A server holds many objects that live as long as their connection or room (each
WebSocket's coroutines, closures and buffers: hundreds per client). With
Python's default thresholds (700, 10, 10) a full collection traverses all of
them several times a minute, and each stops the process's event loop for 50-
190 ms on a busy 2-core machine: every client of every room on that process
waits, and with a site of several processes a move is late as soon as one of
them collects. Measured on the load benchmark's three processes (250 rooms x 4
people): move-to-everyone p99 39-47 ms with the defaults, 24 ms paced.

Paced: young collections every ``YOUNG`` allocations instead of 700, so that
objects of a move in flight (a few thousand) die young instead of being
promoted to the old generations, which then fill, and need a full collection,
far more rarely. What exists once the app has started (modules, the rooms
read at start) is frozen before the server listens: never traversed again,
and that one full collection delays no client. Cycles among frozen objects
that later become garbage stay (the rooms read at start, once; nothing that
grows).
"""

from __future__ import annotations

import gc

YOUNG = 10_000
"""Allocations (net of frees) between two young collections (Python's default: 700)."""
MIDDLE = 20
"""Young collections between two collections of the middle generation (default: 10)."""
OLD = 10
"""Middle collections before a full one is considered (default: 10; Python also waits until a quarter of the
old generation is new since the last one)."""


def pace() -> None:
    """Set the thresholds of a server process (call once, before it serves)."""
    gc.set_threshold(YOUNG, MIDDLE, OLD)


def settle() -> None:
    """Collect once and freeze what is left: the objects of start-up are not traversed again."""
    gc.collect()
    gc.freeze()
