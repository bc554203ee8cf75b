"""``Thinkers``: which levels think in a thinker process, the same moves as in this process, and what happens
when thinkers die or cannot start. Real thinker processes throughout."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
import sys
from collections.abc import Sequence

import pytest

from elferraus.bots import BOTS, make_bot
from elferraus.game import Game
from elferraus.moves import Move
from elferraus.rules import Rules
from elferraus.server.thinking.pool import FALLBACK, POOLED, TRIES, ThinkerError, Thinkers
from elferraus.table.seating import Seat, TableSetup
from elferraus.table.session import Table
from elferraus.view import SeatView


def a_choice(seed: int = 3, players: int = 4) -> SeatView:
    """The view of the first seat of a dealt game that has more than one legal move."""
    game = Game.deal(players=players, seed=seed)
    while len(game.legal_moves()) < 2:
        game.push(game.legal_moves()[0])
    return game.view(game.turn)


def fresh_choice(level: str, seed: int, view: SeatView) -> Move:
    """What a new computer of ``level`` chooses from ``view`` in this process."""
    bot = make_bot(level, seed)
    bot.start_game(view.seat, view.players, view.rules)
    return bot.choose(view)


async def choose_with(thinkers: Thinkers, level: str, seed: int, view: SeatView) -> Move:
    bot = make_bot(level, seed)
    bot.start_game(view.seat, view.players, view.rules)
    try:
        return await asyncio.wait_for(thinkers.choose(bot, view, f"test {level}"), 120)
    finally:
        await thinkers.close()


@pytest.mark.parametrize("level", list(BOTS))
def test_where_each_level_thinks(level: str) -> None:
    """The searching levels in a thinker process, the others at once in this one; the same move either way."""
    view = a_choice()
    thinkers = Thinkers(1)
    move = asyncio.run(choose_with(thinkers, level, 7, view))
    assert move == fresh_choice(level, 7, view)
    pids = set(thinkers.thought)
    if level in POOLED:
        assert len(pids) == 1
        assert os.getpid() not in pids
    else:
        assert not pids, "a level that chooses at once started no thinker"


@pytest.mark.parametrize(("workers", "level"), [(0, "master"), (0, "hard"), (1, "expert")])
def test_a_seats_only_move_is_made_without_asking(workers: int, level: str) -> None:
    game = Game.deal(players=4, seed=3)
    view = game.view(game.turn)
    assert len(view.legal) == 1  # the opening: lay the 11 one must
    thinkers = Thinkers(workers)
    assert asyncio.run(choose_with(thinkers, level, 1, view)) == view.legal[0]
    assert not thinkers.thought


def test_without_thinker_processes_a_search_thinks_in_a_thread_of_this_process() -> None:
    view = a_choice()
    thinkers = Thinkers(0)
    assert asyncio.run(choose_with(thinkers, "hard", 2, view)) == fresh_choice("hard", 2, view)
    assert set(thinkers.thought) == {os.getpid()}


def test_a_computers_fault_in_its_thinker_reaches_the_room() -> None:
    # no such game (under must-play rules master searches from the first move): the search refuses it
    view = dataclasses.replace(a_choice(), pile=500, rules=Rules(must_play=True))
    with pytest.raises(ThinkerError, match=r"(?s)test master: master failed in its thinker.*pile_count must be 0-80"):
        asyncio.run(choose_with(Thinkers(1), "master", 1, view))


READY_THEN_DIE = (
    "import os, sys; from elferraus.bots.thinker import Ready, encode; "
    "sys.stdout.buffer.write(encode(Ready(os.getpid()))); sys.stdout.flush(); sys.stdin.buffer.read(4); os._exit(9)"
)
"""A thinker that says it is ready, then dies as soon as it is asked anything."""


@pytest.mark.parametrize(
    ("command", "ended", "why"),
    [
        (
            [sys.executable, "-c", "raise SystemExit(3)"],
            "did not start (exit status 3",
            f"{TRIES} thinkers in a row did not start",
        ),
        (
            [sys.executable, "-c", READY_THEN_DIE],
            "ended (exit status 9",
            f"its thinkers died {TRIES} times while thinking it",
        ),
    ],
    ids=["cannot start", "dies thinking"],
)
def test_a_move_no_thinker_lives_to_choose_is_played_by_the_fallback(
    command: Sequence[str], ended: str, why: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="elferraus.server")
    view = a_choice()
    move = asyncio.run(choose_with(Thinkers(1, command=command), "master", 4, view))
    assert move == fresh_choice(FALLBACK, 4, view)
    messages = [record.getMessage() for record in caplog.records]
    assert sum(ended in message for message in messages) == TRIES, messages
    assert f"test master: {FALLBACK} played {move} for master: {why}" in messages[-1]


@pytest.mark.timeout(300)
@pytest.mark.parametrize("level", sorted(POOLED))
def test_a_searching_level_plays_a_game_in_thinkers_as_in_this_process(level: str) -> None:
    """A person (his first legal move) and three computers of ``level``, dealt twice from one seed: one table's
    computers think here (``Table.think``), the other's in two thinkers (a seat's only move made at once, without
    asking). The same move, every move of the game."""

    def table() -> Table:
        seats = (Seat("Anna"), *(Seat(f"Computer {n}", level) for n in (2, 3, 4)))
        return Table(TableSetup(seats=seats, seed=17))

    async def play() -> None:
        here, there = table(), table()
        thinkers = Thinkers(2)
        try:
            while (step := here.next_step()).kind not in ("round_over", "match_over"):
                if step.kind == "ask":
                    move = twin = here.game.legal_moves()[0]
                elif step.move is not None:
                    move = twin = step.move
                else:
                    move = here.think()
                    computer, view = there.computer_to_move()
                    twin = await thinkers.choose(computer, view, f"seat {step.seat}")
                assert twin == move, f"move {here.game.move_count}"
                here.play(move)
                there.play(twin)
        finally:
            await thinkers.close()
        assert len(thinkers.thought) == 2

    asyncio.run(play())


@pytest.mark.timeout(120)
@pytest.mark.parametrize("workers", [0, 1], ids=["in-a-thread", "in-a-thinker"])
def test_advice_is_masters_with_the_same_seed_wherever_it_is_thought(workers: int) -> None:
    view = a_choice(seed=8)
    bot = make_bot("master", 21)
    bot.start_game(view.seat, view.players, view.rules)
    expected = bot.advise(view)  # type: ignore[attr-defined]

    async def ask() -> object:
        thinkers = Thinkers(workers)
        try:
            return await asyncio.wait_for(thinkers.advise("master", 21, view, "test hint"), 120)
        finally:
            await thinkers.close()

    assert asyncio.run(ask()) == expected


@pytest.mark.timeout(120)
def test_advice_no_thinker_lives_to_give_is_refused_not_made_up(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="elferraus.server")
    command = [sys.executable, "-c", "import os; os._exit(9)"]

    async def ask() -> object:
        thinkers = Thinkers(1, command=command)
        try:
            return await asyncio.wait_for(thinkers.advise("master", 4, a_choice(), "test hint"), 120)
        finally:
            await thinkers.close()

    with pytest.raises(ThinkerError, match="test hint: no advice from master: 3 thinkers in a row did not start"):
        asyncio.run(ask())
