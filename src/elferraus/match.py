"""Match play: several rounds, penalty points, the lowest total wins."""

from __future__ import annotations

from dataclasses import dataclass, field

from elferraus.deal import derive_seed
from elferraus.game import Game
from elferraus.rules import Rules


@dataclass
class Match:
    """A match over rounds: after each round every loser scores the numbers
    left in his hand; the match ends after ``rounds`` rounds or once a total
    reaches ``target``, whichever is set and comes first.

    >>> match = Match(players=3, rounds=2, seed=4)
    >>> game = match.new_round()
    >>> game.players
    3
    """

    players: int
    rules: Rules = field(default_factory=Rules)
    rounds: int | None = None
    target: int | None = None
    seed: int = 0
    scores: list[list[int]] = field(default_factory=list)
    """Penalty points of each finished round, per seat."""

    def __post_init__(self) -> None:
        if self.rounds is None and self.target is None:
            raise ValueError("a match needs a number of rounds, a target score, or both")
        if self.rounds is not None and self.rounds < 1:
            raise ValueError(f"rounds must be at least 1, not {self.rounds}")
        if self.target is not None and self.target < 1:
            raise ValueError(f"target must be at least 1, not {self.target}")
        self.rules.cards_per_player(self.players)

    @property
    def totals(self) -> list[int]:
        """Each seat's penalty total so far."""
        return [sum(round_scores[seat] for round_scores in self.scores) for seat in range(self.players)]

    def is_over(self) -> bool:
        """True once the round limit or the target total is reached."""
        if self.rounds is not None and len(self.scores) >= self.rounds:
            return True
        return self.target is not None and any(total >= self.target for total in self.totals)

    def new_round(self) -> Game:
        """Deal the next round (seeded from the match seed and the round number).

        Raises:
            ValueError: the match is over.
        """
        if self.is_over():
            raise ValueError("the match is over")
        game = Game.deal(self.players, self.round_seed(len(self.scores)), self.rules)
        game.metadata["round"] = len(self.scores) + 1
        return game

    def round_seed(self, index: int) -> int:
        """The seed that deals round ``index`` (counted from 0)."""
        return derive_seed(self.seed, index)

    def finish_round(self, game: Game) -> list[int]:
        """Score a finished round and return its penalty points.

        Raises:
            ValueError: the game is not over or has another table size.
        """
        if not game.is_over():
            raise ValueError("the round is not over yet")
        if game.players != self.players:
            raise ValueError(f"this match has {self.players} players, the game {game.players}")
        if self.is_over():
            raise ValueError("the match is over")
        penalties = game.penalties()
        self.scores.append(penalties)
        return penalties

    def leaders(self) -> list[int]:
        """The seat(s) with the lowest total (the winners once the match is over)."""
        totals = self.totals
        best = min(totals)
        return [seat for seat, total in enumerate(totals) if total == best]
