"""The pieces of the table: the rows on their felt with the pile, a hand of card chips, the other players' fans.

Every colour shows its letter and symbol as well as its tone, so the game
reads the same without colour vision and on a 16-colour terminal; what fits
is marked ``*``, the selected card framed, a drawn card tagged "new". What
moves (the deal, a flash) is started by the table screen (see ``motion``);
these widgets only draw how far it got.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from math import ceil
from typing import ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Button, RichLog

from elferraus.cards import ELEVEN, NUMBERS, Card, Color
from elferraus.i18n import Lang, card_words, cards_in_words, tr
from elferraus.moves import DRAW
from elferraus.table.session import Table
from elferraus.table.words import LABEL_WIDTH, cell_width, describe_turn, is_opening, last_turns, row_label
from elferraus.tui.keys import localize_bindings
from elferraus.tui.motion import Moment
from elferraus.tui.theme import CARD_BACK, CHIP, FOCUS, INK, TONES

ROW_WIDTH = LABEL_WIDTH + sum(cell_width(n) for n in range(1, NUMBERS + 1))


def _cell_text(number: int, text: str) -> str:
    return text.rjust(cell_width(number))


def row_content(
    letter: str, row: tuple[int, int] | None, lang: Lang, last: int | None = None, *, flash: bool = False
) -> Content:
    """One colour's row: letter and symbol, then 1 -> 20 with the 11 in its own column.

    Laid cards show their number in the colour's tone (``last``, the card laid
    most recently, reversed; with ``flash``, just laid, on the accent), the two
    cards that fit next are free slots (``+7``), the rest are dots.
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
                parts.append((text, f"bold {INK} on {FOCUS}" if flash else f"bold {tone} reverse"))
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


STACK = "▁▂▃▄▅▆▇█"
"""The pile seen from the side: the fuller, the higher."""


def pile_content(words: str, count: int, full: int, *, flash: bool = False) -> Content:
    """The pile as the felt's title: a stack as high as the pile is full (of ``full``), then ``words``.

    With ``flash`` (a card was just drawn from it) the whole title stands out.
    """
    height = ceil(len(STACK) * count / max(full, count, 1)) if count else 0
    stack = (STACK[height - 1] if height else " ") * 2
    if flash:
        return Content.styled(f"{stack} {words}", f"bold {INK} on {CARD_BACK}")
    return Content.assemble((stack, CARD_BACK), " ", (words, "bold"))


class RowsView(Widget):
    """The four (or three) colour rows on the table's felt, the pile in its rim."""

    DEFAULT_CSS = """
    RowsView { height: auto; width: auto; padding: 0 1; background: $felt; border: round $felt-rim;
        border-title-color: $text; border-title-background: $surface; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._rows: Mapping[Color, tuple[int, int]] = {}
        self._colors = "RYGB"
        self._lang: Lang = "en"
        self._last: Card | None = None
        self.flashing: Card | None = None
        """The card just laid, standing out in its slot for a moment."""
        self._flash = Moment(self)
        self._pile: tuple[str, int, int] = ("", 0, 0)
        self.pile_flashing = False
        """A card was just drawn from the pile: its title stands out for a moment."""
        self._pile_flash = Moment(self)

    def show(self, rows: Mapping[Color, tuple[int, int]], colors: str, lang: Lang, last: Card | None = None) -> None:
        """Draw these rows, with ``last`` (the card laid most recently) marked."""
        self._rows, self._colors, self._lang, self._last = dict(rows), colors, lang, last
        if self.flashing is not None and self.flashing != last:
            self.flashing = None
        self.refresh(layout=True)

    def flash(self, card: Card, seconds: float) -> None:
        """Let ``card``, just laid, stand out in its slot for ``seconds``."""
        self.flashing = card
        self._flash.after(seconds, self._settle)
        self.refresh()

    def _settle(self) -> None:
        self.flashing = None
        self.refresh()

    def show_pile(self, words: str, count: int, full: int) -> None:
        """Show the pile in the rim: ``count`` cards of the ``full`` pile of the deal, and ``words`` saying so."""
        self._pile = (words, count, full)
        self._draw_pile()

    def flash_pile(self, seconds: float) -> None:
        """Let the pile stand out for ``seconds``: a card was just drawn from it."""
        self.pile_flashing = True
        self._pile_flash.after(seconds, self._pile_settle)
        self._draw_pile()

    def _pile_settle(self) -> None:
        self.pile_flashing = False
        self._draw_pile()

    def _draw_pile(self) -> None:
        words, count, full = self._pile
        self.border_title = pile_content(words, count, full, flash=self.pile_flashing)

    def render(self) -> Content:
        lines = [header_content()]
        for letter in self._colors:
            last = self._last.number if self._last is not None and self._last.color.value == letter else None
            flash = last is not None and self.flashing == self._last
            lines.append(row_content(letter, self._rows.get(Color(letter)), self._lang, last, flash=flash))
        return Content("\n").join(lines)

    def get_content_width(self, container: object, viewport: object) -> int:
        return ROW_WIDTH

    def get_content_height(self, container: object, viewport: object, width: int) -> int:
        return 1 + len(self._colors)


def card_style(card: Card, *, fits: bool, selected: bool) -> str:
    """The look of a card chip in a hand: dark ink on its tone when it fits, its tone on a dark chip when it does
    not; underlined when selected (the frame around it, the accent on the blanks either side, is drawn apart)."""
    tone = TONES[card.color.value]
    style = f"bold {INK} on {tone}" if fits else f"{tone} on {CHIP}"
    return f"{style} underline" if selected else style


@dataclass(frozen=True)
class HandCell:
    """One card's place in the drawn hand: the line and column it starts at."""

    card: Card
    line: int
    column: int


