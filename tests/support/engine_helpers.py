"""Shared helpers of the engine tests: rule sets, random play, compact positions.

Not a test module: the test files import it (``from tests.support.engine_helpers import ...``).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator

from elferraus import CARDS, Card, Game, NotationError, Rules

RULE_SETS: dict[str, Rules] = {
    "classic": Rules.preset("classic"),
    "ravensburger": Rules.preset("ravensburger"),
    "beginners": Rules.preset("beginners"),
    "continue": Rules(after_draw="continue"),
    "must-continue": Rules(must_play=True, after_draw="continue"),
    "max_draws-1": Rules(max_draws=1),
    "max_draws-5": Rules(max_draws=5),
}
"""Every preset plus the other switches, by a short name used in test ids."""

PLAYER_COUNTS = (2, 3, 4, 5, 6)


def mask_of(cards: list[Card] | tuple[Card, ...]) -> int:
    """The cards as a bitmask over card indices."""
    mask = 0
    for card in cards:
        mask |= 1 << card.index
    return mask


def play_random(game: Game, rng: random.Random, moves: int | None = None) -> None:
    """Push uniformly random legal moves until the game ends (or ``moves`` were made)."""
    while not game.is_over() and (moves is None or moves > 0):
        game.push(rng.choice(game.legal_moves()))
        if moves is not None:
            moves -= 1


def random_games(count: int, seed: int) -> Iterator[Game]:
    """``count`` finished random games over every rule set and player count, reproducibly."""
    rng = random.Random(seed)
    names = sorted(RULE_SETS)
    for _ in range(count):
        game = Game.deal(rng.choice(PLAYER_COUNTS), rng.randrange(2**32), RULE_SETS[rng.choice(names)])
        play_random(game, rng)
        yield game


def random_positions(count: int, seed: int) -> Iterator[Game]:
    """``count`` games stopped at a random move (from the deal up to the end), reproducibly."""
    rng = random.Random(seed)
    names = sorted(RULE_SETS)
    for _ in range(count):
        game = Game.deal(rng.choice(PLAYER_COUNTS), rng.randrange(2**32), RULE_SETS[rng.choice(names)])
        stop = rng.randrange(220)
        play_random(game, rng, stop)
        yield game


def expand_position(text: str) -> str:
    """Write out a compact position string in full.

    The compact form is a position string (see :mod:`elferraus.position`) in
    which one hand, or the end of the pile, may be ``*``: every card of the
    deck not written anywhere else (not on the table, in another hand, or
    before the ``*`` on the pile), in deck order. Hands are sorted as the
    engine writes them; the pile and the cards laid this turn keep their order.

    >>> expand_position("R1-20,Y1-20,G1-20 B11/* B1B2 1 -:0:- RYGB:3:free:end")[:40]
    'R1-20,Y1-20,G1-20 B11/B3B4B5B6B7B8B9B10B'
    """
    fields = text.split()
    if len(fields) != 6:
        return text
    rows_text, hands_text, pile_text, turn, phase, rules_text = fields
    colors = rules_text.split(":")[0]
    deck = [card for card in CARDS if card.color.value in colors]
    used: set[Card] = set()
    for match in _ROW.finditer(rows_text):
        for number in range(int(match[2]), int(match[3]) + 1):
            used.update(_cards_in(f"{match[1]}{number}"))
    hands = hands_text.split("/")
    for part in hands:
        used.update(_cards_in(part))
    pile_top = pile_text.removesuffix("*")
    used.update(_cards_in(pile_top))
    rest = [card for card in deck if card not in used]

    def write(cards: list[Card]) -> str:
        return "".join(str(card) for card in cards) or "-"

    hands_out = []
    for part in hands:
        if part == "*":
            hands_out.append(write(rest))
        elif _cards_in(part) and "".join(str(card) for card in _cards_in(part)) == part.upper():
            hands_out.append(write(sorted(_cards_in(part), key=lambda card: card.index)))
        else:
            hands_out.append(part)  # "-" or not cards: left as written
    pile_out = pile_top.removesuffix("-") + write(rest) if pile_text.endswith("*") else pile_text
    return " ".join([rows_text, "/".join(hands_out), pile_out, turn, phase, rules_text])


_ROW = re.compile(r"([RYGB])(\d{1,2})-(\d{1,2})")
_CARD = re.compile(r"[RYGB]\d{1,2}")


def _cards_in(text: str) -> list[Card]:
    """The well-formed cards written in ``text`` (anything else is skipped)."""
    cards = []
    for token in _CARD.findall(text.upper()):
        try:
            cards.append(Card.parse(token))
        except NotationError:
            continue
    return cards


def can_empty_hand(game: Game) -> bool:
    """True if the player to move can lay every card this turn (tried on a copy)."""
    trial = game.copy(history=False)
    seat = trial.turn
    while trial.turn == seat and not trial.is_over():
        lays = [move for move in trial.legal_moves() if move.card is not None]
        if not lays:
            return False
        trial.push(lays[0])
    return trial.winner == seat
