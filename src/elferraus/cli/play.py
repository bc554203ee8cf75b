"""``elferraus play``: a game against computer players at a plain prompt."""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable

from rich.console import Console

from elferraus.errors import IllegalMoveError, NotationError, RecordError
from elferraus.i18n import Lang, detect_language, explain, tr
from elferraus.moves import DRAW, PASS, Move
from elferraus.saving import read_save_file, write_save_file
from elferraus.seating import PERSON, computer_levels, seat_name
from elferraus.session import Seat, Table, TableSetup
from elferraus.view import SeatView
from elferraus.words import describe_move, forced_line, hand_text, row_lines, status_line

HUMAN = 0
DRAW_WORDS = {"d", "draw", "z", "ziehen"}
PASS_WORDS = {"p", "pass", "b", "beenden", "e", "end"}
HELP_WORDS = {"?", "help", "hilfe"}
HINT_WORDS = {"h", "moves", "züge"}
QUIT_WORDS = {"q", "quit", "exit", "ende"}


class PlayerQuitError(Exception):
    """The player asked to stop."""


def parse_input(text: str) -> Move | str:
    """A move from what the player typed, or a command word (help, hint, quit)."""
    word = text.strip().lower()
    if word in DRAW_WORDS:
        return DRAW
    if word in PASS_WORDS:
        return PASS
    if word in HELP_WORDS:
        return "help"
    if word in HINT_WORDS:
        return "hint"
    if word in QUIT_WORDS:
        return "quit"
    return Move.parse(word)


class PromptGame:
    """One person (seat 0) against computers at a :class:`~elferraus.session.Table`, one line of input per action.

    The table makes every move; the prompt only asks and tells.
    """

    def __init__(
        self,
        table: Table,
        lang: Lang,
        *,
        delay: float = 0.0,
        read: Callable[[str], str] | None = None,
        console: Console | None = None,
        save: Callable[[], None] | None = None,
    ) -> None:
        self.table = table
        self.lang = lang
        self.delay = delay
        self.read = read or input
        self.console = console or Console(highlight=False)
        self.save = save

    @property
    def names(self) -> list[str]:
        """Every seat's name."""
        return self.table.names

    def say(self, text: str) -> None:
        """Print one line."""
        self.console.print(text, markup=False, soft_wrap=True)

    def show_table(self, view: SeatView) -> None:
        """Rows, opponents, pile, own hand and what may be done."""
        lang, game = self.lang, self.table.game
        self.console.print()
        for seat in range(1, game.players):
            self.say(f"  {self.names[seat]}: {view.hand_counts[seat]} {tr('cards', lang)}")
        for line in row_lines(view.rows, game.rules.colors, lang, markup=self.console.is_terminal):
            self.console.print(line, markup=self.console.is_terminal)
        fitting = [move.card for move in view.legal if move.card is not None]
        self.say(f"  {tr('pile', lang)}: {view.pile}")
        hand = hand_text(view.hand, fitting, markup=self.console.is_terminal)
        self.console.print(f"  {tr('your_hand', lang)}: {hand}", markup=self.console.is_terminal, soft_wrap=True)
        self.say(f"  {status_line(view, lang)}")

    def human_move(self) -> None:
        """Ask until the player gives a legal move, and have the table make it."""
        table = self.table
        view = table.game.view(HUMAN)
        self.show_table(view)
        while True:
            try:
                text = self.read(tr("prompt", self.lang))
            except EOFError:
                raise PlayerQuitError from None
            try:
                choice = parse_input(text)
            except NotationError:
                self.say(tr("bad_input", self.lang, text=text.strip()))
                continue
            if choice == "help":
                self.say(tr("help", self.lang))
            elif choice == "hint":
                self.say(tr("legal_now", self.lang, moves=", ".join(self.move_word(m) for m in view.legal)))
            elif choice == "quit":
                if self.confirm_quit():
                    raise PlayerQuitError
            elif isinstance(choice, Move):
                try:
                    table.play(choice, seat=HUMAN)
                except IllegalMoveError as error:
                    self.say(explain(error.reason, error.details, self.lang))
                    continue
                self.report(HUMAN)
                return

    def confirm_quit(self) -> bool:
        """Ask once more before quitting."""
        try:
            answer = self.read(tr("quit_confirm", self.lang))
        except EOFError:
            return True
        return answer.strip().lower() in {"y", "yes", "j", "ja"}

    def move_word(self, move: Move) -> str:
        """A legal move as the player would type or read it."""
        if move is DRAW:
            return tr("move_draw", self.lang)
        if move is PASS:
            return tr("move_pass", self.lang)
        return str(move)

    def report(self, seat: int) -> None:
        """Say what ``seat`` just did, as the person may see it."""
        text = self.table.game.public_moves(HUMAN)[-1]
        self.say(describe_move(self.names[seat], text, self.lang, you=seat == HUMAN))

    def play(self) -> None:
        """Play the table's game to its end."""
        table = self.table
        while not table.game.is_over():
            if table.waiting_for() == HUMAN:
                self.human_move()
                continue
            seat = table.game.turn
            forced = table.made_for_person()
            if forced is not None:
                self.show_table(table.game.view(HUMAN))
                self.say(forced_line(forced, opening=table.game.move_count == 0, lang=self.lang))
            move = table.automatic_move()
            assert move is not None  # nobody is asked, so the table moves by itself
            table.play(move)
            self.report(seat)
            if self.delay and forced is None:
                time.sleep(self.delay)

    def show_result(self) -> None:
        """The winner, everybody's penalty points and the match table."""
        game, match = self.table.game, self.table.match
        winner = game.winner
        assert winner is not None
        self.say(
            tr("winner_you", self.lang) if winner == HUMAN else tr("winner_other", self.lang, name=self.names[winner])
        )
        for seat, (cards, points) in enumerate(
            zip((game.hand(s) for s in range(game.players)), game.penalties(), strict=True)
        ):
            self.say(f"  {self.names[seat]:>22}: {points:4d}  {hand_text(cards)}")
        if match.rounds and match.rounds > 1:
            self.say(tr("match_table", self.lang, round=len(match.scores)))
            for seat, total in enumerate(match.totals):
                self.say(f"  {self.names[seat]:>22}: {total:4d}")

    def play_match(self) -> None:
        """Play game after game until the match is over (saving after each, if asked)."""
        table = self.table
        while True:
            if table.setup.rounds > 1:
                self.say(tr("round_start", self.lang, round=len(table.match.scores) + 1))
            try:
                self.play()
            finally:
                if self.save is not None:
                    self.save()
            table.finish_round()
            if self.save is not None:
                self.save()
            self.show_result()
            if table.match.is_over():
                return
            table.next_round()


