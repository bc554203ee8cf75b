"""Tables for the terminal game's tests: hand-dealt positions at a table with computers."""

from __future__ import annotations

from elferraus import read_position
from elferraus.cards import CARDS, Card, parse_cards
from elferraus.match import Match
from elferraus.table.session import Seat, Table, TableSetup


def table_at(rows: str, hand: str, others: str, pile_top: str, you: str = "You") -> Table:
    """You (seat 0, named ``you``) against a greedy computer, to move at a hand-dealt position.

    ``rows`` like ``R10-12``, your hand, the computer's hand, the top of the pile; of the cards not named,
    the computer holds 15 more and the rest lies under them on the pile.
    """
    named = set(parse_cards(hand) + parse_cards(others) + parse_cards(pile_top))
    for row in rows.split(","):
        color, span = row[0], row[1:]
        low, high = (int(n) for n in span.split("-"))
        named |= {Card.parse(f"{color}{n}") for n in range(low, high + 1)}
    rest = [str(card) for card in CARDS if card not in named]
    hands = f"{hand}/{others}{''.join(rest[::2][:15])}"
    pile = pile_top + "".join(card for card in rest if card not in rest[::2][:15])
    game = read_position(f"{rows} {hands} {pile} 0 -:0:- RYGB:3:free:end")
    seats = (Seat(you), Seat("Computer 2", "greedy"))
    setup = TableSetup(seats, seed=1)
    return Table.resume(setup, Match(len(seats), game.rules, rounds=1, seed=1), game)
