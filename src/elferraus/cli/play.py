"""``elferraus play``: a game against computer players at a plain prompt."""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable

from rich.console import Console

from elferraus.bots import Bot, make_bot
from elferraus.cli.files import FileOpenError, open_text
from elferraus.errors import IllegalMoveError, NotationError
from elferraus.game import Game
from elferraus.i18n import Lang, detect_language, explain, tr
from elferraus.match import Match
from elferraus.moves import DRAW, PASS, Move
from elferraus.record import dumps_record
from elferraus.rules import Rules
from elferraus.seating import computer_levels
from elferraus.view import SeatView
from elferraus.words import describe_move, hand_text, row_lines, status_line

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
    """One human (seat 0) against computers, one line of input per action."""

    def __init__(
        self,
        names: list[str],
        bots: dict[int, Bot],
        lang: Lang,
        *,
        delay: float = 0.0,
        read: Callable[[str], str] | None = None,
        console: Console | None = None,
    ) -> None:
        self.names = names
        self.bots = bots
        self.lang = lang
        self.delay = delay
        self.read = read or input
        self.console = console or Console(highlight=False)

    def say(self, text: str) -> None:
        """Print one line."""
        self.console.print(text, markup=False, soft_wrap=True)

    def show_table(self, game: Game, view: SeatView) -> None:
        """Rows, opponents, pile, own hand and what may be done."""
        lang = self.lang
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

    def human_move(self, game: Game) -> None:
        """Ask until the player gives a legal move, then make it."""
        view = game.view(HUMAN)
        if view.legal == (PASS,) and (view.laid or view.draws or view.pile == 0):
            self.show_table(game, view)
            self.say(tr("auto_pass", self.lang))
            game.push(PASS)
            return
        self.show_table(game, view)
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
                    game.push(choice)
                except IllegalMoveError as error:
                    self.say(explain(error.reason, error.details, self.lang))
                    continue
                self.report(game, HUMAN)
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

    def report(self, game: Game, seat: int) -> None:
        """Say what ``seat`` just did, as the human may see it."""
        text = game.public_moves(HUMAN)[-1]
        self.say(describe_move(self.names[seat], text, self.lang, you=seat == HUMAN))

    def play(self, game: Game) -> None:
        """Play ``game`` to its end."""
        for seat, bot in self.bots.items():
            bot.start_game(seat, game.players, game.rules)
        while not game.is_over():
            seat = game.turn
            if seat == HUMAN:
                self.human_move(game)
                continue
            game.push(self.bots[seat].choose(game.view(seat)))
            self.report(game, seat)
            if self.delay:
                time.sleep(self.delay)

    def show_result(self, game: Game, match: Match) -> None:
        """The winner, everybody's penalty points and the match table."""
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


def _levels(args: argparse.Namespace, parser: argparse.ArgumentParser) -> list[str]:
    try:
        return computer_levels(args.bots, args.players)
    except ValueError as error:
        parser.error(str(error))


def run_play(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Play a game or a match against computers."""
    lang = detect_language(args.lang)
    if args.resume is not None:
        parser.error("--resume needs the full-screen game (run it in a terminal, without --plain)")
    levels = _levels(args, parser)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**62)
    names = [tr("seat_you", lang)] + [tr("seat_bot", lang, seat=s, level=levels[s - 1]) for s in range(1, args.players)]
    bots = {seat: make_bot(levels[seat - 1], seed + seat) for seat in range(1, args.players)}
    match = Match(players=args.players, rules=Rules.preset(args.rules), rounds=args.rounds, seed=seed)
    prompt = PromptGame(names, bots, lang, delay=args.delay or 0.0)
    try:
        while not match.is_over():
            game = match.new_round()
            game.metadata["names"] = names
            if args.rounds > 1:
                prompt.say(tr("round_start", lang, round=len(match.scores) + 1))
            try:
                prompt.play(game)
            finally:
                _save(args.save, game, prompt, lang)
            match.finish_round(game)
            prompt.show_result(game, match)
    except PlayerQuitError:
        prompt.say(tr("goodbye", lang))
        return 0
    except KeyboardInterrupt:
        prompt.say("")
        prompt.say(tr("goodbye", lang))
        return 130
    except FileOpenError as error:
        print(f"elferraus play: {error}", file=sys.stderr)
        return 2
    return 0


def _save(path: str | None, game: Game, prompt: PromptGame, lang: Lang) -> None:
    if path is None:
        return
    with open_text(path, "a") as out:
        out.write(dumps_record(game) + "\n")
    prompt.say(tr("save_hint", lang, path=path))