def _levels(args: argparse.Namespace, parser: argparse.ArgumentParser) -> list[str]:
    try:
        return computer_levels(args.bots, args.players)
    except ValueError as error:
        parser.error(str(error))


def new_table(args: argparse.Namespace, parser: argparse.ArgumentParser, lang: Lang) -> Table:
    """The table of the command line: a person at seat 0 and the computers of ``--bots``."""
    levels = [PERSON, *_levels(args, parser)]
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**62)
    seats = tuple(
        Seat(seat_name(seat, levels, lang), None if seat == HUMAN else levels[seat]) for seat in range(len(levels))
    )
    return Table(TableSetup(seats, args.rules, args.rounds, seed=seed))


def run_play(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Play a game or a match against computers (or resume one)."""
    lang = detect_language(args.lang)
    try:
        table = (
            Table.from_records(read_save_file(args.resume))
            if args.resume is not None
            else new_table(args, parser, lang)
        )
    except (RecordError, OSError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        print(f"elferraus play: {tr('resume_failed', lang, path=args.resume, error=reason)}", file=sys.stderr)
        return 2
    if table.people != (HUMAN,):
        print(f"elferraus play: {tr('plain_one_person', lang)}", file=sys.stderr)
        return 2
    path = args.save if args.save is not None else args.resume
    prompt = PromptGame(table, lang, delay=args.delay or 0.0)
    if path is not None:
        prompt.save = lambda: _save(path, table)
    try:
        prompt.play_match()
    except PlayerQuitError:
        prompt.say(tr("goodbye", lang))
        return 0
    except KeyboardInterrupt:
        prompt.say("")
        prompt.say(tr("goodbye", lang))
        return 130
    except OSError as error:
        print(f"elferraus play: {tr('save_failed', lang, path=path, error=error.strerror or error)}", file=sys.stderr)
        return 2
    if path is not None:
        prompt.say(tr("save_hint", lang, path=path))
    return 0


def _save(path: str, table: Table) -> None:
    write_save_file(path, table.records())
