"""``elferraus play --plain``: the terminal game at a plain prompt, one typed line per action.

It is the full-screen game (``elferraus.tui``) told in lines: the same table
(title, the other players, pile, rows, status line, hand), the same keys with
the same words as the full game's footer and help (``d``/``z`` draw,
``e``/``b`` end the turn, ``h`` the hint of ``master``, ``u`` undo, ``s`` save,
``?`` help, ``q`` quit), and the same hint, notes and result. A card is laid
by typing it (``R12``); ``m`` lists the moves allowed now.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from rich.console import Console

from elferraus.errors import IllegalMoveError, NotationError, RecordError
from elferraus.i18n import Lang, cards_in_words, detect_language, explain, sentence, tr
from elferraus.moves import DRAW, PASS, Move
from elferraus.table.hints import hint_line
from elferraus.table.saving import (
    default_save_path,
    read_save_records,
    resume_problem,
    save_destination,
    save_game_file,
    save_problem,
    write_save_file,
)
from elferraus.table.seating import PERSON, computer_levels, seat_name
from elferraus.table.session import Seat, Table, TableSetup
from elferraus.table.words import (
    hand_text,
    log_line,
    made_for_coming_line,
    made_for_done_line,
    pile_words,
    row_lines,
    status_line,
    title_line,
    undo_note,
)
from elferraus.tui.result_screen import is_match, match_content, match_title, next_line, round_content, winner_line
from elferraus.tui.widgets import opponents_content, pile_at_deal, pile_content, seat_lines

HUMAN = 0
Command = Literal["help", "hint", "moves", "undo", "save", "quit"]

DRAW_WORDS = {"d", "z", "draw", "ziehen"}
PASS_WORDS = {"e", "b", "p", "end", "pass", "beenden"}
"""The full game's keys for ending the turn (``e``, ``b`` and the unlisted ``p``), and the words for it."""
COMMAND_WORDS: dict[str, Command] = {
    "?": "help",
    "help": "help",
    "hilfe": "help",
    "h": "hint",
    "hint": "hint",
    "tipp": "hint",
    "m": "moves",
    "moves": "moves",
    "züge": "moves",
    "u": "undo",
    "undo": "undo",
    "zurück": "undo",
    "s": "save",
    "save": "save",
    "speichern": "save",
    "q": "quit",
    "quit": "quit",
    "exit": "quit",
}
YES = {"y", "yes", "j", "ja"}
PROMPT = "> "
"""The prompt for a typed line; the keys it takes are said on the line above, or before it."""
CANCEL = "-"
"""The answer that saves nothing when asked where to save."""


class PlayerQuitError(Exception):
    """The player asked to stop."""


def parse_input(text: str, lang: Lang = "en") -> Move | Command:
    """A move from what the player typed, or a command (help, hint, moves, undo, save, quit).

    A card is typed as the game shows it, or in the record's letters: in German ``ge7`` (Gelb) and ``gr12``
    (Grün) as well as ``y7`` and ``g12``.

    Raises:
        NotationError: it is neither.
    """
    word = text.strip().lower()
    if lang == "de" and word[:2] in ("ge", "gr") and word[2:].isdigit():
        word = ("y" if word[:2] == "ge" else "g") + word[2:]
    if word in DRAW_WORDS:
        return DRAW
    if word in PASS_WORDS:
        return PASS
    if word in COMMAND_WORDS:
        return COMMAND_WORDS[word]
    return Move.parse(word)


def key(letter: str, lang: Lang) -> str:
    """The key the full game shows for drawing (``d``) and ending the turn (``e``): ``z`` and ``b`` in German."""
    german = {"d": "z", "e": "b"}
    return german.get(letter, letter) if lang == "de" else letter


def footer(pairs: list[tuple[str, str]], lang: Lang) -> str:
    """Keys and their words as the full game's footer shows them: ``d draw  e end turn``."""
    return "  ".join(f"{letter} {tr(word, lang)}" for letter, word in pairs)


def keys_line(lang: Lang) -> str:
    """The keys of a turn with the full game's footer words: ``R12 lay  d draw  e end turn ...``."""
    pairs = [
        ("R12", "key_lay"),
        (key("d", lang), "key_draw"),
        (key("e", lang), "key_end"),
        ("h", "key_hint"),
        ("u", "key_undo"),
        ("?", "key_help"),
        ("q", "key_quit"),
    ]
    return footer(pairs, lang)


