"""Which core plays: the one place that decides it, for every caller.

The compiled ``elferraus._core`` when it was built, else the pure-Python
reference (``elferraus._pystate`` for the state, ``elferraus.rollout`` for
playouts and search). ``ELFERRAUS_PURE=1`` forces the reference; it is read
here, once. Everything else imports what it needs from this module and never
a private core.
"""

from __future__ import annotations

import functools
import importlib
import operator
import os
import struct
from collections.abc import Callable, Iterable
from types import ModuleType
from typing import TYPE_CHECKING, Any, Literal

from elferraus import _pystate
from elferraus._pystate import NEWLY_FITTING, PyState, can_go_out, elevens_mask

PURE = bool(os.environ.get("ELFERRAUS_PURE"))
"""``ELFERRAUS_PURE`` was set: the pure-Python core runs even where the compiled one was built."""

_BITS = tuple(1 << index for index in range(len(_pystate._BITS)))


def _load_compiled() -> ModuleType | None:
    if PURE:
        return None
    try:
        # By name: the import graph (grimp, import-linter) cannot see a compiled module and would take
        # `from elferraus import _core` for an import of the package itself, above every module.
        return importlib.import_module("elferraus._core")
    except ImportError:  # no compiler at install time: the pure-Python core
        return None


_COMPILED = _load_compiled()

BACKEND: Literal["c", "python"] = "c" if _COMPILED is not None else "python"
"""Which core this process uses: ``"c"`` (compiled) or ``"python"``."""


def py_indices_mask(indices: Iterable[int]) -> int:
    """The bitmask of card indices (the reference of the compiled ``mask_of``)."""
    return functools.reduce(operator.or_, map(_BITS.__getitem__, indices), 0)


def py_key_order(data: bytes) -> list[int]:
    """The indices of the little-endian 64-bit keys in ``data``, by key (stable)."""
    keys = struct.unpack(f"<{len(data) // 8}Q", data)
    return sorted(range(len(keys)), key=keys.__getitem__)


if TYPE_CHECKING:
    State = PyState
else:
    State = _COMPILED.CoreState if _COMPILED is not None else PyState
    """The game state's base class: hands, table, pile, turn phase and undo."""

indices_mask: Callable[[Iterable[int]], int] = _COMPILED.mask_of if _COMPILED is not None else py_indices_mask
"""The bitmask of the given card indices."""
key_order: Callable[[bytes], list[int]] = _COMPILED.key_order if _COMPILED is not None else py_key_order
"""The indices of the 64-bit keys in a byte string, by key (the deal's sort)."""


def search_function() -> Callable[..., Any]:
    """The search of the search players: sampling hidden cards and playing every candidate out."""
    if _COMPILED is not None:
        search: Callable[..., Any] = _COMPILED.search
        return search
    from elferraus.rollout import search as reference

    return reference


def rounds_function() -> Callable[..., Any]:
    """The search of one sample per (policies, seed) entry, for the search players' rounds of samples."""
    if _COMPILED is not None:
        rounds: Callable[..., Any] = _COMPILED.search_rounds
        return rounds
    from elferraus.rollout.search import search_rounds as reference

    return reference


def sampling_function() -> Callable[..., Any]:
    """The search players' sampler of hidden cards (``sample_deals``): hands and a pile that fit what one
    seat knows, each card weighted by what its history suggests."""
    if _COMPILED is not None:
        sample: Callable[..., Any] = _COMPILED.sample_deals
        return sample
    from elferraus.rollout.search import sample_deals as reference

    return reference


def compiled() -> ModuleType | None:
    """The compiled core module, or None when the pure-Python core runs."""
    return _COMPILED


__all__ = [
    "BACKEND",
    "NEWLY_FITTING",
    "PURE",
    "State",
    "can_go_out",
    "compiled",
    "elevens_mask",
    "indices_mask",
    "key_order",
    "py_indices_mask",
    "py_key_order",
    "sampling_function",
    "search_function",
]
