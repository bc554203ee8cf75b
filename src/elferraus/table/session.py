"""The turn driver: a table of people and computer players playing a match.

Every front end (the terminal game, the plain prompt, the web rooms) drives a
:class:`Table` and makes no move itself. The table says what happens next
(:meth:`Table.next_step`: a person chooses, a computer thinks, a move is made
for a person, the round or the match is over), takes a person's move, lets
the computers choose from their own views (:meth:`Table.think`, the one loop
:func:`elferraus.bots.play_turns` when nobody waits to watch), scores each
finished round itself, seeds every computer player by one rule
(:func:`elferraus.bots.seat_seed`), takes back turns, gives hints, and saves
and resumes a match as ``elferraus/1`` records.

A front end's loop is only about time and what to show: it asks for the next
step and does what it says, at its own pace.

>>> table = Table(TableSetup(seats=(Seat("Anna"), Seat("Computer", "greedy")), seed=3))
>>> while (step := table.next_step()).kind not in ("round_over", "match_over"):
...     if step.kind == "ask":
...         table.play(table.game.legal_moves()[0], seat=step.seat)
...     else:
...         table.play(step.move or table.think())
>>> step.kind, table.match.scores[-1][table.game.winner]
('match_over', 0)
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from elferraus.bots import Advice, Bot, MasterBot, hint_seed, make_bot, play_turns, seat_seed
from elferraus.errors import RecordError
from elferraus.game import Game
from elferraus.match import Match
from elferraus.moves import DRAW, Move
from elferraus.record import write_record
from elferraus.rules import Rules
from elferraus.table.saving import setup_of_record
from elferraus.table.seating import Seat, TableSetup
from elferraus.table.words import Message, made_for_done
from elferraus.view import SeatView

STAND_IN = "medium"
"""The computer that plays for a person who is away (see :meth:`Table.stand_in`)."""


class TurnError(ValueError):
    """A move offered by a seat that is not to move, or after the game is over."""


StepKind = Literal["ask", "think", "made_for_person", "round_over", "match_over"]
"""What happens next at a table (see :meth:`Table.next_step`)."""


@dataclass(frozen=True)
class Step:
    """What happens next at a table: its kind, the seat it concerns, and the move made for a person."""

    kind: StepKind
    seat: int | None
    """The seat to move (None once the game is over)."""
    move: Move | None = None
    """With ``made_for_person``: the person's only legal move, which the table makes for him."""


@dataclass(frozen=True)
class Preview:
    """What a move would do, worked out before it is made (so a server can store it first)."""

    number: int
    """The move's index in the game."""
    text: str
    """The move as the record writes it (``"2 R12"``, ``"0 draw Y5"``)."""
    result: dict[str, Any] | None
    """The game's result if the move ends it: ``winner`` and ``penalties``."""
    match_over: bool
    """The move ends the last round of the match."""


