#!/usr/bin/env python3
"""How far the hidden cards hold ``master`` back: the same search, told what its seat cannot see.

A diagnostic, not a player. ``master`` alone against three of one opponent,
at 4 players under the classic rules, every deal in all four seat rotations;
the variants change only what its search knows:

- ``master``: the level as shipped (the hoarder's plan while the pile lasts,
  then a search over sampled deals, each opponent played out in a style drawn
  from what his turns showed);
- ``hands``: every sample holds each opponent's true hand (only the pile's
  order is left to chance);
- ``styles``: each opponent is played out by his true policy (for ``expert``,
  the ``medium`` policy its own playouts use);
- ``whole``: the search decides every real choice of the game, not only once
  the pile is empty;
- ``doors`` and ``scale``: two inferences a fair player could make from the
  public history (``doors``: a blocker that lays a card of its own accord holds
  one of the three cards beyond it, so those cards weigh more in its hand,
  times :attr:`ReadingOracle.door_factor`; ``scale``: "he did not lay a card that fit, so he holds
  none" is believed only as much as he lays whatever he can);
- ``claims``: the ``doors`` reading kept whole: a sampled deal in which a
  seat holds none of the cards one of its lays claimed is drawn again, as
  likely as the reading takes that seat for a blocker (up to
  :data:`CLAIM_TRIES` draws a sample);
- ``hoarder``: the plain hoarder, no search, for reference.

Variants combine with ``+`` (``hands+styles+whole``). The win share is per
seat with a 95 % interval over deals; beside ``master`` on the same deals,
the paired difference.

    python -m benchmarks.engine.oracle --against blocker --variants master,hands,hands+styles --deals 200
    python -m benchmarks.engine.oracle --against expert --variants master,hands --deals 200 --json out.json

Deals and every player's seed follow from the deal's number alone, so runs
of parts (``--start``) add up to the same games.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from elferraus import Game, core
from elferraus.bots import make_bot
from elferraus.bots.base import Bot
from elferraus.bots.blocking import HoarderBot
from elferraus.bots.knowledge import Knowledge
from elferraus.bots.master import MasterBot
from elferraus.bots.search import Advice, SearchBot
from elferraus.bots.styles import WITH_HOARDER
from elferraus.moves import Move
from elferraus.rollout.simulation import POLICY_MEDIUM
from elferraus.view import SeatView

DEAL_SEED = 10_000
"""Deal ``d`` is ``Game.deal(players=4, seed=DEAL_SEED + d)``."""
PLAYOUT_POLICY = {**dict(zip(WITH_HOARDER.styles, WITH_HOARDER.policies, strict=True)), "expert": POLICY_MEDIUM}
"""The playout policy that plays each opponent as he plays (``expert``: the policy its own playouts use)."""
KNOWN = ("hands", "styles", "whole", "doors", "scale", "claims", "master", "hoarder")
CLAIM_TRIES = 20
"""``claims``: how many deals are drawn for one sample before the last one drawn is taken as it is."""
LEAD = 3
"""``blocker`` lays of its own accord only towards an own card at most two cards beyond: one of three."""
GREEDY, MEDIUM, BLOCKER, TIGHT = (
    WITH_HOARDER.styles.index(style) for style in ("greedy", "medium", "blocker", "tight-blocker")
)
"""The places of these styles in a reading's posterior (:data:`elferraus.bots.styles.WITH_HOARDER`)."""


def door_cards(rows: dict[int, tuple[int, int]], color: int, number: int) -> list[list[int]]:
    """For a lay of ``color`` ``number`` on ``rows``: per door it opens, the next :data:`LEAD` cards beyond it."""
    if number == 11 and color not in rows:
        doors = ((10, -1), (12, 1))
    else:
        step = -1 if number < 11 else 1
        doors = ((number + step, step),)
    return [
        [color * 20 + number - 1 for number in range(start, start + step * LEAD, step) if 1 <= number <= 20]
        for start, step in doors
    ]


