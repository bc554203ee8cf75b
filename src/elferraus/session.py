"""A table of people and computer players playing a match together.

This is the model a front end drives: who sits where, the match and its
current game, the computer players (each fed only its seat's view), taking
back a person's turn, asking the ``expert`` for a hint, and saving a game to
an ``elferraus/1`` record that can be resumed later.

>>> table = Table(TableSetup(seats=(Seat("Anna"), Seat("Computer", "greedy")), seed=3))
>>> game = table.game
>>> while not game.is_over():
...     seat = game.turn
...     game.push(table.computer_move() if not table.is_person(seat) else game.legal_moves()[0])
>>> table.finish_round()[game.winner]
0
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from elferraus.bots import BOTS, Advice, Bot, ExpertBot, make_bot
from elferraus.deal import derive_seed
from elferraus.errors import RecordError
from elferraus.game import Game
from elferraus.match import Match
from elferraus.moves import Move
from elferraus.record import read_record, write_record
from elferraus.rules import PRESETS, Rules

PERSON_LEVELS = ("human",)
"""How a record's ``bots`` list marks a seat played by a person (``null`` also does)."""


@dataclass(frozen=True)
class Seat:
    """One place at the table: a name, and the computer level (None for a person)."""

    name: str
    level: str | None = None

    def __post_init__(self) -> None:
        if self.level is not None and self.level not in BOTS:
            raise ValueError(f"unknown computer player {self.level!r}; choose one of {', '.join(BOTS)}")
        if not self.name.strip():
            raise ValueError("a seat needs a name")


@dataclass(frozen=True)
class TableSetup:
    """Everything chosen before the first deal.

    ``rounds`` = 1 is a single game; a match ends after ``rounds`` rounds, or
    once somebody's penalty total reaches ``target`` if that is set.
    """

    seats: tuple[Seat, ...]
    rules: str = "classic"
    rounds: int = 1
    target: int | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        if not 2 <= len(self.seats) <= 6:
            raise ValueError(f"a table has 2-6 seats, not {len(self.seats)}")
        if self.rules not in PRESETS:
            raise ValueError(f"unknown rules preset {self.rules!r}; choose one of {', '.join(PRESETS)}")
        if self.rounds < 1:
            raise ValueError(f"rounds must be at least 1, not {self.rounds}")


