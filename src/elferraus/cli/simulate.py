"""``elferraus simulate``: many games between computer players, as records."""

from __future__ import annotations

import argparse
import sys
import time

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from elferraus.bots.simulate import simulate_game
from elferraus.cli.files import FileOpenError, open_text
from elferraus.record import dumps_record
from elferraus.rules import Rules
from elferraus.table.seating import seat_specs


def run_simulate(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Play ``--games`` games and write their records."""
    bots = seat_specs(args.bots, args.players, commands=False)
    if isinstance(bots, str):
        parser.error(f"argument --bots: {bots}")
    rules = Rules.preset(args.rules)
    wins = [0] * args.players
    started = time.perf_counter()
    try:
        with open_text(args.out or "-", "w") as out:
            writing = args.out is not None
            with Progress(
                TextColumn("simulating"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeRemainingColumn(),
                disable=not sys.stderr.isatty(),
                transient=True,
                console=None,
            ) as progress:
                task = progress.add_task("games", total=args.games)
                for index in range(args.games):
                    game = simulate_game(args.players, args.seed, bots, rules, index)
                    game.metadata["rules_preset"] = args.rules
                    winner = game.winner
                    assert winner is not None
                    wins[winner] += 1
                    if writing:
                        out.write(dumps_record(game) + "\n")
                    progress.advance(task)
    except FileOpenError as error:
        print(f"elferraus simulate: {error}", file=sys.stderr)
        return 2
    elapsed = time.perf_counter() - started
    report = sys.stderr if args.out == "-" else sys.stdout
    rate = args.games / elapsed if elapsed > 0 else float("inf")
    print(f"{args.games} games in {elapsed:.2f} s: {rate:,.0f} games/s", file=report)
    for seat, (name, count) in enumerate(zip(bots, wins, strict=True)):
        print(f"  seat {seat + 1} {name:>8}: {count:6d} wins ({100 * count / args.games:5.1f} %)", file=report)
    return 0