def move_word(move: Move, lang: Lang) -> str:
    """A move as the player reads it: a card, ``draw`` or ``end turn``."""
    if move is DRAW:
        return tr("move_draw", lang)
    if move is PASS:
        return tr("move_pass", lang)
    return str(move)


def opponent_lines(table: Table, lang: Lang, viewer: int = HUMAN) -> list[str]:
    """The other players in turn order, as the full game lists them: name (level), the fan of their cards, the
    count and last turn."""
    return opponents_content(seat_lines(table, viewer, lang), lang).plain.splitlines()


def pile_line(table: Table, lang: Lang) -> str:
    """The pile as the full game shows it in the rim of its rows: a stack as high as it is full, and the count."""
    count = table.game.pile_size()
    return pile_content(pile_words(count, lang), count, pile_at_deal(table)).plain


def hand_line(table: Table, lang: Lang, *, fitting: bool, markup: bool = False) -> str:
    """The person's hand as the full game shows it: ``You · 15 cards: R4 R10* │ Y7 ...``.

    With ``fitting`` (his turn, a choice to make) the cards that fit now are marked ``*``.
    """
    view = table.game.view(HUMAN)
    fits = [move.card for move in view.legal if move.card is not None] if fitting else []
    cards = hand_text(view.hand, fits, markup=markup, separator=" │ ", lang=lang)
    count = len(view.hand)
    label = tr("hand_label_one" if count == 1 else "hand_label", lang, name=table.names[HUMAN], n=count)
    return f"{label}{cards}"


def result_lines(table: Table, lang: Lang) -> list[str]:
    """The end of a round as the full game's result screen shows it: title, who went out, this round's
    cards and points, the match so far, and what comes next (the same functions make both)."""
    number = len(table.match.scores)
    title = tr("result_title", lang, round=number) if is_match(table) else tr("result_title_single", lang)
    lines = [f"{tr('app_title', lang)} · {title}", *winner_line(table, lang).splitlines(), ""]
    lines.append(tr("result_this_round", lang) if is_match(table) else tr("result_this_game", lang))
    lines += ["  " + line.rstrip() for line in round_content(table, lang).plain.splitlines()]
    if is_match(table):
        lines += ["", match_title(table, lang)]
        lines += ["  " + line.rstrip() for line in match_content(table, lang).plain.splitlines()]
    return [*lines, "", next_line(table, lang)]


