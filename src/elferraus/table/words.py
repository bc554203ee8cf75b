"""The game in words, once for every front end: status line, moves, turns, the hand and the rows as text.

The terminal game, the plain prompt, ``elferraus replay`` and the web server
all word the game with these functions, from the catalogue in
``messages.toml`` (English and German). Each message exists once as a key
with its parameters (``status``, ``move_message``, ``turn_message``, ...),
which the server sends to the page, and once in words (``status_line``,
``describe_move``, ``describe_turn``, ...), built on the former; so the page
renders the same words from the same catalogue and decides nothing about the
game itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from elferraus.cards import ELEVEN, NUMBERS, Card, Color
from elferraus.i18n import Lang, card_words, color_letter, tr
from elferraus.moves import DRAW, PASS, Move
from elferraus.view import SeatView

if TYPE_CHECKING:
    from elferraus.game import Game
    from elferraus.match import Match
    from elferraus.rules import Rules
    from elferraus.table.seating import TableSetup


class TableShown(Protocol):
    """What the title line reads of a table (``session.Table``, which itself speaks with these words)."""

    @property
    def setup(self) -> TableSetup: ...

    @property
    def match(self) -> Match: ...

    @property
    def game(self) -> Game: ...


Message = tuple[str, dict[str, Any]]
"""A message of the catalogue: its key and its parameters (words in any language, filled in later)."""

# -- the table and the hand as text ------------------------------------------------

SYMBOLS: Mapping[str, str] = {"R": "●", "Y": "▲", "G": "■", "B": "◆"}
"""The symbol of each colour (see DESIGN: colour is never the only cue)."""
STYLES: Mapping[str, str] = {"R": "bold red", "Y": "bold yellow", "G": "bold green", "B": "bold blue"}


LABEL_WIDTH = 4
"""The width of a row's label: its letter and symbol (``"R ● "``)."""
ELEVEN_WIDTH = 5


def cell_width(number: int) -> int:
    """The width of ``number``'s place in a row, shared by every front end that draws rows as text.

    One-digit numbers take 3 characters and two-digit ones 4, so that a free
    slot (``+12``) never touches its neighbour; the 11 has a column of its
    own, wide enough for ``[11]``.
    """
    if number == ELEVEN:
        return ELEVEN_WIDTH
    return 3 if number < 10 else 4


def row_label(letter: str, lang: Lang) -> str:
    """A row's label, ``LABEL_WIDTH`` wide: letter and symbol (``R ● ``); in German the symbol first, then the
    German letter, which may take two places (``▲ Ge``: see :func:`elferraus.i18n.color_letter`)."""
    if lang == "en":
        return f"{letter} {SYMBOLS[letter]} "
    return f"{SYMBOLS[letter]} {color_letter(letter, lang)}".ljust(LABEL_WIDTH)


def _cell(number: int, row: tuple[int, int]) -> str:
    low, high = row
    if low <= number <= high:
        text = f"[{number}]" if number == ELEVEN else str(number)
    elif number in (low - 1, high + 1):
        text = f"+{number}"
    else:
        text = "·"
    return text.rjust(cell_width(number))


def row_lines(rows: Mapping[Color, tuple[int, int]], colors: str, lang: Lang, *, markup: bool = False) -> list[str]:
    """The numbers 1 -> 20, then one line per colour of the deck: letter, symbol and its 20 places.

    Laid cards show their number (the 11 as ``[11]``), the two that fit next
    a free slot (``+9``), the rest a dot; the layout is the terminal game's.

    >>> print("\\n".join(row_lines({Color.GREEN: (10, 12)}, "RG", "en")))
          1  2  3  4  5  6  7  8  9  10   11  12  13  14  15  16  17  18  19  20
    R ●                                  +11 (not open)
    G ■   ·  ·  ·  ·  ·  ·  ·  · +9  10 [11]  12 +13   ·   ·   ·   ·   ·   ·   ·
    """
    lines = [" " * LABEL_WIDTH + "".join(str(n).rjust(cell_width(n)) for n in range(1, NUMBERS + 1))]
    for letter in colors:
        row = rows.get(Color(letter))
        label = row_label(letter, lang)
        if row is None:
            before = sum(cell_width(n) for n in range(1, ELEVEN))
            cells = " " * before + "+11".rjust(ELEVEN_WIDTH) + f" {tr('not_open', lang)}"
        else:
            cells = "".join(_cell(number, row) for number in range(1, NUMBERS + 1))
        line = label + cells
        lines.append(f"[{STYLES[letter]}]{line}[/]" if markup else line)
    return lines


