"""Playing one batch of a table: every game's facts, every seat's hand and outcome, and the records.

A batch is a pure function of its :class:`~elferraus.analysis.plan.Batch`:
the deal of deal ``d`` is seeded ``derive_seed(seed, stream, d)`` and the
player in seat ``s`` is seeded ``seat_seed(deal_seed, s)``, as in the arena.
So the local pool and a cluster produce the same rows.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from elferraus.analysis.plan import Batch
from elferraus.analysis.players import study_bot
from elferraus.bots import seat_seed
from elferraus.bots.simulate import play_out
from elferraus.cards import ELEVEN, NUMBERS, Card
from elferraus.deal import derive_seed, shuffled_deal
from elferraus.game import Game
from elferraus.moves import MoveKind
from elferraus.record import write_record

GAME_COLUMNS = (
    "table",
    "deal",
    "rotation",
    "seed",
    "players",
    "variant",
    "redeals",
    "starter",
    "winner",
    "turns",
    "actions",
    "lays",
    "draws",
    "passes",
    "pile_out",
)
"""The columns of the games table, one row per game (documented in docs/analysis.md)."""

SEAT_COLUMNS = (
    "table",
    "deal",
    "rotation",
    "seat",
    "slot",
    "spec",
    "position",
    "won",
    "penalty",
    "cards_left",
    "hand_size",
    "elevens",
    "next_to_eleven",
    "ends",
    "colours",
    "largest_colour",
    "own_run",
)
"""The columns of the seats table, one row per seat of each game."""


@dataclass
class BatchResult:
    """What a batch played: column lists of both tables, and the games as ``elferraus/1`` record lines."""

    batch: Batch
    games: dict[str, list[Any]] = field(default_factory=lambda: {name: [] for name in GAME_COLUMNS})
    seats: dict[str, list[Any]] = field(default_factory=lambda: {name: [] for name in SEAT_COLUMNS})
    records: list[str] = field(default_factory=list)


def hand_features(hand: list[Card]) -> dict[str, int]:
    """What the study asks of a dealt hand.

    ``next_to_eleven``: its 10s and 12s; ``ends``: its 1s and 20s; ``own_run``:
    the cards it could lay by itself from its own 11s, one after another,
    before anybody else lays a card.

    >>> hand_features([Card.parse("R11"), Card.parse("R12"), Card.parse("R13"), Card.parse("G1")])["own_run"]
    3
    """
    held = {(card.color, card.number) for card in hand}
    colours: dict[object, int] = {}
    for card in hand:
        colours[card.color] = colours.get(card.color, 0) + 1
    own_run = 0
    for card in hand:
        if card.number != ELEVEN:
            continue
        own_run += 1
        for step in (-1, 1):
            number = ELEVEN + step
            while 1 <= number <= NUMBERS and (card.color, number) in held:
                own_run += 1
                number += step
    return {
        "hand_size": len(hand),
        "elevens": sum(card.number == ELEVEN for card in hand),
        "next_to_eleven": sum(card.number in (ELEVEN - 1, ELEVEN + 1) for card in hand),
        "ends": sum(card.number in (1, NUMBERS) for card in hand),
        "colours": len(colours),
        "largest_colour": max(colours.values(), default=0),
        "own_run": own_run,
    }


def _counts(game: Game) -> dict[str, int]:
    turns = lays = draws = passes = 0
    previous = -1
    for seat, move, _drawn in game.history():
        if seat != previous:
            turns += 1
            previous = seat
        if move.kind is MoveKind.LAY:
            lays += 1
        elif move.kind is MoveKind.DRAW:
            draws += 1
        else:
            passes += 1
    return {"turns": turns, "actions": lays + draws + passes, "lays": lays, "draws": draws, "passes": passes}


def play_batch(batch: Batch) -> BatchResult:
    """Play every game of ``batch`` and gather its rows.

    Raises:
        IllegalMoveError: a player chose an illegal move (a bug, never expected).
    """
    table = batch.table
    players, rules = table.players, table.rules
    result = BatchResult(batch)
    for deal in range(batch.first, batch.first + batch.count):
        deal_seed = derive_seed(batch.seed, batch.stream_id, deal)
        redeals = shuffled_deal(players, deal_seed, rules)[2]
        for rotation in range(players if table.rotations else 1):
            slots = [(seat + rotation) % players for seat in range(players)]
            game = Game.deal(players, deal_seed, rules)
            hands = [game.hand(seat) for seat in range(players)]
            bots = [study_bot(table.specs[slot], seat_seed(deal_seed, seat)) for seat, slot in enumerate(slots)]
            play_out(game, bots)
            starter = game.moved(0)[0]
            winner = game.winner
            row = {
                "table": table.key,
                "deal": deal,
                "rotation": rotation,
                "seed": deal_seed,
                "players": players,
                "variant": table.variant,
                "redeals": redeals,
                "starter": starter,
                "winner": winner,
                "pile_out": game.pile_size() == 0,
                **_counts(game),
            }
            for name in GAME_COLUMNS:
                result.games[name].append(row[name])
            penalties = game.penalties()
            for seat, slot in enumerate(slots):
                seat_row = {
                    "table": table.key,
                    "deal": deal,
                    "rotation": rotation,
                    "seat": seat,
                    "slot": slot,
                    "spec": table.specs[slot],
                    "position": (seat - starter) % players,
                    "won": seat == winner,
                    "penalty": penalties[seat],
                    "cards_left": len(game.hand(seat)),
                    **hand_features(hands[seat]),
                }
                for name in SEAT_COLUMNS:
                    result.seats[name].append(seat_row[name])
            game.metadata.update(
                {"study": table.key, "deal": deal, "rotation": rotation, "bots": [table.specs[s] for s in slots]}
            )
            result.records.append(json.dumps(write_record(game), ensure_ascii=False, separators=(",", ":")))
    return result