class PromptGame:
    """One person (seat 0) against computers at a :class:`~elferraus.table.session.Table`, one typed line per action.

    The table makes every move; the prompt only asks and tells, in the full game's words.

    Args:
        save_path: the game's own file (``--save``/``--resume``, or where ``s`` saved last): the
            default when asked where to save, replaced without asking, and written at the end of each round.
    """

    def __init__(
        self,
        table: Table,
        lang: Lang,
        *,
        delay: float = 0.0,
        read: Callable[[str], str] | None = None,
        console: Console | None = None,
        save_path: Path | None = None,
    ) -> None:
        self.table = table
        self.lang = lang
        self.delay = delay
        self.read = read or input
        self.console = console or Console(highlight=False)
        self.save_path = save_path

    @property
    def names(self) -> list[str]:
        """Every seat's name."""
        return self.table.names

    @property
    def soft_wrap(self) -> bool:
        """Lines are left whole for a file or a pipe; a terminal gets them wrapped between words, never inside a
        word, a card or a number and its unit (as a terminal itself would cut them at its edge)."""
        return not self.console.is_terminal

    def say(self, text: str) -> None:
        """Print one line (every card in it as the full game shows it: ``Ge12`` in German)."""
        self.console.print(cards_in_words(text, self.lang), markup=False, soft_wrap=self.soft_wrap)

    def ask(self, question: str) -> str:
        """One typed answer; end of input quits the game."""
        try:
            return self.read(question)
        except EOFError:
            raise PlayerQuitError from None

    def show_table(self) -> None:
        """What the full game's table shows: title, the other players, pile, rows, status line and hand."""
        lang, table = self.lang, self.table
        view = table.game.view(HUMAN)
        markup = self.console.is_terminal
        self.console.print()
        self.say(title_line(table, lang))
        for line in opponent_lines(table, lang):
            self.say(line)
        self.say(f"  {pile_line(table, lang)}")
        for line in row_lines(view.rows, table.game.rules.colors, lang, markup=markup):
            self.console.print(line, markup=markup)
        self.say(sentence(status_line(view, lang)))
        step = table.next_step()
        asked = step.kind == "ask" and step.seat == HUMAN
        self.console.print(
            hand_line(table, lang, fitting=asked, markup=markup), markup=markup, soft_wrap=self.soft_wrap
        )
        if asked:
            self.say(keys_line(lang))

    def human_move(self) -> None:
        """Ask until the player makes a move (or takes one back), and have the table make it."""
        table = self.table
        self.show_table()
        while True:
            text = self.ask(PROMPT)
            try:
                choice = parse_input(text, self.lang)
            except NotationError:
                self.say(
                    tr("bad_input", self.lang, text=text.strip(), draw=key("d", self.lang), end=key("e", self.lang))
                )
                continue
            if isinstance(choice, Move):
                try:
                    table.play(choice, seat=HUMAN)
                except IllegalMoveError as error:
                    self.say(sentence(explain(error.reason, error.details, self.lang)))
                    continue
                self.report(HUMAN)
                return
            if choice == "undo":
                if self.undo():
                    return
            elif choice == "quit":
                self.confirm_quit()
            else:
                self.command(choice)

    def command(self, choice: Command) -> None:
        """Answer a command that changes nothing at the table."""
        lang = self.lang
        if choice == "help":
            rules = self.table.game.rules
            must_play = tr("help_must_play", lang) if rules.must_play else ""
            self.say(tr("help_title", lang))
            self.say(tr("help_keys_plain", lang, draw=key("d", lang), end=key("e", lang)))
            self.say(tr("help_rules", lang, max_draws=rules.max_draws, must_play=must_play))
        elif choice == "hint":
            game = self.table.game
            self.say(hint_line(game.view(game.turn), self.table.hint(), self.table.names, lang))
        elif choice == "moves":
            legal = self.table.game.legal_moves()
            self.say(tr("legal_now", lang, moves=", ".join(move_word(move, lang) for move in legal)))
        elif choice == "save":
            self.ask_save()

    def undo(self) -> bool:
        """Take back the person's last turn, as the full game's ``u`` does; False if there is none."""
        table = self.table
        target = table.undo_target(HUMAN)
        if target is None:
            self.say(tr(table.undo_refusal(HUMAN) or "undo_none", self.lang))
            return False
        movers = [mover for mover, _move, _drawn in table.game.history()[target:]]
        table.undo(HUMAN)
        key_, params = undo_note(movers, HUMAN)
        self.say(tr(key_, self.lang, **params))
        return True

    def confirm_quit(self) -> None:
        """Ask as the full game's quit dialog does: quit, save and quit, or carry on.

        Raises:
            PlayerQuitError: the player quits (after saving, if he chose that and it worked).
        """
        lang = self.lang
        self.say(tr("quit_title", lang))
        own = self.save_path.absolute() if self.save_path is not None else None
        self.say(tr("quit_body" if own is None else "quit_body_own", lang))
        self.say("  " + tr("resume_command", lang, path=own if own is not None else tr("save_file_word", lang)))
        quit_key = "j" if lang == "de" else "y"
        question = footer([(quit_key, "key_quit"), ("s", "key_save_quit"), ("n", "key_cancel")], lang)
        answer = self.ask(f"{question} {PROMPT}").strip().lower()
        if answer in YES:
            raise PlayerQuitError
        if answer == "s" and self.ask_save():
            self.say(tr("resume_later", lang, path=self.save_path))
            raise PlayerQuitError

    def ask_save(self) -> bool:
        """Ask where to save, with the full game's default, until saved or cancelled; True once saved.

        The default is the game's own file, else a new one in the user's data
        folder. A file other than the game's own is replaced only when the player says so.
        """
        lang = self.lang
        default = self.save_path or default_save_path()
        self.say(f"{tr('save_title', lang)} {default}")
        while True:
            self.say(tr("save_question_plain", lang, cancel=CANCEL))
            try:
                answer = self.read(PROMPT)
            except EOFError:
                answer = CANCEL
            if answer.strip() == CANCEL:
                self.say(tr("save_cancelled", lang))
                return False
            path = save_destination(answer, default)
            if not self._write_save(path):
                continue
            self.save_path = path
            self.say(tr("save_hint", lang, path=path))
            return True

    def _write_save(self, path: Path) -> bool:
        """Write the save file at ``path``, asking before replacing a file other than the game's own."""
        replace = self.save_path is not None and path == self.save_path.absolute()
        while True:
            try:
                save_game_file(path, self.table.records(), replace=replace)
            except FileExistsError:
                try:
                    reply = self.read(tr("save_replace_question", self.lang, path=path))
                except EOFError:
                    reply = ""
                if reply.strip().lower() not in YES:
                    return False
                replace = True
                continue
            except OSError as error:
                problem, params = save_problem(path, error)
                self.say(tr(problem, self.lang, **params))
                return False
            return True

    def report(self, seat: int) -> None:
        """Say what ``seat`` just did, as the full game's move log says it."""
        text = self.table.game.public_moves(HUMAN)[-1]
        self.say(log_line(text, self.names, self.lang, you=HUMAN, show_draws=True))

    def play(self) -> None:
        """Play the table's game to its end."""
        table = self.table
        while (step := table.next_step()).kind not in ("round_over", "match_over"):
            assert step.seat is not None
            if step.kind == "ask":
                self.human_move()
                continue
            if step.kind == "made_for_person":
                assert step.move is not None
                before = table.game.view(step.seat)
                self.show_table()
                self.say(sentence(made_for_coming_line(before, step.move, self.lang)))
                table.play(step.move)
                self.say(sentence(made_for_done_line(before, step.move, table.game.view(step.seat), self.lang)))
                continue
            table.play(table.think())
            self.report(step.seat)
            if self.delay and step.kind == "think":
                time.sleep(self.delay)

    def show_result(self) -> None:
        """The round's end as the full game's result screen shows it."""
        self.console.print()
        for line in result_lines(self.table, self.lang):
            self.say(line)

    def write_own_file(self) -> None:
        """Write the match so far to the game's own file, if it has one.

        Raises:
            OSError: it cannot be written.
        """
        if self.save_path is not None:
            write_save_file(self.save_path, self.table.records())

    def play_match(self, *, save_on_quit: bool = False) -> None:
        """Play game after game until the match is over, saving each round to the game's own file.

        Args:
            save_on_quit: also save when the player quits or the input ends (``--save``/``--resume``).
        """
        table = self.table
        while True:
            try:
                self.play()
            except (PlayerQuitError, KeyboardInterrupt):
                if save_on_quit:
                    self.write_own_file()
                raise
            self.write_own_file()
            self.show_result()
            if table.match.is_over():
                return
            self.between_rounds()
            table.next_round()

    def between_rounds(self) -> None:
        """Wait for the next round, as the full game's result screen does: Enter goes on, ``s`` saves, ``q`` quits."""
        lang = self.lang
        question = footer([("⏎", "key_next_round"), ("s", "key_save"), ("q", "key_quit")], lang)
        while True:
            answer = self.ask(f"{question} {PROMPT}").strip().lower()
            if not answer:
                return
            if answer in ("s", "save", "speichern"):
                self.ask_save()
            elif answer in ("q", "quit", "exit"):
                raise PlayerQuitError