def hand_text(
    cards: Iterable[Card],
    fitting: Iterable[Card] = (),
    *,
    markup: bool = False,
    separator: str = " | ",
    lang: Lang = "en",
) -> str:
    """A hand grouped by colour (the groups joined by ``separator``), fitting cards marked with ``*``; each card
    as a reader of ``lang`` reads it (``Ge12`` in German)."""
    fit = set(fitting)
    groups: dict[str, list[str]] = {}
    for card in sorted(cards, key=lambda c: c.index):
        text = f"{card_words(card, lang)}{'*' if card in fit else ''}"
        if markup:
            text = f"[{STYLES[card.color.value]}]{text}[/]"
        groups.setdefault(card.color.value, []).append(text)
    return separator.join(" ".join(group) for group in groups.values()) or "-"


# -- what the player may do now ----------------------------------------------------


def status(view: SeatView) -> Message:
    """What the player may do now, as a message key and its parameters (for a page that words it itself)."""
    legal = view.legal
    lays = [move for move in legal if move.card is not None]
    drawn = view.drawn
    if not view.rows and lays:
        return "status_opening", {"card": str(lays[0])}
    if view.laid:
        return "status_laid", {}
    if view.draws:
        last = str(view.own_last_draw())
        if drawn is not None:
            return ("status_drawn_fits" if PASS in legal else "status_drawn_fits_must"), {"drawn": str(drawn)}
        if DRAW in legal:
            return "status_draw_again", {"drawn": last, "draws": view.draws, "limit": view.rules.max_draws}
        return "status_draw_done", {"drawn": last}
    if view.pile == 0:
        return ("status_empty_pile_lay" if lays else "status_empty_pile_pass"), {}
    if not lays:
        return "status_fresh_nolay", {}
    return ("status_fresh" if DRAW in legal else "status_fresh_must"), {}


# -- a move made for the person ------------------------------------------------------
#
# When a person has one legal move only, the table makes it for him (``docs/rules.md``, "At the table";
# ``Table.next_step`` says ``made_for_person``). Every front end says so in the same words: before the
# move, why his turn has no choice; after it, the reason and the move ("nothing fits: you draw R17").
# Everything is read from the person's own views.


def made_for_coming(view: SeatView, move: Move) -> Message:
    """What is said just before ``move`` is made for the person whose ``view`` this is."""
    if view.laid:
        return "made_own_lay", {"card": str(view.laid[-1])}
    if view.draws:
        return "made_own_draw", {"card": str(view.own_last_draw())}
    if move is DRAW:
        return "made_soon_draw", {}
    if move is PASS:
        return "made_soon_pass", {}
    if not view.rows:
        return "made_soon_open", {"card": str(move)}
    return "made_soon_lay", {"card": str(move)}


def made_for_done(before: SeatView, move: Move, after: SeatView) -> Message:
    """What is said once ``move`` was made for the person: the reason, then the move. ``before`` and
    ``after`` are his views just before and just after it."""
    if move is DRAW:
        card = str(after.own_last_draw())
        if not before.draws:
            return "made_draw", {"card": card}
        drawn = str(before.own_last_draw())
        return "made_draw_again", {"drawn": drawn, "card": card, "draws": after.draws, "limit": after.rules.max_draws}
    if move is PASS:
        if before.laid:
            return "made_pass_laid", {}
        if before.pile == 0:
            return "made_pass_empty", {}
        if before.draws:
            return "made_pass_draws", {"drawn": str(before.own_last_draw())}
        return "made_pass", {}
    if not before.rows:
        return "made_open", {"card": str(move)}
    return "made_lay", {"card": str(move)}


def made_for_coming_line(view: SeatView, move: Move, lang: Lang) -> str:
    """:func:`made_for_coming` in words."""
    key, params = made_for_coming(view, move)
    return tr(key, lang, **params)


def made_for_done_line(before: SeatView, move: Move, after: SeatView, lang: Lang) -> str:
    """:func:`made_for_done` in words."""
    key, params = made_for_done(before, move, after)
    return tr(key, lang, **params)


def status_line(view: SeatView, lang: Lang) -> str:
    """What the player may do now, in words."""
    key, params = status(view)
    return tr(key, lang, **params)


