#!/usr/bin/env python3
"""Screens against three of one player: what beats the ``hoarder``, and what ``master`` wins.

One player in one seat against three of another, 4 players, classic rules,
game g dealt from seed ``1000 + g`` with the player in seat ``g mod 4``
(the same deals for every player screened). Besides the built-in players it
seats the hand-written plans of docs/research.md ("Why the hoarder is hard
to beat"), which live here because they are measuring devices, not players:

- ``hoard-then-medium``: the hoarder while the pile lasts, then ``medium``'s
  whole turns (several cards a turn);
- ``hoard-then-greedy``: the hoarder, then whatever fits;
- ``hoard-then-chain``: the hoarder, then every card that fits, medium's
  best first;
- ``hoard-free``: lays the cards that open nothing while the pile lasts
  (medium's score of a free lay), else the hoarder;
- ``search-as-hoarders``: the reading search with every seat played out as a
  hoarder and no default move; ``search-as-hoarders-default``: the same,
  keeping the hoarder's move unless the search wins 10 % more often;
- ``learned``: the first learned player (``python -m elferraus.envs.learned``), in this process.

    python -m benchmarks.engine.hoarder_screens --player master --against hoarder --games 400
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import statistics
import sys
import time
from collections.abc import Callable

from elferraus.bots import Bot, HoarderBot, make_bot
from elferraus.bots.baseline import GreedyBot
from elferraus.bots.knowledge import Knowledge, Tracker
from elferraus.bots.medium import lay_score
from elferraus.bots.search import ReadingExpertBot
from elferraus.bots.turns import play_turns, seat_seed, start_players
from elferraus.envs.learned import SHIPPED as LEARNED
from elferraus.envs.learned import LearnedBot, Network
from elferraus.game import Game
from elferraus.moves import PASS, Move
from elferraus.rollout import POLICY_HOARDER
from elferraus.view import SeatView


class HoardThenMedium(HoarderBot):
    def choose(self, view: SeatView) -> Move:
        return self._medium.choose(view) if not view.pile else super().choose(view)


class HoardThenGreedy(HoarderBot):
    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self._greedy = GreedyBot(seed)

    def choose(self, view: SeatView) -> Move:
        return self._greedy.choose(view) if not view.pile else super().choose(view)


def _best_lay(bot: HoarderBot, view: SeatView, lays: list[Move]) -> tuple[float, Move]:
    medium = bot._medium
    medium._tracker = Tracker.following(view, medium._tracker)
    knowledge = Knowledge.of(view, medium._tracker)
    weight = medium._release_weight(view)
    return max(((lay_score(knowledge, move.code, weight), move) for move in lays), key=lambda t: (t[0], -t[1].code))


class HoardThenChain(HoarderBot):
    def choose(self, view: SeatView) -> Move:
        lays = [move for move in view.legal if move.card is not None]
        if not view.pile and lays:
            return _best_lay(self, view, lays)[1]
        return super().choose(view)


class HoardFree(HoarderBot):
    threshold = 1.4
    """medium's score of a lay that opens nothing (1 for the card, 0.5 for opening nothing)."""

    def choose(self, view: SeatView) -> Move:
        lays = [move for move in view.legal if move.card is not None]
        if len(view.legal) > 1 and lays and view.pile and not view.draws:
            score, best = _best_lay(self, view, lays)
            if score >= self.threshold:
                return best
            if view.laid:
                return PASS
        return super().choose(view)


class SearchAsHoarders(ReadingExpertBot):
    max_samples = 1000

    def _opponent_models(self, view: SeatView) -> tuple[int, ...]:
        return (POLICY_HOARDER,) * view.players

    def _default_move(self, view: SeatView) -> Move | None:
        return None


class SearchAsHoardersDefault(SearchAsHoarders):
    max_samples = 4000

    def _default_move(self, view: SeatView) -> Move | None:
        return self._hoarder.choose(view)


def learned(seed: int) -> Bot:
    """The first learned player (``python -m elferraus.envs.learned``), in this process."""
    return LearnedBot(shipped_learned_network(), seed)


@functools.cache
def shipped_learned_network() -> Network:
    return Network.load(LEARNED)


PLANS: dict[str, Callable[[int], Bot]] = {
    "hoard-then-medium": HoardThenMedium,
    "hoard-then-greedy": HoardThenGreedy,
    "hoard-then-chain": HoardThenChain,
    "hoard-free": HoardFree,
    "search-as-hoarders": SearchAsHoarders,
    "search-as-hoarders-default": SearchAsHoardersDefault,
    "learned": learned,
}


def player(name: str, seed: int) -> Bot:
    factory = PLANS.get(name)
    return factory(seed) if factory is not None else make_bot(name, seed)


def screen(name: str, against: str, games: int, players: int = 4) -> dict[str, object]:
    wins = 0
    times: list[float] = []
    started = time.perf_counter()
    for g in range(games):
        seed = 1000 + g
        game = Game.deal(players=players, seed=seed)
        hero = g % players
        seats = {s: player(name if s == hero else against, seat_seed(seed, s)) for s in range(players)}
        start_players(seats, game)

        def timed(seat: int, _move: Move, thought: float, hero: int = hero) -> None:
            if seat == hero:
                times.append(thought)

        play_turns(game, seats, timed)
        wins += game.winner == hero
    share = wins / games
    half = 1.959963984540054 * math.sqrt(share * (1 - share) / games)
    return {
        "player": name,
        "against": against,
        "games": games,
        "wins": wins,
        "win_share": share,
        "ci95_half": half,
        "decision_p95_ms": 1000 * statistics.quantiles(times, n=20)[-1] if len(times) > 1 else 0.0,
        "seconds": time.perf_counter() - started,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--player", required=True, help="a player's name or one of the plans here")
    parser.add_argument("--against", default="hoarder")
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--json", help="append the result here as a JSON line")
    args = parser.parse_args(argv)
    result = screen(args.player, args.against, args.games)
    print(
        f"{args.player} vs 3 {args.against}: {100 * result['win_share']:.1f} % ± {100 * result['ci95_half']:.1f}"  # type: ignore[operator]
        f" ({result['wins']}/{args.games}), decision p95 {result['decision_p95_ms']:.0f} ms"
    )
    if args.json:
        with open(args.json, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(result) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