def open_door_claims(view: SeatView) -> list[list[list[int]]]:
    """Per seat, the card sets of which it held one when it laid of its own accord (while the pile lasted), not
    yet explained by a later lay of one of them; cards another seat laid since are left out."""
    players = view.players
    pile = view.pile + sum(1 for text in view.moves if text.split()[1] == "draw")
    rows: dict[int, tuple[int, int]] = {}
    claims: list[list[list[int]]] = [[] for _ in range(players)]
    for text in view.moves:
        seat_text, action, *_ = text.split()
        if action == "draw":
            pile -= 1
            continue
        if action == "pass":
            continue
        seat, color, number = int(seat_text), "RYGB".index(action[0]), int(action[1:])
        card = color * 20 + number - 1
        for holder in range(players):
            if holder == seat:  # his lay of a claimed card explains the claim
                claims[holder] = [cards for cards in claims[holder] if card not in cards]
            else:  # he never held a card somebody else laid
                left = ([c for c in cards if c != card] for cards in claims[holder])
                claims[holder] = [cards for cards in left if cards]
        if seat != view.seat and pile > 0 and rows:
            claims[seat].extend(cards for cards in door_cards(rows, color, number) if cards)
        row = rows.get(color)
        rows[color] = (number, number) if row is None else (min(row[0], number), max(row[1], number))
    return claims


class ReadingOracle(MasterBot):
    """``master`` told what the variant names (see the module's docstring); ``game`` is the true game."""

    door_factor = 10.0

    def __init__(self, seed: int, game: Game, knows: frozenset[str], policy: int) -> None:
        super().__init__(seed)
        self.game = game
        self.knows = knows
        self.policy = policy

    def advise(self, view: SeatView) -> Advice:
        if "whole" in self.knows:
            return SearchBot.advise(self, view)
        return super().advise(view)

    def _arguments(self, view: SeatView, knowledge: Knowledge) -> dict[str, Any]:
        arguments = MasterBot._arguments(view, knowledge)
        weights: list[tuple[float, ...] | None] = list(arguments["weights"])
        if "hands" in self.knows:
            for seat in range(view.players):
                if seat != view.seat:
                    held = {card.index for card in self.game.hand(seat)}
                    weights[seat] = tuple(1.0 if card in held else 0.0 for card in range(80))
        elif self.knows & {"doors", "scale"} and self._tracker is not None:
            styles = self.reading.read(self._tracker, view.rules.must_play)
            claims = open_door_claims(view)
            for seat, chances in enumerate(styles):
                if chances is None:
                    continue
                row = list(weights[seat] or (1.0,) * 80)
                if "scale" in self.knows:
                    lays_all = chances[GREEDY] + chances[MEDIUM]
                    row = [1.0 - lays_all * (1.0 - weight) for weight in row]
                if "doors" in self.knows:
                    blocks = chances[BLOCKER] + chances[TIGHT]
                    for cards in claims[seat]:
                        live = [card for card in cards if knowledge.unknown >> card & 1]
                        for card in live:
                            row[card] *= 1.0 + blocks * self.door_factor * LEAD / len(live)
                weights[seat] = tuple(row)
        arguments["weights"] = tuple(weights)
        return arguments

    def _best_by_search(self, view: SeatView, knowledge: Knowledge, heuristic: Move) -> Advice:
        if "claims" not in self.knows or self._tracker is None:
            return super()._best_by_search(view, knowledge, heuristic)
        styles = self.reading.read(self._tracker, view.rules.must_play)
        claims = open_door_claims(view)
        belief = [0.0 if chances is None else chances[BLOCKER] + chances[TIGHT] for chances in styles]
        fair = self._search_rounds
        sample = core.sampling_function()

        def rounds(*, candidates: Any, schedule: Any, **arguments: Any) -> list[tuple[int, ...]]:
            outcomes: list[tuple[int, ...]] = []
            for policies, seed in schedule:
                chooser = random.Random(seed)
                for _ in range(CLAIM_TRIES):
                    ((hands, _pile, _playout),) = sample(
                        seat=arguments["seat"],
                        hand=arguments["hand"],
                        counts=arguments["counts"],
                        pile_count=arguments["pile_count"],
                        unknown=arguments["unknown"],
                        weights=arguments["weights"],
                        samples=1,
                        seed=chooser.getrandbits(64),
                    )
                    if all(
                        all(any(hands[seat] >> card & 1 for card in cards) for cards in claims[seat])
                        or chooser.random() >= belief[seat]
                        for seat in range(view.players)
                        if seat != view.seat
                    ):
                        break
                pinned = tuple(
                    None if seat == view.seat else tuple(float(hands[seat] >> card & 1) for card in range(80))
                    for seat in range(view.players)
                )
                outcomes.extend(
                    fair(candidates=candidates, schedule=[(policies, seed)], **{**arguments, "weights": pinned})
                )
            return outcomes

        self._search_rounds = rounds
        try:
            return super()._best_by_search(view, knowledge, heuristic)
        finally:
            self._search_rounds = fair

    def _opponent_models(self, view: SeatView) -> tuple[int, ...]:
        if "styles" not in self.knows:
            return super()._opponent_models(view)
        return tuple(self.own_policy if seat == view.seat else self.policy for seat in range(view.players))


