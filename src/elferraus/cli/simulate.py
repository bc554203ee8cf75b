"""``elferraus simulate``: many games between computer players, as records."""

from __future__ import annotations

import argparse
import sys
import time

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from elferraus.bots import BOTS
from elferraus.cli.files import FileOpenError, open_text
from elferraus.record import dumps_record
from elferraus.rules import Rules
from elferraus.simulate import simulate_game


def parse_bots(text: str, players: int) -> list[str] | str:
    """One bot name per seat from ``B`` or ``B1,B2,...``; an error text if that fails."""
    names = [name.strip() for name in text.split(",")]
    unknown = [name for name in names if name not in BOTS]
    if unknown:
        return f"unknown bot {unknown[0]!r}; choose from {', '.join(BOTS)}"
    if len(names) == 1:
        return names * players
    if len(names) != players:
        return f"--bots names {len(names)} bots for {players} players: give one name, or one per seat"
    return names


def run_simulate(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Play ``--games`` games and write their records."""
    bots = parse_bots(args.bots, args.players)
    if isinstance(bots, str):
        parser.error(bots)
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
        print(f"  seat {seat} {name:>8}: {count:6d} wins ({100 * count / args.games:5.1f} %)", file=report)
    return 0