@dataclass
class Table:
    """A match at one table, one game at a time.

    Args:
        setup: the seats, rules and match length.
        match: a match already under way (when resuming), else a new one.
        game: the game of the current round (when resuming), else dealt now.
    """

    setup: TableSetup
    match: Match = field(init=False)
    game: Game = field(init=False)
    bots: dict[int, Bot] = field(init=False)
    _resume: tuple[Match, Game] | None = None

    def __post_init__(self) -> None:
        if self._resume is not None:
            self.match, self.game = self._resume
            self._resume = None
        else:
            rules = Rules.preset(self.setup.rules)
            self.match = Match(
                len(self.setup.seats), rules, rounds=self.setup.rounds, target=self.setup.target, seed=self.setup.seed
            )
            self.game = self._deal()
        self.bots = {
            seat: make_bot(spec.level, derive_seed(self.setup.seed, 1000 + seat))
            for seat, spec in enumerate(self.setup.seats)
            if spec.level is not None
        }
        self._start_bots()

    # -- who is who -----------------------------------------------------------

    @property
    def players(self) -> int:
        """Seats at the table."""
        return len(self.setup.seats)

    @property
    def names(self) -> list[str]:
        """Every seat's name."""
        return [seat.name for seat in self.setup.seats]

    @property
    def people(self) -> tuple[int, ...]:
        """The seats played by people."""
        return tuple(seat for seat, spec in enumerate(self.setup.seats) if spec.level is None)

    def is_person(self, seat: int) -> bool:
        """True if a person plays ``seat``."""
        return self.setup.seats[seat].level is None

    def person_to_move(self) -> bool:
        """True if the game is on and a person is to move."""
        return not self.game.is_over() and self.is_person(self.game.turn)

    # -- computer players -----------------------------------------------------

    def computer_move(self) -> Move:
        """The move the computer player to move chooses from its own view (not made yet).

        Raises:
            ValueError: a person is to move, or the game is over.
        """
        seat = self.game.turn
        if self.game.is_over() or self.is_person(seat):
            raise ValueError("no computer player is to move")
        return self.bots[seat].choose(self.game.view(seat))

    def hint(self, seed: int | None = None) -> Advice:
        """What the ``expert`` would do in the place of the person to move, and why.

        It sees that person's view only, like every computer player.
        """
        seat = self.game.turn
        bot = ExpertBot(seed if seed is not None else derive_seed(self.setup.seed, 5000 + self.game.move_count))
        bot.start_game(seat, self.players, self.game.rules)
        return bot.advise(self.game.view(seat))

    def _start_bots(self) -> None:
        for seat, bot in self.bots.items():
            bot.start_game(seat, self.players, self.game.rules)

    # -- taking back ----------------------------------------------------------

    def undo_target(self, seat: int) -> int | None:
        """How many moves would remain after ``seat`` takes back its last turn, or None if it cannot.

        Only a person alone with computers may take back: with two people at
        the table the other one's turn would vanish too. What is taken back is
        ``seat``'s latest turn in which it had a choice (the turn under way if
        it chose something in it), with everything after it. Turns without a
        choice (the opening 11, draws when nothing fits, an ending that was the
        only move) are skipped: taking back only those would replay them at once.
        """
        if self.people != (seat,) or self.game.is_over():
            return None
        history = self.game.history()
        choices = self._choice_counts()
        chose = False
        for index in range(len(history) - 1, 0, -1):
            mover = history[index][0]
            if mover != seat:
                chose = False
                continue
            chose = chose or choices[index] > 1
            if history[index - 1][0] != seat and chose:
                return index
        return None

    def _choice_counts(self) -> list[int]:
        """For every move so far, how many legal moves there were to choose from."""
        probe = self.game.copy()
        counts = [0] * probe.move_count
        for index in range(probe.move_count - 1, -1, -1):
            probe.pop()
            counts[index] = len(probe.legal_moves())
        return counts

    def undo(self, seat: int) -> int:
        """Take back ``seat``'s last turn (see :meth:`undo_target`); returns the number of moves taken back.

        Raises:
            ValueError: there is nothing ``seat`` may take back.
        """
        target = self.undo_target(seat)
        if target is None:
            raise ValueError("there is no turn of yours to take back")
        taken = 0
        while self.game.move_count > target:
            self.game.pop()
            taken += 1
        self._start_bots()  # their memory of the game is newer than the game now
        return taken

    # -- rounds ---------------------------------------------------------------

    def finish_round(self) -> list[int]:
        """Score the finished game in the match; returns its penalty points."""
        return self.match.finish_round(self.game)

    def next_round(self) -> Game:
        """Deal the match's next round.

        Raises:
            ValueError: the match is over.
        """
        self.game = self._deal()
        self._start_bots()
        return self.game

    def _deal(self) -> Game:
        scores = list(self.match.scores)
        game = self.match.new_round()
        game.metadata["names"] = self.names
        game.metadata["bots"] = [spec.level if spec.level is not None else "human" for spec in self.setup.seats]
        game.metadata["match"] = self._match_metadata(scores)
        return game

    def _match_metadata(self, scores: list[list[int]]) -> dict[str, Any]:
        return {
            "seed": self.setup.seed,
            "rounds": self.setup.rounds,
            "target": self.setup.target,
            "scores": [list(round_scores) for round_scores in scores],
        }

    @classmethod
    def resume(cls, setup: TableSetup, match: Match, game: Game) -> Table:
        """A table in the middle of ``match``, playing ``game`` (whose round ``match`` has not scored yet)."""
        if game.players != len(setup.seats) or match.players != game.players:
            raise ValueError("the setup, the match and the game must have the same number of players")
        return cls(setup, _resume=(match, game))

    # -- records --------------------------------------------------------------

    def record(self) -> dict[str, Any]:
        """The current game as an ``elferraus/1`` record, with what resuming needs under the extra keys
        ``names``, ``bots`` (a level, or ``"human"``) and ``match`` (seed, rounds, target, and the
        penalty points of the rounds before this one)."""
        return copy.deepcopy(write_record(self.game))  # a snapshot: later play must not change it

    @classmethod
    def from_record(cls, data: object) -> Table:
        """Resume the table of a saved record: its game, or the match's next round if that game is over.

        A record without ``names``/``bots`` (for example from ``elferraus
        simulate``) seats a person at seat 0 and ``medium`` players elsewhere.

        Raises:
            RecordError: the record is broken, or its extra keys are.
        """
        game = read_record(data)
        metadata = game.metadata
        seats = tuple(
            Seat(name, level)
            for name, level in zip(_names(metadata, game.players), _levels(metadata, game.players), strict=True)
        )
        info = metadata.get("match")
        if info is None:
            info = {"seed": metadata.get("seed", 0), "rounds": 1, "target": None, "scores": []}
        try:
            seed, rounds, target, scores = _match_fields(info, game.players)
            preset = game.rules.preset_name
            setup = TableSetup(seats, preset if preset is not None else "classic", rounds, target, seed)
            scores = [list(row) for row in scores]  # the match's own list, not the record's
            match = Match(game.players, game.rules, rounds=rounds, target=target, seed=seed, scores=scores)
        except (TypeError, ValueError, KeyError) as error:
            raise RecordError(f"the record's match information is broken: {error}") from None
        if match.is_over():
            raise RecordError("the record's match is already over: there is nothing to resume")
        table = cls.resume(setup, match, game)
        if game.is_over():
            table.finish_round()
            if table.match.is_over():
                raise RecordError("this game is finished and so is its match: there is nothing to resume")
            table.next_round()
        return table