def hero(variant: str, seed: int, game: Game, against: str) -> Bot:
    """The player of ``variant`` for one game."""
    if variant == "master":
        return MasterBot(seed)
    if variant == "hoarder":
        return HoarderBot(seed)
    knows = frozenset(variant.split("+"))
    if "styles" in knows and against not in PLAYOUT_POLICY:
        raise SystemExit(f"oracle: no playout policy plays {against!r} (known: {', '.join(PLAYOUT_POLICY)})")
    return ReadingOracle(seed, game, knows, PLAYOUT_POLICY.get(against, POLICY_MEDIUM))


def play_deal(variant: str, against: str, deal: int) -> int:
    """Games the hero won of the deal's four rotations."""
    won = 0
    for rotation in range(4):
        game = Game.deal(players=4, seed=DEAL_SEED + deal)
        players = {
            seat: hero(variant, deal * 4 + rotation, game, against)
            if seat == rotation
            else make_bot(against, deal * 4 + rotation * 7 + seat)
            for seat in range(4)
        }
        for seat, player in players.items():
            player.start_game(seat, 4, game.rules)
        while not game.is_over():
            seat = game.turn
            game.push(players[seat].choose(game.view(seat)))
        won += game.winner == rotation
    return won


def interval(values: Sequence[float]) -> tuple[float, float, float]:
    """Mean and 95 % interval, deals as the unit (normal approximation)."""
    mean = statistics.fmean(values)
    half = 1.96 * statistics.pstdev(values) / len(values) ** 0.5
    return mean, mean - half, mean + half


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--against", required=True, help="the three opponents' level (any player name)")
    parser.add_argument("--variants", default="master,hands,hands+styles", help="comma-separated, see the docstring")
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--start", type=int, default=0, help="the first deal's number")
    parser.add_argument("--json", type=Path, help="append one JSON object per variant to this file")
    args = parser.parse_args(argv)
    variants = args.variants.split(",")
    for variant in variants:
        unknown = set(variant.split("+")) - set(KNOWN)
        if unknown:
            parser.error(f"unknown variant part {sorted(unknown)} in {variant!r}; known: {', '.join(KNOWN)}")
    results: dict[str, list[int]] = {}
    for variant in variants:
        started = time.perf_counter()
        wins = [play_deal(variant, args.against, deal) for deal in range(args.start, args.start + args.deals)]
        results[variant] = wins
        share, low, high = interval([won / 4 for won in wins])
        line = f"{variant:24} vs 3 {args.against}: {100 * share:5.1f} % ({100 * low:.1f}-{100 * high:.1f})"
        record: dict[str, Any] = {
            "variant": variant,
            "against": args.against,
            "start": args.start,
            "deals": args.deals,
            "share": round(share, 4),
            "interval": [round(low, 4), round(high, 4)],
            "wins_per_deal": wins,
            "seconds": round(time.perf_counter() - started),
        }
        if "master" in results and variant != "master":
            diff, dlow, dhigh = interval([(a - b) / 4 for a, b in zip(wins, results["master"], strict=True)])
            line += f", beside master {100 * diff:+.1f} ({100 * dlow:+.1f} to {100 * dhigh:+.1f})"
            record["beside_master"] = [round(diff, 4), round(dlow, 4), round(dhigh, 4)]
        print(line, flush=True)
        if args.json:
            with args.json.open("a", encoding="utf-8") as out:
                out.write(json.dumps(record) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
