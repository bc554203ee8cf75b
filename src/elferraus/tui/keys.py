"""Key bindings in the player's language.

Textual reads a screen's (or widget's) bindings from its class; the footer
words are swapped for the player's language once the screen or widget exists.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from textual.dom import DOMNode

from elferraus.i18n import Lang, tr


def localize_bindings(
    node: DOMNode, lang: Lang, words: Mapping[str, str], shown: Mapping[str, bool] | None = None
) -> None:
    """Give the bindings of ``node`` (a screen, or a widget such as a select's menu) the words of ``lang``.

    Args:
        words: action -> message key of its footer word.
        shown: key -> whether the footer shows it (e.g. ``z`` for German players, ``d`` for English ones).
    """
    shown = shown or {}
    table = node._bindings.key_to_bindings
    for key, bindings in list(table.items()):
        # a new list for the node: the lists of its class's bindings are shared by every instance of the class
        table[key] = [
            dataclasses.replace(binding, description=tr(words[binding.action], lang), show=shown.get(key, binding.show))
            if binding.action in words
            else binding
            for binding in bindings
        ]
    node.refresh_bindings()