# -- moves and turns ---------------------------------------------------------------
#
# Each message comes as a key of ``messages.toml`` and its parameters first
# (for the server, which sends them to the page), then in words. A parameter
# ``seat`` stands for that seat's name (``name`` in the catalogue's text),
# ``seats`` for several names (``names``): the page fills them in with the
# names it shows, :func:`say` with the names it is given.


def say(key: str, params: Mapping[str, object], names: Sequence[str], lang: Lang) -> str:
    """A message (key and parameters, as the server sends it) in words, ``seat``/``seats`` read as names.

    >>> say("did_lay", {"seat": 1, "card": "R12"}, ["Anna", "Ben"], "en")
    'Ben laid R12'
    """
    filled = dict(params)
    seat = filled.get("seat")
    if isinstance(seat, int):
        filled["name"] = names[seat]
    seats = filled.get("seats")
    if isinstance(seats, list | tuple):
        filled["names"] = ", ".join(names[int(other)] for other in seats)
    return tr(key, lang, **filled)


def move_message(text: str, *, you: bool = False) -> Message:
    """A record move (``"2 R10"``, ``"2 draw Y4"``, ``"2 pass"``) as a message key and its parameters.

    With ``you`` it is the reader's own move (no name; German conjugates differently).
    """
    parts = text.split()
    seat = int(parts[0])
    if parts[1] == "pass":
        return ("you_pass", {}) if you else ("did_pass", {"seat": seat})
    if parts[1] == "draw":
        if len(parts) == 3:
            return ("you_draw", {"card": parts[2]}) if you else ("did_draw_card", {"seat": seat, "card": parts[2]})
        return "did_draw", {"seat": seat}
    return ("you_lay", {"card": parts[1]}) if you else ("did_lay", {"seat": seat, "card": parts[1]})


def describe_move(name: str, text: str, lang: Lang, *, you: bool = False) -> str:
    """A record move (``"2 R10"``, ``"2 draw Y4"``, ``"2 pass"``) in words.

    With ``you`` it is the reader's own move (German conjugates differently).
    """
    key, params = move_message(text, you=you)
    return tr(key, lang, **{**params, "name": name})


def last_turns(moves: Sequence[str], players: int) -> list[list[str]]:
    """Each seat's most recent turn, as its actions without the seat (``"R12"``, ``"draw"``, ``"pass"``)."""
    turns: list[list[str]] = [[] for _ in range(players)]
    found: set[int] = set()
    current = -1
    # From the end back: each seat's last run of moves (only the last round of turns is read).
    for text in reversed(moves):
        seat_text, action, *_ = text.split()
        seat = int(seat_text)
        if seat != current:
            if len(found) == players:
                break
            current = seat if seat not in found else -2
            found.add(seat)
        if current == seat:
            turns[seat].append(action)
    for actions in turns:
        actions.reverse()
    return turns


def turn_message(actions: Sequence[str], *, opening: bool) -> Message | None:
    """A turn in a few words (``"drew 2, laid Y13"``) as a message key and its parameters; None if there was none."""
    if not actions:
        return None
    lays = [action for action in actions if action not in ("draw", "pass")]
    if opening and lays:
        return "last_opened", {"card": lays[0]}
    draws = actions.count("draw")
    cards = " ".join(lays)
    if draws and lays:
        return "last_drew_laid", {"n": draws, "cards": cards}
    if draws:
        return "last_drew", {"n": draws}
    if lays:
        return "last_laid", {"cards": cards}
    return "last_ended", {}


def describe_turn(actions: Sequence[str], *, opening: bool, lang: Lang) -> str:
    """A turn in a few words: ``"drew 2, laid Y13"``; empty if there was none yet."""
    message = turn_message(actions, opening=opening)
    if message is None:
        return ""
    key, params = message
    return tr(key, lang, **params)


def last_turn_messages(moves: Sequence[str], players: int) -> list[Message | None]:
    """Each seat's most recent turn as a message (see :func:`turn_message`), from the public history."""
    return [
        turn_message(actions, opening=is_opening(moves, seat))
        for seat, actions in enumerate(last_turns(moves, players))
    ]


def log_message(text: str, *, you: int | None, show_draws: bool) -> Message:
    """One move of the record (``"2 draw Y4"``) as a line of the move log: a message key and its parameters.

    ``you`` is the seat that reads the log as "you" (None with several people
    at one screen, or for a spectator); ``show_draws`` False hides every drawn card.
    """
    seat_text, action, *_ = text.split()
    seat = int(seat_text)
    if action == "draw" and not show_draws:
        text = f"{seat} draw"
    return move_message(text, you=seat == you)