class HandView(Widget, can_focus=True):
    """A hand of card chips sorted by colour and number, grouped by colour; fitting cards marked ``*``; one card
    selected (framed); a card just drawn tagged "new".

    Click a card, or move with the arrow keys and press Enter, to lay it. While a hand is dealt, it shows its
    first cards only (its keys and clicks show the whole hand at once).
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
        self.new_card: Card | None = None
        """The card just drawn, tagged "new"."""
        self.dealt: int | None = None
        """While the hand is dealt: how many of its cards are shown so far (None: all)."""
        self._dealing = Moment(self)

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
        self.finish_deal()
        self.cards, self.fitting, self.hidden_text, self.label = (), frozenset(), text, label
        self.refresh(layout=True)

    def mark_new(self, card: Card | None) -> None:
        """Tag ``card`` (just drawn) "new"; None takes the tag off."""
        if card != self.new_card:
            self.new_card = card
            self.refresh(layout=True)

    def deal(self, step: float) -> None:
        """Show the hand card by card, one every ``step`` seconds."""
        self.finish_deal()
        self.dealt = 0
        self._dealing.every(step, self._deal_one)
        self.refresh()

    def _deal_one(self) -> None:
        if self.dealt is None:
            return
        self.dealt += 1
        if self.dealt >= len(self.cards):
            self.finish_deal()
        self.refresh()

    def finish_deal(self) -> None:
        """Show the whole hand now."""
        self._dealing.stop()
        if self.dealt is not None:
            self.dealt = None
            self.refresh()

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
        self.finish_deal()
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
        shown = self.dealt
        self.finish_deal()
        cells = self.layout_cells(self.content_size.width)
        for index, cell in enumerate(cells[:shown]):
            if cell.line == offset.y and cell.column <= offset.x < cell.column + len(self.card_text(cell.card)):
                self.cursor = index
                self.refresh()
                self.post_message(self.Picked(cell.card))
                return

    def new_tag(self) -> str:
        """The tag after a card just drawn: ``new`` (in German ``neu``)."""
        return tr("hand_new", self.lang)

    def cell_width(self, card: Card) -> int:
        """The columns a card takes: its chip, and the tag after it if it is new."""
        size = len(self.card_text(card))
        return size + 1 + len(self.new_tag()) if card == self.new_card else size

    def layout_cells(self, width: int) -> list[HandCell]:
        """Where each card goes when the hand is wrapped to ``width`` columns (one kept free at the end of a line
        for the selected card's frame)."""
        cells = []
        line, column = 0, len(self.label)
        previous: Card | None = None
        for card in self.cards:
            gap = 0 if previous is None else 3 if previous.color != card.color else 1
            size = self.cell_width(card)
            if column + gap + size + 1 > width and previous is not None:
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
        shown = cells if self.dealt is None else cells[: self.dealt]
        lines: list[list[tuple[str, str]]] = [[(char, "bold") for char in self.label]]
        ends = [len(self.label)]
        for index, cell in enumerate(shown):
            while len(lines) <= cell.line:
                lines.append([(" ", "")] * len(self.label))
                ends.append(len(self.label))
            line = lines[cell.line]
            gap = cell.column - ends[cell.line]
            spaces = "│".center(gap) if gap == 3 else " " * gap
            line += [(char, "$text-disabled") for char in spaces[len(line) - ends[cell.line] :]]  # past a frame
            ends[cell.line] = cell.column + self.cell_width(cell.card)
            card = cell.card
            selected = index == self.cursor
            text = self.card_text(card)
            look = card_style(card, fits=card in self.fitting, selected=selected)
            line += [(char, look) for char in text]
            if card == self.new_card:
                line += [(" ", "")] + [(char, f"bold italic {FOCUS}") for char in self.new_tag()]
            if selected:  # a frame of the accent on the blanks either side: the words read as before
                line[cell.column - 1] = (" ", f"on {FOCUS}")
                right = cell.column + len(text)
                line += [(" ", "")] * (right + 1 - len(line))
                line[right] = (" ", f"on {FOCUS}")
        return Content("\n").join(_joined(parts) for parts in lines)

    def get_content_height(self, container: object, viewport: object, width: int) -> int:
        if self.hidden_text is not None or not self.cards:
            return 1
        return self.layout_cells(width)[-1].line + 1

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()


def _joined(cells: Sequence[tuple[str, str]]) -> Content:
    """One line from its characters and their styles, each run of one style in one piece."""
    runs: list[tuple[str, str]] = []
    for char, style in cells:
        if runs and runs[-1][1] == style:
            runs[-1] = (runs[-1][0] + char, style)
        else:
            runs.append((char, style))
    return Content.assemble(*runs)


FAN_MAX = 12
"""An opponent's fan shows at most this many card backs; more are a ``+`` (the count says how many)."""
FAN_BACK = "▌"
"""One card back of a fan: side by side, their edges read as cards held fanned."""
NAME_MAX = 24
"""The widest name (with its level) the opponents' column makes room for; a longer one ends in "…"."""


def fan_content(count: int, *, dealt: int | None = None, to_move: bool = False) -> Content:
    """A hand seen from across the table: one back per card up to ``FAN_MAX``, ``+`` past it, ``FAN_MAX + 1`` wide.

    ``dealt``: while the deal runs, how many cards it has given so far. The fan of the player to move is in the
    accent (the ``▶`` before his name says it without colour).
    """
    shown = min(count, FAN_MAX if dealt is None else min(dealt, FAN_MAX))
    more = "+" if count > FAN_MAX and shown == FAN_MAX else ""
    return Content.assemble(
        (FAN_BACK * shown, f"bold {FOCUS}" if to_move else CARD_BACK),
        (more, "bold"),
        " " * (FAN_MAX + 1 - shown - len(more)),
    )


@dataclass(frozen=True)
class SeatLine:
    """What the table shows of one other player."""

    name: str
    level: str | None
    cards: int
    last: str
    to_move: bool


def seat_lines(table: Table, viewer: int, lang: Lang) -> list[SeatLine]:
    """The other players as the table shows them to ``viewer``: in turn order, starting with the one after him."""
    game = table.game
    view = game.view(viewer)
    turns = last_turns(view.moves, game.players)
    return [
        SeatLine(
            table.names[seat],
            table.setup.seats[seat].level,
            view.hand_counts[seat],
            describe_turn(turns[seat], opening=is_opening(view.moves, seat), lang=lang),
            seat == game.turn and not game.is_over(),
        )
        for seat in ((viewer + step) % game.players for step in range(1, game.players))
    ]


def _who(line: SeatLine, lang: Lang) -> tuple[str, str]:
    """A player's name and level (`` (medium)``), cut with "…" to ``NAME_MAX`` together."""
    level = f" ({tr('level_' + line.level, lang)})" if line.level else ""
    name = line.name
    if len(name) + len(level) > NAME_MAX:
        if len(level) < NAME_MAX // 2:
            name = name[: NAME_MAX - len(level) - 1] + "…"
        else:
            name, level = (name + level)[: NAME_MAX - 1] + "…", ""
    return name, level


def opponents_content(lines: Sequence[SeatLine], lang: Lang, *, dealt: int | None = None) -> Content:
    """The other players, one line each: ``▶`` for the one to move, name and level in a column, the fan of
    his cards, their count and his last turn (``dealt``: see :func:`fan_content`)."""
    who = [_who(line, lang) for line in lines]
    width = max((len(name) + len(level) for name, level in who), default=0)
    rows = []
    for line, (name, level) in zip(lines, who, strict=True):
        word = tr("card", lang) if line.cards == 1 else tr("cards", lang)
        rows.append(
            Content.assemble(
                ("▶ ", "bold $accent") if line.to_move else "  ",
                (name, "bold" if line.to_move else ""),
                (level, "$text-muted"),
                " " * (width - len(name) - len(level) + 2),
                fan_content(line.cards, dealt=dealt, to_move=line.to_move),
                f" {line.cards} {word}",
                (f" · {cards_in_words(line.last, lang)}" if line.last else "", "$text-muted"),
            )
        )
    return Content("\n").join(rows)


def pile_at_deal(table: Table) -> int:
    """The pile as the deal of the table's game left it: what is left of it, and every card drawn since."""
    game = table.game
    return game.pile_size() + sum(1 for _seat, move, _drawn in game.history() if move == DRAW)


class OpponentsView(Widget):
    """The other players in turn order, one line each: name, level, a fan of card backs, card count, last action."""

    DEFAULT_CSS = """
    OpponentsView { height: auto; padding: 0 1; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._lines: tuple[SeatLine, ...] = ()
        self._lang: Lang = "en"
        self.dealt: int | None = None
        """While a hand is dealt: how many cards each fan shows so far (None: all)."""

    def show(self, lines: Sequence[SeatLine], lang: Lang) -> None:
        """Show these players."""
        self._lines, self._lang = tuple(lines), lang
        self.refresh(layout=True)

    def deal(self, dealt: int | None) -> None:
        """Show at most ``dealt`` backs in each fan (None: every card)."""
        self.dealt = dealt
        self.refresh()

    def render(self) -> Content:
        return opponents_content(self._lines, self._lang, dealt=self.dealt)

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


class MoveLog(RichLog):
    """The move log. Its last line stays in view also when the log grows or shrinks (the coach's note takes
    room from it or gives it back), not only when a line is written."""

    def on_resize(self, event: events.Resize) -> None:
        if self.auto_scroll:
            self.scroll_end(animate=False)


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