@dataclass
class Table:
    """A match at one table, one game at a time.

    Args:
        setup: the seats, rules and match length.
    """

    setup: TableSetup
    match: Match = field(init=False)
    game: Game = field(init=False)
    bots: dict[int, Bot] = field(init=False)
    """The computer playing each seat now: the computers' seats, and the stand-ins of people away."""
    finished: list[dict[str, Any]] = field(init=False)
    """The records of the match's rounds played to the end, oldest first."""
    away: set[int] = field(init=False)
    """People's seats a stand-in computer plays for now."""
    _resume: tuple[Match, Game] | None = None
    _counted: tuple[Game | None, list[int]] = field(default_factory=lambda: (None, []), init=False, repr=False)
    _scored: Game | None = field(default=None, init=False, repr=False)
    """The game last scored in the match (each game is scored once)."""
    """The game whose moves :meth:`_choice_counts` has counted, and the counts."""

    def __post_init__(self) -> None:
        self.finished = []
        self.away = set()
        if self._resume is not None:
            self.match, self.game = self._resume
            self._resume = None
        else:
            rules = Rules.preset(self.setup.rules)
            self.match = Match(
                len(self.setup.seats), rules, rounds=self.setup.rounds, target=self.setup.target, seed=self.setup.seed
            )
            self.game = self._deal()
        self._game_seed = self.match.round_seed(len(self.match.scores))
        self._seat_computers()

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

    @property
    def game_seed(self) -> int:
        """The seed the current game was dealt from (the computers are seeded from it)."""
        return self._game_seed

    def is_person(self, seat: int) -> bool:
        """True if a person plays ``seat`` (also while a stand-in plays for him)."""
        return self.setup.seats[seat].level is None

    def person_to_move(self) -> bool:
        """True if the game is on and a person is to move."""
        return not self.game.is_over() and self.is_person(self.game.turn)

    # -- the turn -------------------------------------------------------------

    def next_step(self) -> Step:
        """What happens next at the table; every front end asks this and does what it says.

        ``ask``: the person at ``seat`` chooses (his move goes to :meth:`play`);
        ``think``: the computer player at ``seat`` (or a person's stand-in) is to
        choose: :meth:`think`, then :meth:`play`; ``made_for_person``: the person
        at ``seat`` has one legal move only, ``move``, which the table makes for
        him (:meth:`play` it, at the front end's pace); ``round_over`` and
        ``match_over``: the game is over and already scored in the match.
        """
        self._score_if_over()
        if self.game.is_over():
            return Step("match_over" if self.match.is_over() else "round_over", None)
        seat = self.game.turn
        if seat in self.bots:
            return Step("think", seat)
        legal = self.game.legal_moves()
        if len(legal) == 1:
            return Step("made_for_person", seat, legal[0])
        return Step("ask", seat)

    def made_for_person(self) -> Move | None:
        """The move the table makes for the person to move because it is his only legal one, or None.

        The one rule of every front end (``docs/rules.md``): when a person has
        exactly one legal move (lay the 11 he must open with, draw when nothing
        fits, end the turn when nothing else is left), it is made for him.
        """
        step = self.next_step()
        return step.move if step.kind == "made_for_person" else None

    def think(self) -> Move:
        """The move the computer player to move chooses from its own view (not made yet: :meth:`play` it).

        A search player may take a while: a front end with a screen to keep alive calls this from a thread.

        Raises:
            TurnError: a person is to move, or the game is over.
        """
        player, view = self.computer_to_move()
        return player.choose(view)

    def computer_to_move(self) -> tuple[Bot, SeatView]:
        """The computer player to move and its own view: what :meth:`think` asks, for a front end that lets it
        choose elsewhere (the web server's thinker processes) and then makes its move with :meth:`play`.

        Raises:
            TurnError: a person is to move, or the game is over.
        """
        if self.game.is_over() or self.game.turn not in self.bots:
            raise TurnError("no computer player is to move")
        return self.bots[self.game.turn], self.game.view(self.game.turn)

    def play(self, move: Move, seat: int | None = None) -> None:
        """Make ``move`` for the seat to move (``seat``, if given, must be that seat); a move that ends the
        game scores the round in the match.

        Raises:
            TurnError: the game is over, or ``seat`` is not to move.
            IllegalMoveError: the rules do not allow the move now (with its reason).
        """
        self._check_turn(seat)
        self.game.push(move)
        self._score_if_over()

    def preview(self, move: Move, seat: int | None = None) -> Preview:
        """What :meth:`play` would do with ``move``, without doing it.

        Raises:
            TurnError, IllegalMoveError: as :meth:`play` would.
        """
        self._check_turn(seat)
        trial = self.game.copy()
        trial.push(move)
        number = trial.move_count - 1
        if not trial.is_over():
            return Preview(number, trial.record_moves()[number], None, match_over=False)
        match = copy.deepcopy(self.match)
        match.finish_round(trial)
        result = {"winner": trial.winner, "penalties": trial.penalties()}
        return Preview(number, trial.record_moves()[number], result, match_over=match.is_over())

    def _check_turn(self, seat: int | None) -> None:
        if self.game.is_over():
            raise TurnError("the game is over")
        if seat is not None and seat != self.game.turn:
            raise TurnError(f"seat {seat} is not to move; seat {self.game.turn} is")

    def play_automatic(self, on_move: Callable[[int, Move], None] | None = None) -> int:
        """Play on by itself (the computers' turns, and the moves made for people) until a person must choose or
        the game is over; returns how many moves it made. ``on_move(seat, move)`` is told of each (to show it).

        For a front end with no pace of its own (the plain prompt, the tests); the screens pace each
        :meth:`next_step` themselves.
        """
        made = 0
        while True:
            step = self.next_step()
            if step.kind == "think":
                told = None if on_move is None else (lambda seat, move, thought: on_move(seat, move))
                made += play_turns(self.game, self.bots, told)
            elif step.kind == "made_for_person":
                assert step.seat is not None
                assert step.move is not None
                self.play(step.move)
                made += 1
                if on_move is not None:
                    on_move(step.seat, step.move)
            else:
                return made

    def last_made_for(self, seat: int) -> Move | None:
        """The move made for ``seat`` by the rule of :meth:`made_for_person` that ended its latest turn.

        None if ``seat`` chose its latest move itself, has not moved yet, or is
        choosing now (a front end shows the note until the person has a choice again).
        """
        found = self._last_made_for(seat)
        return None if found is None else found[1]

    def made_for_note(self, seat: int) -> Message | None:
        """The words of :meth:`last_made_for` (``words.made_for_done``: the reason, then the move), from
        ``seat``'s own views just before and just after it; None when there is no such move."""
        found = self._last_made_for(seat)
        if found is None:
            return None
        index, move = found
        probe = self.game.copy()
        while probe.move_count > index + 1:
            probe.pop()
        after = probe.view(seat)
        probe.pop()
        return made_for_done(probe.view(seat), move, after)

    def _last_made_for(self, seat: int) -> tuple[int, Move] | None:
        step = self.next_step()
        if (step.kind == "ask" and step.seat == seat) or not self.is_person(seat):
            return None
        for index in range(self.game.move_count - 1, -1, -1):
            mover, move = self.game.moved(index)
            if mover == seat:
                return (index, move) if self._choice_counts()[index] == 1 else None
        return None

    # -- computer players -----------------------------------------------------

    def _seat_computers(self) -> None:
        """A fresh computer for every computer seat and every person away, seeded by the one rule."""
        self.bots = {}
        for seat, spec in enumerate(self.setup.seats):
            level = spec.level if spec.level is not None else STAND_IN if seat in self.away else None
            if level is not None:
                self.bots[seat] = self._computer(level, seat)

    def _computer(self, level: str, seat: int) -> Bot:
        bot = make_bot(level, seat_seed(self._game_seed, seat))
        bot.start_game(seat, self.players, self.game.rules)
        return bot

    def stand_in(self, seat: int) -> None:
        """A computer (``STAND_IN``) plays for the person at ``seat`` until :meth:`come_back`."""
        if not self.is_person(seat):
            raise ValueError(f"seat {seat} is a computer's")
        if seat not in self.away:
            self.away.add(seat)
            self.bots[seat] = self._computer(STAND_IN, seat)

    def come_back(self, seat: int) -> None:
        """The person at ``seat`` plays again himself."""
        self.away.discard(seat)
        if self.is_person(seat):
            self.bots.pop(seat, None)

    def hint(self, seed: int | None = None) -> Advice:
        """What ``master``, the strongest level, would do in the place of the person to move, and why.

        It sees that person's view only, like every computer player.
        """
        seat = self.game.turn
        bot = MasterBot(seed if seed is not None else self.hint_seed())
        bot.start_game(seat, self.players, self.game.rules)
        return bot.advise(self.game.view(seat))

    def hint_seed(self) -> int:
        """The seed of :meth:`hint`'s ``master`` now: the same position of the same deal gets the same hint,
        wherever it is thought (a web server asks it of a thinker process with the mover's view)."""
        return hint_seed(self._game_seed, self.game.move_count)

    # -- taking back ----------------------------------------------------------

    def undo_target(self, seat: int) -> int | None:
        """How many moves would remain after ``seat`` takes back its last turn, or None if it cannot.

        Only a person alone with computers may take back: with two people at
        the table the other one's turn would vanish too. What is taken back is
        ``seat``'s latest turn in which it had a choice (the turn under way if
        it chose something in it), with everything after it. Turns without a
        choice (the opening 11, draws when nothing fits, an ending that was the
        only move) are skipped: taking back only those would replay them at once.

        A drawn card is never put back on the pile, as at a real table: nothing
        before the latest draw (anybody's) is taken back. The cards drawn have
        been seen (by the person, or through what a computer then did or did
        not lay), so putting them back would let the person look ahead. A turn
        in which ``seat`` drew is taken back only to just after its draw (for
        example, the drawn card laid becomes the drawn card held again); the
        pile stays as it is, and the next draw shows the card that would have
        come anyway. Undo leaves no trace in the record: the game is the moves
        that stand, a valid ``elferraus/1`` record like any other.
        """
        if self.people != (seat,) or self.game.is_over() or seat in self.away:
            return None
        return self._undo_target(seat)[0]

    def undo_refusal(self, seat: int) -> str | None:
        """Why ``seat`` cannot take back now, as a message key, or None if it can (see :meth:`undo_target`).

        ``undo_people``: another person (or nobody) plays here, the seat is
        away, or the game is over; ``undo_drawn``: the turn to take back lies
        before a draw; ``undo_none``: there is no turn of the seat's with a choice.
        """
        if self.people != (seat,) or self.game.is_over() or seat in self.away:
            return "undo_people" if self.people != (seat,) else "undo_none"
        target, drawn = self._undo_target(seat)
        if target is not None:
            return None
        return "undo_drawn" if drawn else "undo_none"

    def _undo_target(self, seat: int) -> tuple[int | None, bool]:
        """The target of :meth:`undo_target`, and whether a draw stopped the search for it."""
        choices = self._choice_counts()
        chose = False
        for index in range(self.game.move_count - 1, -1, -1):
            mover, move = self.game.moved(index)
            if move == DRAW:  # a drawn card stays drawn: take back to just after it, or nothing
                return (index + 1 if chose and mover == seat else None), True
            if mover != seat:
                chose = False
                continue
            chose = chose or choices[index] > 1
            # a turn starts after another seat's move, or with the game (the opening turn, once he chose in it)
            if chose and (index == 0 or self.game.moved(index - 1)[0] != seat):
                return index, False
        return None, False

    def _choice_counts(self) -> list[int]:
        """For every move so far, how many legal moves there were to choose from.

        Kept while the game grows (the server asks on every change), counted only for the moves
        made since; :meth:`undo` forgets them.
        """
        game, counts = self._counted
        if game is not self.game:
            counts = []
            self._counted = (self.game, counts)
        del counts[self.game.move_count :]
        missing = self.game.move_count - len(counts)
        if missing:
            probe = self.game.copy()
            tail = []
            for _ in range(missing):
                probe.pop()
                tail.append(len(probe.legal_moves()))
            counts.extend(reversed(tail))
        return counts

    def undo(self, seat: int) -> int:
        """Take back ``seat``'s last turn (see :meth:`undo_target`); returns the number of moves taken back.

        The computers start afresh, seeded as at the deal: they keep no memory
        of the moves taken back.

        Raises:
            ValueError: there is nothing ``seat`` may take back.
        """
        target = self.undo_target(seat)
        if target is None:
            if self.undo_refusal(seat) == "undo_drawn":
                raise ValueError("a drawn card does not go back on the pile: there is nothing to take back since")
            raise ValueError("there is no turn of yours to take back")
        taken = 0
        while self.game.move_count > target:
            self.game.pop()
            taken += 1
        self._counted = (None, [])
        self._seat_computers()
        return taken

    # -- rounds ---------------------------------------------------------------

    def finish_round(self) -> list[int]:
        """The finished game's penalty points, scored in the match (once: :meth:`play` and :meth:`next_step`
        score a game that is over by themselves). Its record joins :attr:`finished`.

        Raises:
            ValueError: the game is not over.
        """
        if not self.game.is_over():
            raise ValueError("the game is not over")
        self._score_if_over()
        return list(self.match.scores[-1])

    def _score_if_over(self) -> None:
        """Score the current game in the match if it is over and not scored yet."""
        if self.game.is_over() and self._scored is not self.game:
            self.finished.append(self.record())
            self.match.finish_round(self.game)
            self._scored = self.game

    def next_round(self) -> Game:
        """Deal the match's next round.

        Raises:
            ValueError: the match is over.
        """
        self.game = self._deal()
        self._game_seed = self.match.round_seed(len(self.match.scores))
        self._seat_computers()
        return self.game

    def _deal(self) -> Game:
        scores = list(self.match.scores)
        game = self.match.new_round()
        game.metadata["names"] = self.names
        game.metadata["bots"] = [spec.level if spec.level is not None else "human" for spec in self.setup.seats]
        game.metadata["match"] = {
            "seed": self.setup.seed,
            "rounds": self.setup.rounds,
            "target": self.setup.target,
            "scores": [list(round_scores) for round_scores in scores],
        }
        return game

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

    def records(self) -> list[dict[str, Any]]:
        """The match so far, as a save file holds it: every finished round, then the current game if it is on."""
        current = [] if self.game.is_over() else [self.record()]
        return [copy.deepcopy(record) for record in self.finished] + current

    @classmethod
    def from_record(cls, data: object) -> Table:
        """Resume the table of a saved record: its game, or the match's next round if that game is over.

        A record without ``names``/``bots`` (for example from ``elferraus
        simulate``) seats a person at seat 0 and ``medium`` players elsewhere.

        Raises:
            RecordError: the record is broken, or its extra keys are.
        """
        setup, match, game = setup_of_record(data)
        if match.is_over():
            raise RecordError("the record's match is already over: there is nothing to resume")
        table = cls.resume(setup, match, game)
        if game.is_over():
            table.finish_round()
            if table.match.is_over():
                raise RecordError("this game is finished and so is its match: there is nothing to resume")
            table.next_round()
        return table

    @classmethod
    def from_records(cls, records: Sequence[dict[str, Any]]) -> Table:
        """Resume the match of a save file: its last record, with the earlier rounds of the same match.

        The earlier records of the same match (the same match seed) become
        :attr:`finished`, so that saving again writes the whole match.

        Raises:
            RecordError: there is no record, or the last one cannot be resumed (the message names its line).
        """
        if not records:
            raise RecordError("there is no game in it")
        last = records[-1]
        try:
            table = cls.from_record(last)
        except RecordError as error:
            raise RecordError(f"line {len(records)}: {error}") from None
        match = last.get("match")
        earlier = (
            [record for record in records[:-1] if record.get("match", {}).get("seed") == match.get("seed")]
            if isinstance(match, dict)
            else []
        )
        table.finished[:0] = [copy.deepcopy(record) for record in earlier]
        return table


__all__ = ["STAND_IN", "Preview", "Seat", "Step", "StepKind", "Table", "TableSetup", "TurnError"]
