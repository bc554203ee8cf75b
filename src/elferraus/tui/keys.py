"""Key bindings in the player's language.

Textual reads a screen's bindings from its class; the footer words are
swapped for the player's language once the screen exists.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from textual.screen import Screen

from elferraus.i18n import Lang, tr


def localize_bindings(
    screen: Screen[Any], lang: Lang, words: Mapping[str, str], shown: Mapping[str, bool] | None = None
) -> None:
    """Give ``screen``'s bindings the words of ``lang``.

    Args:
        words: action -> message key of its footer word.
        shown: key -> whether the footer shows it (e.g. ``z`` for German players, ``d`` for English ones).
    """
    shown = shown or {}
    for key, bindings in screen._bindings.key_to_bindings.items():
        for index, binding in enumerate(bindings):
            if binding.action in words:
                bindings[index] = dataclasses.replace(
                    binding, description=tr(words[binding.action], lang), show=shown.get(key, binding.show)
                )
    screen.refresh_bindings()
