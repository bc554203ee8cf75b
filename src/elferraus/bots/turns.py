"""Computers' turns played out: the one loop that asks a computer player for its move and makes it; the one
rule that seeds a computer player at its seat.

Every place that lets computers play (a person's table, the arena, the
simulations, the Gymnasium opponents, the style tables, the benchmarks) calls
:func:`play_turns`; none asks a player and pushes its move on its own. A
person's table (``elferraus.table.session.Table``) decides whose turn it is and
plays the computers' part through it.

>>> from elferraus.bots import make_bot
>>> from elferraus.game import Game
>>> game = Game.deal(players=3, seed=5)
>>> players = {seat: make_bot("greedy", seat_seed(5, seat)) for seat in range(3)}
>>> start_players(players, game)
>>> made = play_turns(game, players)
>>> game.is_over(), made == game.move_count
(True, True)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Protocol

from elferraus.bots.base import Bot
from elferraus.deal import derive_seed
from elferraus.game import Game
from elferraus.moves import Move
from elferraus.view import SeatView


class Chooser(Protocol):
    """Anything that picks a move from a seat's view: a computer player, or the arena's player of a program."""

    def choose(self, view: SeatView) -> Move:
        """One of ``view.legal``."""
        ...


OnMove = Callable[[int, Move, float], None]
"""Told of each move made: the seat, its move, and the seconds its player took to choose it."""


def seat_seed(game_seed: int, seat: int) -> int:
    """The seed of the computer player at ``seat`` in a game dealt from ``game_seed``.

    The one rule for every table (the terminal game, the plain prompt, the web
    rooms, ``simulate`` and the arena): a computer is seeded from the game's
    deal seed and its seat, so the same deal with the same people's moves is
    the same game everywhere.

    >>> seat_seed(7, 0) == seat_seed(7, 0) != seat_seed(7, 1)
    True
    """
    return derive_seed(game_seed, seat + 1)


def hint_seed(game_seed: int, move_count: int) -> int:
    """The seed of the hint's player (``master``) after ``move_count`` moves of a game dealt from ``game_seed``."""
    return derive_seed(game_seed, 0, move_count)


def start_players(players: Mapping[int, Bot], game: Game) -> None:
    """Tell each computer player which seat of ``game`` it plays (a player with memory of the game resets it)."""
    for seat, player in players.items():
        player.start_game(seat, game.players, game.rules)


def play_turns(game: Game, players: Mapping[int, Chooser], on_move: OnMove | None = None) -> int:
    """Let the computer player of each seat to move choose from its own view and make its move, while the seat
    to move has a player in ``players`` and the game is on; returns the number of moves made.

    Raises:
        IllegalMoveError: a player chose a move the rules do not allow (nothing of it was made).
        Anything a player raises (the arena's forfeits): the moves before it stay made.
    """
    made = 0
    while not game.is_over():
        seat = game.turn
        player = players.get(seat)
        if player is None:
            break
        started = time.perf_counter()
        move = player.choose(game.view(seat))
        thought = time.perf_counter() - started
        game.push(move)
        made += 1
        if on_move is not None:
            on_move(seat, move, thought)
    return made


__all__ = ["Chooser", "OnMove", "hint_seed", "play_turns", "seat_seed", "start_players"]
