"""``elferraus replay``: a recorded game, move by move, with every hand shown."""

from __future__ import annotations

import argparse
import gzip
import os
import sys
import zlib
from typing import Any

from elferraus.cli.files import FileOpenError, open_text
from elferraus.errors import RecordError
from elferraus.game import Game
from elferraus.i18n import Lang, cards_in_words, detect_language, tr
from elferraus.record import iter_records
from elferraus.table.words import describe_move, hand_text, row_lines, rules_words


def seat_names(game: Game, lang: Lang) -> list[str]:
    """The players' names from the record's ``names`` key, else "Seat N", counted from 1 as at the table.

    (The record itself counts seats from 0; only what a person reads counts from 1.)
    """
    names: Any = game.metadata.get("names")
    if isinstance(names, list) and len(names) == game.players and all(isinstance(n, str) for n in names):
        return list(names)
    return [tr("setup_seat", lang, n=seat + 1) for seat in range(game.players)]


def table_lines(game: Game, names: list[str], lang: Lang) -> list[str]:
    """The rows, every hand and the pile size."""
    lines = row_lines(game.rows(), game.rules.colors, lang)
    for seat in range(game.players):
        count = len(game.hand(seat))
        lines.append(f"    {names[seat]:>10} ({count:2d} {tr('cards', lang)}): {hand_text(game.hand(seat))}")
    lines.append(f"    {tr('pile', lang)}: {game.pile_size()}")
    return lines


def replay_lines(recorded: Game, lang: Lang) -> list[str]:
    """The whole replay as lines of text."""
    return [line for step in replay_steps(recorded, lang) for line in step]


def replay_steps(recorded: Game, lang: Lang) -> list[list[str]]:
    """The replay in steps, as a terminal shows them one key at a time: the deal, then each move (with the
    table after it when a turn ends), the last one with the result."""
    dealt = recorded.dealt
    assert dealt is not None
    hands, pile = dealt
    game = Game(hands, pile, recorded.rules)
    names = seat_names(recorded, lang)
    seed = recorded.metadata.get("seed", "-")
    heading = tr("replay_heading", lang, players=recorded.players, rules=rules_words(recorded.rules, lang), seed=seed)
    steps = [[heading, *table_lines(game, names, lang)]]
    history = recorded.history()
    shown = True
    for number, text in enumerate(recorded.record_moves(), start=1):
        seat = game.turn
        game.push(history[number - 1][1])
        step = [f"{number:4d}. {describe_move(names[seat], text, lang)}"]
        shown = game.turn != seat or game.is_over()
        if shown:
            step += table_lines(game, names, lang)
        steps.append(step)
    if not shown:  # a record that stops in the middle of a turn: show the table it stops at
        steps[-1] += table_lines(game, names, lang)
    winner = game.winner
    if winner is None:
        steps[-1] += ending_lines(recorded, names, lang)
    else:
        steps[-1].append(tr("winner_other", lang, name=names[winner]))
        penalties = ", ".join(f"{names[s]} {p}" for s, p in enumerate(game.penalties()))
        steps[-1].append(f"{tr('penalties', lang)}: {penalties}")
    return [[cards_in_words(line, lang) for line in step] for step in steps]  # cards as the game shows them


def show_steps(steps: list[list[str]], lang: Lang) -> None:
    """Show ``steps`` one key at a time on the terminal: Enter or Space the next move, a all the rest, q quits."""
    import termios
    import tty

    prompt = tr("replay_keys", lang)
    fd = sys.stdin.fileno()
    before = termios.tcgetattr(fd)
    tty.setcbreak(fd)  # a key counts at once, without Enter and unechoed; Ctrl-C still interrupts
    try:
        print("\n".join(steps[0]))
        for index, step in enumerate(steps[1:], start=1):
            print(prompt, end="", flush=True)
            key = _read_key(fd)
            print("\r\x1b[K", end="")  # the prompt goes: the move takes its line
            if key in ("q", ""):
                return
            if key == "a":
                print("\n".join(line for rest in steps[index:] for line in rest))
                return
            print("\n".join(step))
    finally:
        sys.stdout.flush()
        termios.tcsetattr(fd, termios.TCSADRAIN, before)


def _read_key(fd: int) -> str:
    """The next key that means something here: Enter or Space (next), a (all), q (quit); "" at the end of input."""
    while True:
        data = os.read(fd, 1)
        if not data:
            return ""
        key = data.decode(errors="ignore").lower()
        if key in ("\n", "\r", " ", "a", "q"):
            return key


def ending_lines(game: Game, names: list[str], lang: Lang) -> list[str]:
    """Why the record of an unfinished ``game`` ends: where it stops, and a forfeit the arena wrote down."""
    moves = len(game.record_moves())
    name = names[game.turn]
    if moves:
        lines = [tr("replay_unfinished", lang, moves=moves, name=name)]
    else:
        lines = [tr("replay_unfinished_deal", lang, name=name)]
    forfeit: Any = game.metadata.get("forfeit")
    if isinstance(forfeit, dict) and type(forfeit.get("seat")) is int and 0 <= forfeit["seat"] < game.players:
        lines.append(tr("replay_forfeit", lang, name=names[forfeit["seat"]], reason=forfeit.get("reason", "?")))
    return lines


def run_replay(args: argparse.Namespace) -> int:
    """Print game ``--game`` of the file move by move."""
    lang = detect_language(args.lang)
    count = 0
    try:
        with open_text(args.file) as handle:
            for count, (line, item) in enumerate(iter_records(handle), start=1):
                if count < args.game:
                    continue
                if isinstance(item, RecordError):
                    print(f"elferraus replay: line {line}: {item.problem}", file=sys.stderr)
                    return 1
                if args.all or not (sys.stdin.isatty() and sys.stdout.isatty()):
                    print("\n".join(replay_lines(item, lang)))  # into a pipe or a file: all of it at once
                else:
                    show_steps(replay_steps(item, lang), lang)
                return 0
    except FileOpenError as error:
        print(f"elferraus replay: {error}", file=sys.stderr)
        return 2
    except (EOFError, gzip.BadGzipFile, zlib.error) as error:  # a gzip-compressed file cut short or damaged
        print(f"elferraus replay: {args.file} cannot be read to its end: {error}", file=sys.stderr)
        return 2
    if count == 0:
        print(f"elferraus replay: {args.file} holds no records", file=sys.stderr)
    else:
        print(f"elferraus replay: {args.file} has no game {args.game}, only {count}", file=sys.stderr)
    return 1
