#!/usr/bin/env python3
"""What seeing the other hands is worth: a yardstick above ``expert``.

``expert`` samples the cards it cannot see. This benchmark runs the same
search told what no fair player knows: the opponents' hands (only the
pile's order stays hidden) and that every opponent lays whatever he can.
It plays against three ``greedy`` on the deals of the strength table
(``strength.py``: seed 2026, every deal once per seat rotation), so its win
share is an upper mark for what better reading of the hidden cards could
still give ``expert`` against ``greedy``.

With ``--against blocker`` the seeing player is ``expert-reads`` against
three ``blocker``: told the opponents' hands, it still plays them out in the
styles it reads from their turns. ``--phase empty`` tells it the hands only
once the pile is empty (``pile``: only before), which shows where in a game
knowing the hidden cards is worth most.

    python -m benchmarks.engine.hand_knowledge --deals 2000 --jobs 2 --json out.json
    python -m benchmarks.engine.hand_knowledge --against blocker --phase empty --deals 300 --jobs 2

This player is a measuring device and lives here, not among the players:
it reads the game it plays in, which no computer player may.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
from typing import Any

from elferraus.arena.stats import KindStats
from elferraus.bots import make_bot
from elferraus.bots.knowledge import Knowledge
from elferraus.bots.search import POLICY_GREEDY, POLICY_MEDIUM, ExpertBot, ReadingExpertBot
from elferraus.bots.turns import Chooser, play_turns, start_players
from elferraus.deal import derive_seed
from elferraus.game import Game
from elferraus.moves import Move
from elferraus.rules import Rules
from elferraus.view import SeatView

PLAYERS = 4


class _TellingTheHands:
    """The seeing player, told every hand just before each of its choices."""

    def __init__(self, seeing: SeeingExpert | SeeingReader, game: Game) -> None:
        self.seeing = seeing
        self.game = game

    def choose(self, view: SeatView) -> Move:
        self.seeing.hands = [sum(1 << card.index for card in self.game.hand(s)) for s in range(PLAYERS)]
        return self.seeing.choose(view)


def _true_hands(hands: list[int], own_seat: int) -> tuple[tuple[float, ...] | None, ...]:
    """Search weights that make every sampled deal the true one: weight 0 for each card a seat does not hold."""
    return tuple(
        None if seat == own_seat else tuple(float(hand >> card & 1) for card in range(80))
        for seat, hand in enumerate(hands)
    )


class SeeingExpert(ExpertBot):
    """``expert``'s search with the opponents' hands and policies given, not sampled."""

    name = "seeing-expert"

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.hands: list[int] = []
        """Per seat the cards held (a bitmask), set by the game loop before each decision."""

    def _arguments(self, view: SeatView, knowledge: Knowledge) -> dict[str, Any]:
        arguments = super()._arguments(view, knowledge)
        arguments["weights"] = _true_hands(self.hands, view.seat)
        return arguments

    def _opponent_models(self, view: SeatView) -> tuple[int, ...]:
        return tuple(POLICY_MEDIUM if seat == view.seat else POLICY_GREEDY for seat in range(view.players))


class SeeingReader(ReadingExpertBot):
    """``expert-reads``' search with the opponents' hands given in one phase of the game (``phase``), sampled
    in the other; the opponents' styles it still reads from their turns."""

    name = "seeing-reader"

    def __init__(self, seed: int, phase: str = "all") -> None:
        super().__init__(seed)
        self.phase = phase
        self.hands: list[int] = []
        """Per seat the cards held (a bitmask), set by the game loop before each decision."""

    def _arguments(self, view: SeatView, knowledge: Knowledge) -> dict[str, Any]:
        arguments = super()._arguments(view, knowledge)
        if self.phase == "all" or (self.phase == "empty") == (view.pile == 0):
            arguments["weights"] = _true_hands(self.hands, view.seat)
        return arguments


def play_deal(task: tuple[int, int, str, str]) -> list[bool]:
    """Deal ``deal`` in every seat rotation: did the seeing player win each game?"""
    seed, deal, against, phase = task
    rules = Rules.preset("classic")
    deal_seed = derive_seed(seed, deal)
    won = []
    for rotation in range(PLAYERS):
        slots = [(seat + rotation) % PLAYERS for seat in range(PLAYERS)]
        game = Game.deal(PLAYERS, deal_seed, rules)
        player_seed = derive_seed(deal_seed, rotation, 0)
        seeing: SeeingExpert | SeeingReader = (
            SeeingExpert(player_seed) if against == "greedy" else SeeingReader(player_seed, phase)
        )
        players = [seeing if slot == 0 else make_bot(against, derive_seed(deal_seed, rotation, slot)) for slot in slots]
        start_players(dict(enumerate(players)), game)
        choosers: dict[int, Chooser] = {
            seat: _TellingTheHands(seeing, game) if player is seeing else player for seat, player in enumerate(players)
        }
        play_turns(game, choosers)
        won.append(game.winner is not None and slots[game.winner] == 0)
    return won


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--against", choices=("greedy", "blocker"), default="greedy")
    parser.add_argument(
        "--phase", choices=("all", "empty", "pile"), default="all", help="with --against blocker: when it sees"
    )
    parser.add_argument("--json", metavar="OUT")
    args = parser.parse_args(argv)
    if args.against == "greedy" and args.phase != "all":
        parser.error("--phase needs --against blocker (the greedy yardstick sees the hands all game)")
    started = time.perf_counter()
    stats = KindStats("seeing-expert")
    tasks = [(args.seed, deal, args.against, args.phase) for deal in range(args.deals)]
    with multiprocessing.get_context("spawn").Pool(args.jobs) as pool:
        for deal, won in enumerate(pool.imap(play_deal, tasks, chunksize=4)):
            for game_won in won:
                stats.add_seat(deal, game_won, None, False)
    share, low, high = stats.win_share()
    seconds = time.perf_counter() - started
    print(
        f"seeing {'expert' if args.against == 'greedy' else 'expert-reads (' + args.phase + ')'} vs three "
        f"{args.against}: {100 * share:.1f} % [{100 * low:.1f}, {100 * high:.1f}] "
        f"over {args.deals:,} deals ({stats.seats:,} games, {seconds:.0f} s)"
    )
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            report = {"seed": args.seed, "deals": args.deals, "games": stats.seats}
            report |= {"against": args.against, "phase": args.phase}
            report |= {"win_share": share, "ci95": [low, high], "seconds": seconds}
            json.dump(report, handle, indent=2)
            handle.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