def log_line(text: str, names: Sequence[str], lang: Lang, *, you: int | None, show_draws: bool) -> str:
    """One move of the record (``"2 draw Y4"``) as a line of the move log.

    ``you`` is the seat that reads the log as "you" (None with several people
    at one screen); ``show_draws`` False hides every drawn card, so that a log
    shared by people passing the device never shows one of them another's card.
    """
    key, params = log_message(text, you=you, show_draws=show_draws)
    return tr(key, lang, **{**params, "name": names[int(text.split(maxsplit=1)[0])]})


def is_opening(moves: Sequence[str], seat: int) -> bool:
    """True if ``seat``'s last turn is the game's first move (the opening 11) alone."""
    return bool(moves) and int(moves[0].split()[0]) == seat and all(int(text.split()[0]) != seat for text in moves[1:])


def last_laid(moves: Sequence[str]) -> tuple[int, Card] | None:
    """Who laid the card laid most recently, and that card; None before the opening."""
    for text in reversed(moves):
        seat, action, *_ = text.split()
        if action not in ("draw", "pass"):
            return int(seat), Card.parse(action)
    return None


def last_lay(moves: Sequence[str]) -> Card | None:
    """The card laid most recently, or None before the opening."""
    laid = last_laid(moves)
    return laid[1] if laid is not None else None


# -- whose turn, who won -----------------------------------------------------------


def turn_status(turn: int, *, computer: bool) -> Message:
    """The status line while another seat is to move: ``"Ben is playing"``, ``"Computer 2 is thinking"``."""
    return ("status_thinking" if computer else "status_other"), {"seat": turn}


def winner_message(winner: int, *, you: bool) -> Message:
    """Who won the round: ``"You won!"`` for the winner himself, else ``"Anna won."``."""
    return ("winner_you", {}) if you else ("winner_other", {"seat": winner})


def match_message(leaders: Sequence[int], points: int, *, you: int | None) -> Message:
    """Who won the match (the seats with the lowest total, ``points``); ``you`` is the reader's seat, if any."""
    if len(leaders) > 1:
        return "match_over_tie", {"seats": list(leaders), "points": points}
    if leaders[0] == you:
        return "match_over_you", {"points": points}
    return "match_over_other", {"seat": leaders[0], "points": points}


# -- the hint, taking back ------------------------------------------------------


def rules_words(rules: Rules, lang: Lang, *, short: bool = False) -> str:
    """The rules as a reader of ``lang`` names them: the preset's description (``Classic: 80 cards, draw up to
    3``), with ``short`` only its name (``Classic``); rules of no preset by their colours and draws."""
    preset = rules.preset_name
    if preset is None:
        return tr("rules_custom", lang, colors="".join(rules.colors), max_draws=rules.max_draws)
    words = tr(f"rules_{preset}", lang)
    return words.split(":")[0] if short else words


def title_line(table: TableShown, lang: Lang) -> str:
    """The full game's title: ``Elfer raus! · Round 2 of 3 · Classic`` (the round being played, or just
    played: the table scores a round as its last move is made)."""
    number = len(table.match.scores) + (0 if table.game.is_over() else 1)
    parts = [tr("app_title", lang)]
    if table.setup.target is not None:
        parts.append(tr("round_to", lang, round=number, target=table.setup.target))
    elif table.setup.rounds > 1:
        parts.append(tr("round_of", lang, round=number, rounds=table.setup.rounds))
    parts.append(rules_words(table.game.rules, lang, short=True))
    return " · ".join(parts)


def pile_words(count: int, lang: Lang) -> str:
    """How many cards the pile holds, label and value apart: ``pile: 12 cards``."""
    if count == 0:
        return tr("pile_none", lang)
    return tr("pile_one", lang) if count == 1 else tr("pile_count", lang, n=count)


def undo_note(movers: Sequence[int], seat: int) -> Message:
    """The note once ``seat`` took back its last turn; ``movers`` made the moves taken back, one per move.

    The note counts the other players' turns that went with it.

    >>> undo_note([0, 0, 1, 2, 2], 0)
    ('undo_done_many', {'n': 2})
    """
    starts = [mover for index, mover in enumerate(movers) if index == 0 or movers[index - 1] != mover]
    others = sum(1 for mover in starts if mover != seat)
    key = "undo_done" if others == 0 else "undo_done_one" if others == 1 else "undo_done_many"
    return key, {"n": others}
