"""Plain-text pictures of the table, shared by ``replay`` and ``play``.

Rows run 1 -> 20 left to right with every 11 in one column; the cards that
fit next to a row are shown as slots (``+7``). Each colour carries its
letter and symbol, so nothing depends on colour vision.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from elferraus.cards import ELEVEN, NUMBERS, Card, Color
from elferraus.i18n import Lang, tr

SYMBOLS: Mapping[str, str] = {"R": "●", "Y": "▲", "G": "■", "B": "◆"}
"""The symbol of each colour (see DESIGN: colour is never the only cue)."""
STYLES: Mapping[str, str] = {"R": "bold red", "Y": "bold yellow", "G": "bold green", "B": "bold blue"}


def _cell(number: int, row: tuple[int, int] | None) -> str:
    if row is None:
        return "  ·"
    low, high = row
    if low <= number <= high:
        return f"{number:>3}"
    if number in (low - 1, high + 1):
        return f"+{number}".rjust(3)
    return "  ·"


def row_lines(rows: Mapping[Color, tuple[int, int]], colors: str, lang: Lang, *, markup: bool = False) -> list[str]:
    """One line per colour of the deck: letter, symbol and the 20 places."""
    lines = []
    header = "    " + "".join(f"{n:>3}" for n in range(1, NUMBERS + 1))
    lines.append(header)
    for letter in colors:
        row = rows.get(Color(letter))
        label = f"{letter} {SYMBOLS[letter]} "
        if row is None:
            cells = " " * (3 * (ELEVEN - 4)) + f"+11  {tr('not_open', lang)}"
        else:
            cells = "".join(_cell(number, row) for number in range(1, NUMBERS + 1))
        line = label + cells
        lines.append(f"[{STYLES[letter]}]{line}[/]" if markup else line)
    return lines


def hand_text(cards: Iterable[Card], fitting: Iterable[Card] = (), *, markup: bool = False) -> str:
    """A hand grouped by colour, fitting cards marked with ``*``."""
    fit = set(fitting)
    groups: dict[str, list[str]] = {}
    for card in sorted(cards, key=lambda c: c.index):
        text = f"{card}{'*' if card in fit else ''}"
        if markup:
            text = f"[{STYLES[card.color.value]}]{text}[/]"
        groups.setdefault(card.color.value, []).append(text)
    return " | ".join(" ".join(group) for group in groups.values()) or "-"