def _levels(args: argparse.Namespace, parser: argparse.ArgumentParser) -> list[str]:
    try:
        return computer_levels(args.bots, args.players)
    except ValueError as error:
        parser.error(f"argument --bots: {error}")


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
            Table.from_records(read_save_records(args.resume))
            if args.resume is not None
            else new_table(args, parser, lang)
        )
    except (RecordError, OSError) as error:
        key, params = resume_problem(error)
        reason = tr(key, lang, **params)
        print(f"elferraus play: {tr('resume_failed', lang, path=args.resume, error=reason)}", file=sys.stderr)
        return 2
    if table.people != (HUMAN,):
        print(f"elferraus play: {tr('plain_one_person', lang)}", file=sys.stderr)
        return 2
    given = args.save if args.save is not None else args.resume
    prompt = PromptGame(table, lang, delay=args.delay or 0.0, save_path=Path(given) if given is not None else None)
    try:
        prompt.play_match(save_on_quit=given is not None)
    except PlayerQuitError:
        prompt.say(tr("goodbye", lang))
        return 0
    except KeyboardInterrupt:
        prompt.say("")
        prompt.say(tr("goodbye", lang))
        return 130
    except OSError as error:
        path = prompt.save_path
        print(f"elferraus play: {tr('save_failed', lang, path=path, error=error.strerror or error)}", file=sys.stderr)
        return 2
    if prompt.save_path is not None:
        prompt.say(tr("save_hint", lang, path=prompt.save_path))
    return 0
