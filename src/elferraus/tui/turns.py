"""The words the table shows about turns: each player's last action, the move log.

Pure functions of the public history, so they are tested without a screen.
"""

from __future__ import annotations

from collections.abc import Sequence

from elferraus.cards import Card
from elferraus.cli.replay import describe_move
from elferraus.i18n import Lang, tr


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