def _names(metadata: Mapping[str, Any], players: int) -> list[str]:
    names = metadata.get("names")
    if names is None:
        return [f"Player {seat + 1}" for seat in range(players)]
    if not isinstance(names, list) or len(names) != players or not all(isinstance(n, str) and n for n in names):
        raise RecordError(f"'names' must be a list of {players} non-empty names, not {names!r}")
    return names


def _levels(metadata: Mapping[str, Any], players: int) -> list[str | None]:
    levels = metadata.get("bots")
    if levels is None:
        return [None] + ["medium"] * (players - 1)
    if not isinstance(levels, list) or len(levels) != players:
        raise RecordError(f"'bots' must be a list of {players} levels, not {levels!r}")
    result: list[str | None] = []
    for seat, level in enumerate(levels):
        if level is None or level in PERSON_LEVELS:
            result.append(None)
        elif isinstance(level, str) and level in BOTS:
            result.append(level)
        else:
            raise RecordError(f"'bots' seat {seat}: unknown level {level!r}; use 'human' or one of {', '.join(BOTS)}")
    return result


def _match_fields(info: object, players: int) -> tuple[int, int, int | None, list[list[int]]]:
    if not isinstance(info, dict):
        raise TypeError(f"'match' must be an object, not {info!r}")
    seed, rounds, target, scores = info["seed"], info["rounds"], info.get("target"), info["scores"]
    if not isinstance(seed, int) or not isinstance(rounds, int) or not (target is None or isinstance(target, int)):
        raise TypeError("'seed' and 'rounds' must be integers, 'target' an integer or null")
    if not isinstance(scores, list) or not all(
        isinstance(row, list) and len(row) == players and all(isinstance(n, int) and n >= 0 for n in row)
        for row in scores
    ):
        raise TypeError(f"'scores' must be a list of rounds of {players} penalty counts")
    return seed, rounds, target, scores
