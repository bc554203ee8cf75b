"""The terminal game's tests' helpers: running the app headless and waiting in it, and hand-dealt positions
at a table with computers."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from textual.pilot import Pilot

from elferraus import read_position
from elferraus.cards import CARDS, Card, parse_cards
from elferraus.match import Match
from elferraus.table.session import Seat, Table, TableSetup
from elferraus.tui.app import ElferRausApp
from elferraus.tui.table_screen import TableScreen


def run(app: ElferRausApp, script: Callable[[Pilot[None]], Awaitable[None]], size: tuple[int, int] = (80, 24)) -> None:
    """Run ``app`` headless at ``size`` and drive it with ``script``."""

    async def main() -> None:
        async with app.run_test(size=size) as pilot:
            await script(pilot)

    asyncio.run(main())


async def until(pilot: Pilot[None], condition: Callable[[], bool], what: str, limit: float = 10.0) -> None:
    """Wait (boundedly) until ``condition()`` holds; the failure says what the app was doing."""
    deadline = time.monotonic() + limit
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}: {state(pilot.app)}")
        await pilot.pause(0.005)


def state(app: object) -> str:
    """What the app is doing, for a failure message."""
    if not isinstance(app, ElferRausApp) or app._table is None:
        return f"{type(getattr(app, 'screen', None)).__name__}, no table"
    game = app.table.game
    return (
        f"{type(app.screen).__name__}, awaiting={awaiting(app)}, turn={game.turn}, moves={game.record_moves()[-6:]},"
        f" legal={game.legal_moves()}, over={game.is_over()}"
    )


def awaiting(app: ElferRausApp) -> bool:
    """A person's turn: the table on top waits for a key."""
    return isinstance(app.screen, TableScreen) and app.screen.awaiting


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
