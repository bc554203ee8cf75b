"""The pieces of the table: the rows, a hand, the other players.

Every colour shows its letter and symbol as well as its tone, so the game
reads the same without colour vision and on a 16-colour terminal.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Button

from elferraus.cards import ELEVEN, NUMBERS, Card, Color
from elferraus.i18n import Lang, card_words, cards_in_words, tr
from elferraus.table.words import LABEL_WIDTH, cell_width, row_label
from elferraus.tui.keys import localize_bindings
from elferraus.tui.theme import TONES

ROW_WIDTH = LABEL_WIDTH + sum(cell_width(n) for n in range(1, NUMBERS + 1))


def _cell_text(number: int, text: str) -> str:
    return text.rjust(cell_width(number))


def row_content(letter: str, row: tuple[int, int] | None, lang: Lang, last: int | None = None) -> Content:
    """One colour's row: letter and symbol, then 1 -> 20 with the 11 in its own column.

    Laid cards show their number in the colour's tone (``last``, the card laid
    most recently, reversed), the two cards that fit next are free slots
    (``+7``), the rest are dots.
    """
    tone = TONES[letter]
    parts: list[tuple[str, str] | str] = [(row_label(letter, lang), f"bold {tone}")]
    if row is None:
        parts.append(" " * sum(cell_width(n) for n in range(1, ELEVEN)))
        parts.append((_cell_text(ELEVEN, "+11"), tone))
        parts.append((f" {tr('not_open', lang)}", "italic $text-muted"))
        return Content.assemble(*parts)
    low, high = row
    for number in range(1, NUMBERS + 1):
        if low <= number <= high:
            text = f"[{number}]" if number == ELEVEN else str(number)
            if number == last:
                parts.append(" " * (cell_width(number) - len(text)))
                parts.append((text, f"bold {tone} reverse"))
            else:
                parts.append((_cell_text(number, text), f"bold {tone}"))
        elif number in (low - 1, high + 1):
            parts.append((_cell_text(number, f"+{number}"), tone))
        else:
            parts.append((_cell_text(number, "·"), "$text-disabled"))
    return Content.assemble(*parts)


def header_content() -> Content:
    """The numbers 1 -> 20 above the rows, aligned with their cells."""
    cells = "".join(_cell_text(n, str(n)) for n in range(1, NUMBERS + 1))
    return Content.assemble((" " * LABEL_WIDTH + cells, "$text-muted"))


class RowsView(Widget):
    """The four (or three) colour rows on the table."""

    DEFAULT_CSS = """
    RowsView { height: auto; width: auto; padding: 0 1; border: round $primary-muted;
        border-title-color: $text; border-title-style: bold; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._rows: Mapping[Color, tuple[int, int]] = {}
        self._colors = "RYGB"
        self._lang: Lang = "en"
        self._last: Card | None = None

    def show(self, rows: Mapping[Color, tuple[int, int]], colors: str, lang: Lang, last: Card | None = None) -> None:
        """Draw these rows, with ``last`` (the card laid most recently) marked."""
        self._rows, self._colors, self._lang, self._last = dict(rows), colors, lang, last
        self.refresh(layout=True)

    def render(self) -> Content:
        lines = [header_content()]
        for letter in self._colors:
            last = self._last.number if self._last is not None and self._last.color.value == letter else None
            lines.append(row_content(letter, self._rows.get(Color(letter)), self._lang, last))
        return Content("\n").join(lines)

    def get_content_width(self, container: object, viewport: object) -> int:
        return ROW_WIDTH

    def get_content_height(self, container: object, viewport: object, width: int) -> int:
        return 1 + len(self._colors)


def card_style(card: Card, *, fits: bool, selected: bool) -> str:
    """The look of a card in a hand: tone and boldness by whether it fits, reversed when selected."""
    tone = TONES[card.color.value]
    style = f"bold {tone}" if fits else f"dim {tone}"
    return f"{style} reverse" if selected else style


@dataclass(frozen=True)
class HandCell:
    """One card's place in the drawn hand: the line and column it starts at."""

    card: Card
    line: int
    column: int


class HandView(Widget, can_focus=True):
    """A hand sorted by colour and number; fitting cards marked ``*``; one card selected.

    Click a card, or move with the arrow keys and press Enter, to lay it.
    """

    DEFAULT_CSS = """
    HandView { height: auto; min-height: 1; padding: 0 1; }
    """

    class Picked(Message):
        """The player picked a card (Enter or a click)."""

        def __init__(self, card: Card) -> None:
            super().__init__()
            self.card = card

    def __init__(self, *, id: str | None = None, lang: Lang = "en") -> None:
        super().__init__(id=id)
        self.lang: Lang = lang
        self.cards: tuple[Card, ...] = ()
        self.fitting: frozenset[Card] = frozenset()
        self.cursor = 0
        self.hidden_text: str | None = None
        self.label = ""

    def show(self, cards: Sequence[Card], fitting: Iterable[Card], label: str) -> None:
        """Show these cards; keep the selection on the same card if it is still there."""
        current = self.selected
        self.cards = tuple(cards)
        self.fitting = frozenset(fitting)
        self.hidden_text = None
        self.label = label
        if current in self.cards:
            self.cursor = self.cards.index(current)
        self.cursor = min(self.cursor, max(len(self.cards) - 1, 0))
        self.refresh(layout=True)

    def hide(self, text: str, label: str) -> None:
        """Show no card at all, only ``text`` (pass-and-play between turns)."""
        self.cards, self.fitting, self.hidden_text, self.label = (), frozenset(), text, label
        self.refresh(layout=True)

    @property
    def selected(self) -> Card | None:
        """The card under the cursor."""
        return self.cards[self.cursor] if self.cards else None

    def select_first_fitting(self) -> None:
        """Put the cursor on the first card that fits, unless it already is on one."""
        if self.selected in self.fitting:
            return
        for index, card in enumerate(self.cards):
            if card in self.fitting:
                self.cursor = index
                self.refresh()
                return

    def move_cursor(self, step: int, *, fitting_only: bool = False) -> None:
        """Move the selection ``step`` cards along (wrapping), optionally to fitting cards only."""
        if not self.cards:
            return
        index = self.cursor
        for _ in range(len(self.cards)):
            index = (index + step) % len(self.cards)
            if not fitting_only or self.cards[index] in self.fitting:
                self.cursor = index
                break
        self.refresh()

    def select(self, card: Card) -> None:
        """Put the cursor on ``card`` if it is in the hand."""
        if card in self.cards:
            self.cursor = self.cards.index(card)
            self.refresh()

    def on_click(self, event: events.Click) -> None:
        """A click on a card picks it."""
        offset = event.get_content_offset(self)
        if offset is None or self.hidden_text is not None:
            return
        for index, cell in enumerate(self.layout_cells(self.content_size.width)):
            if cell.line == offset.y and cell.column <= offset.x < cell.column + len(self.card_text(cell.card)):
                self.cursor = index
                self.refresh()
                self.post_message(self.Picked(cell.card))
                return

    def layout_cells(self, width: int) -> list[HandCell]:
        """Where each card goes when the hand is wrapped to ``width`` columns."""
        cells = []
        line, column = 0, len(self.label)
        previous: Card | None = None
        for card in self.cards:
            gap = 0 if previous is None else 3 if previous.color != card.color else 1
            size = len(self.card_text(card))
            if column + gap + size > width and previous is not None:
                line, column, gap = line + 1, len(self.label), 0
            column += gap
            cells.append(HandCell(card, line, column))
            column += size
            previous = card
        return cells

    def card_text(self, card: Card) -> str:
        """A card as the hand shows it: ``R12`` (in German ``Ge12``), with ``*`` when it fits."""
        text = card_words(card, self.lang)
        return f"{text}*" if card in self.fitting else text

    def render(self) -> Content:
        width = max(self.content_size.width, 20)
        if self.hidden_text is not None:
            return Content.assemble((self.label, "bold"), (self.hidden_text, "italic $text-muted"))
        cells = self.layout_cells(width)
        lines: list[list[tuple[str, str] | str]] = [[(self.label, "bold")]]
        ends = [len(self.label)]
        for index, cell in enumerate(cells):
            while len(lines) <= cell.line:
                lines.append([" " * len(self.label)])
                ends.append(len(self.label))
            gap = cell.column - ends[cell.line]
            if gap > 0:
                lines[cell.line].append(("│".center(gap) if gap == 3 else " " * gap, "$text-disabled"))
            text = self.card_text(cell.card)
            look = card_style(cell.card, fits=cell.card in self.fitting, selected=index == self.cursor)
            lines[cell.line].append((text, look))
            ends[cell.line] = cell.column + len(text)
        return Content("\n").join(Content.assemble(*parts) for parts in lines)

    def get_content_height(self, container: object, viewport: object, width: int) -> int:
        if self.hidden_text is not None or not self.cards:
            return 1
        return self.layout_cells(width)[-1].line + 1

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()


@dataclass(frozen=True)
class SeatLine:
    """What the table shows of one other player."""

    name: str
    level: str | None
    cards: int
    last: str
    to_move: bool


class OpponentsView(Widget):
    """The other players in turn order: name, level, card count and last action."""

    DEFAULT_CSS = """
    OpponentsView { height: auto; padding: 0 1; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._lines: tuple[SeatLine, ...] = ()
        self._lang: Lang = "en"

    def show(self, lines: Sequence[SeatLine], lang: Lang) -> None:
        """Show these players."""
        self._lines, self._lang = tuple(lines), lang
        self.refresh(layout=True)

    def render(self) -> Content:
        rows = []
        for line in self._lines:
            word = tr("card", self._lang) if line.cards == 1 else tr("cards", self._lang)
            marker = ("▶ ", "bold $accent") if line.to_move else "  "
            level = f" ({tr('level_' + line.level, self._lang)})" if line.level else ""
            rows.append(
                Content.assemble(
                    marker,
                    (line.name, "bold" if line.to_move else ""),
                    (level, "$text-muted"),
                    f" · {line.cards} {word}",
                    (f" · {cards_in_words(line.last, self._lang)}" if line.last else "", "$text-muted"),
                )
            )
        return Content("\n").join(rows)

    def get_content_height(self, container: object, viewport: object, width: int) -> int:
        return max(len(self._lines), 1)


class ActionButton(Button):
    """A button of the table whose Enter the footer names: "⏎ draw" while it has the focus, never "⏎ lay".

    Args:
        label: the button's text.
        word: the message key of its footer word (``key_draw``, ...).
        lang: the language to speak.
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter", "press", "press", key_display="⏎")]

    def __init__(self, label: str, word: str, lang: Lang, *, id: str) -> None:
        super().__init__(label, id=id, compact=True)
        self.word = word
        self.lang: Lang = lang

    def on_mount(self) -> None:
        localize_bindings(self, self.lang, {"press": self.word})


class CoachPanel(Widget):
    """The coach's note under the hand: one rule, and the keys that answer it.

    Hidden while it has nothing to say (``show(None, ...)``).
    """

    DEFAULT_CSS = """
    CoachPanel { display: none; height: auto; margin-top: 1; padding: 0 1; border-left: outer $accent;
        background: $accent-muted; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.text = ""
        self.keys: tuple[tuple[str, str], ...] = ()
        self._lang: Lang = "en"

    def show(self, text: str | None, keys: Sequence[tuple[str, str]], lang: Lang) -> None:
        """Show ``text`` (the rule) with ``keys`` (key, what it does) under it; None hides the note."""
        self.display = text is not None
        self.text, self.keys, self._lang = text or "", tuple(keys), lang
        self.refresh(layout=True)

    def render(self) -> Content:
        keys = Content(" · ").join(
            Content.assemble((key, "bold $text-accent"), f" {words}") for key, words in self.keys
        )
        head = Content.assemble((f"{tr('coach_title', self._lang)}: ", "bold $text-accent"), self.text)
        return Content("\n").join([head, keys]) if self.keys else head
