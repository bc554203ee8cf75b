"""The game in words, once for every front end: status line, moves, turns, the hand and the rows as text.

The terminal game, the plain prompt, ``elferraus replay`` and the web server
all word the game with these functions, from the catalogue in
``messages.toml`` (English and German). The server sends the page the status
of the seat to move as a message key with its parameters (``status``), so
the page renders the same words from the same catalogue and decides nothing
about the game itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from elferraus.cards import ELEVEN, NUMBERS, Card, Color
from elferraus.i18n import Lang, tr
from elferraus.moves import DRAW, PASS
from elferraus.view import SeatView

# -- the table and the hand as text ------------------------------------------------

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


# -- what the player may do now ----------------------------------------------------


def status(view: SeatView) -> tuple[str, dict[str, str | int]]:
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


def status_line(view: SeatView, lang: Lang) -> str:
    """What the player may do now, in words."""
    key, params = status(view)
    return tr(key, lang, **params)


# -- moves and turns ---------------------------------------------------------------


def describe_move(name: str, text: str, lang: Lang, *, you: bool = False) -> str:
    """A record move (``"2 R10"``, ``"2 draw Y4"``, ``"2 pass"``) in words.

    With ``you`` it is the reader's own move (German conjugates differently).
    """
    parts = text.split()
    if parts[1] == "pass":
        return tr("you_pass", lang) if you else tr("did_pass", lang, name=name)
    if parts[1] == "draw":
        if len(parts) == 3:
            return tr("you_draw", lang, card=parts[2]) if you else tr("did_draw_card", lang, name=name, card=parts[2])
        return tr("did_draw", lang, name=name)
    return tr("you_lay", lang, card=parts[1]) if you else tr("did_lay", lang, name=name, card=parts[1])


def last_turns(moves: Sequence[str], players: int) -> list[list[str]]:
    """Each seat's most recent turn, as its actions without the seat (``"R12"``, ``"draw"``, ``"pass"``)."""
    turns: list[list[str]] = [[] for _ in range(players)]
    previous = -1
    for text in moves:
        seat_text, *action = text.split()
        seat = int(seat_text)
        if seat != previous:
            turns[seat] = []
            previous = seat
        turns[seat].append(action[0])
    return turns


def describe_turn(actions: Sequence[str], *, opening: bool, lang: Lang) -> str:
    """A turn in a few words: ``"drew 2, laid Y13"``; empty if there was none yet."""
    if not actions:
        return ""
    lays = [action for action in actions if action not in ("draw", "pass")]
    if opening and lays:
        return tr("last_opened", lang, card=lays[0])
    draws = actions.count("draw")
    cards = " ".join(lays)
    if draws and lays:
        return tr("last_drew_laid", lang, n=draws, cards=cards)
    if draws:
        return tr("last_drew", lang, n=draws)
    if lays:
        return tr("last_laid", lang, cards=cards)
    return tr("last_ended", lang)


def log_line(text: str, names: Sequence[str], lang: Lang, *, you: int | None, show_draws: bool) -> str:
    """One move of the record (``"2 draw Y4"``) as a line of the move log.

    ``you`` is the seat that reads the log as "you" (None with several people
    at one screen); ``show_draws`` False hides every drawn card, so that a log
    shared by people passing the device never shows one of them another's card.
    """
    seat_text, action, *_ = text.split()
    seat = int(seat_text)
    if action == "draw" and not show_draws:
        text = f"{seat} draw"
    return describe_move(names[seat], text, lang, you=seat == you)


def is_opening(moves: Sequence[str], seat: int) -> bool:
    """True if ``seat``'s last turn is the game's first move (the opening 11) alone."""
    return (
        bool(moves)
        and len(moves) >= 1
        and int(moves[0].split()[0]) == seat
        and all(int(text.split()[0]) != seat for text in moves[1:])
    )


def last_lay(moves: Sequence[str]) -> Card | None:
    """The card laid most recently, or None before the opening."""
    for text in reversed(moves):
        action = text.split()[1]
        if action not in ("draw", "pass"):
            return Card.parse(action)
    return None
