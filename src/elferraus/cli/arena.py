"""``elferraus arena``: duplicate-deal matches with statistics."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from elferraus.arena.runner import ArenaConfig, GameResult, Summary, run_arena, summarize
from elferraus.cli.files import FileOpenError, open_text
from elferraus.rules import Rules
from elferraus.table.seating import seat_specs


def report_lines(summary: Summary) -> list[str]:
    """The result tables as text."""
    config = summary.config
    parity = 100 / config.players
    rate = summary.games / summary.seconds if summary.seconds else 0.0
    rules = config.rules.preset_name or "custom"
    ratings = summary.ratings.table() if summary.ratings is not None else []
    # Names are shown whole: two external bots may differ only at the end of their command.
    width = max([24, *(len(name) for name in summary.kinds), *(len(row[0]) for row in ratings)])
    lines = [
        f"{summary.games} games ({config.deals} deals x {config.players} seat rotations), {rules} rules, "
        f"seed {config.seed}, {summary.seconds:.1f} s ({rate:.1f} games/s)",
        "",
        f"{'player':<{width}} {'seats':>6} {'wins':>6} {'win share (95% CI)':>26} {'penalty':>8} "
        f"{'forfeits':>8} {'median ms':>10} {'p95 ms':>8} {'max ms':>8}",
    ]
    for kind in summary.kinds.values():
        share, low, high = kind.win_share()
        median, p95, worst = kind.latency()
        lines.append(
            f"{kind.name:<{width}} {kind.seats:>6} {kind.wins:>6} "
            f"{100 * share:>9.1f} % [{100 * low:5.1f}, {100 * high:5.1f}] {kind.mean_penalty():>8.1f} "
            f"{kind.forfeits:>8} {1000 * median:>10.2f} {1000 * p95:>8.2f} {1000 * worst:>8.1f}"
        )
    lines.append(f"(parity: {parity:.1f} % per seat)")
    if summary.ratings is not None:
        lines += ["", f"{'rating (OpenSkill)':<{width}} {'mu':>7} {'sigma':>7} {'mu-3sigma':>10}"]
        for name, mu, sigma, ordinal in ratings:
            lines.append(f"{name:<{width}} {mu:>7.2f} {sigma:>7.2f} {ordinal:>10.2f}")
    if summary.forfeits:
        lines += ["", f"{len(summary.forfeits)} forfeited games:"]
        for deal, rotation, spec, reason in summary.forfeits[:20]:
            lines.append(f"  deal {deal + 1}, rotation {rotation}: {spec} - {reason}")
    return lines


def summary_json(summary: Summary) -> dict[str, Any]:
    """The results as data for ``--json``."""
    kinds = {}
    for name, kind in summary.kinds.items():
        share, low, high = kind.win_share()
        median, p95, worst = kind.latency()
        kinds[name] = {
            "seats": kind.seats,
            "wins": kind.wins,
            "win_share": share,
            "win_share_ci95": [low, high],
            "mean_penalty": kind.mean_penalty(),
            "forfeits": kind.forfeits,
            "latency_s": {"median": median, "p95": p95, "max": worst, "decisions": len(kind.latencies)},
        }
    config = summary.config
    return {
        "players": config.players,
        "bots": list(config.specs),
        "deals": config.deals,
        "games": summary.games,
        "seed": config.seed,
        "rules": config.rules.to_dict(),
        "seconds": summary.seconds,
        "kinds": kinds,
        "ratings": [{"name": n, "mu": mu, "sigma": s, "ordinal": o} for n, mu, s, o in summary.ratings.table()]
        if summary.ratings is not None
        else None,
        "forfeits": [{"deal": d + 1, "rotation": r, "bot": b, "reason": why} for d, r, b, why in summary.forfeits],
    }


def run_arena_command(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Play the match, show progress, print and write the results."""
    specs = seat_specs(args.bots, args.players, commands=True)
    if isinstance(specs, str):
        parser.error(f"argument --bots: {specs}")
    config = ArenaConfig(
        specs=tuple(specs),
        deals=args.games,
        seed=args.seed,
        rules=Rules.preset(args.rules),
        move_time=args.move_time,
        records=args.records is not None,
    )
    total = config.deals * config.players
    try:
        progress = Progress(
            TextColumn("arena"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            disable=not sys.stderr.isatty(),
            transient=True,
        )
        with open_text(args.records, "w") if args.records else _nowhere() as records, progress:
            task = progress.add_task("games", total=total)

            def on_game(result: GameResult) -> None:
                if records is not None and result.record is not None:
                    records.write(json.dumps(result.record, ensure_ascii=False) + "\n")
                progress.advance(task)

            summary = summarize(config, run_arena(config, jobs=args.jobs), on_game)
    except FileOpenError as error:
        print(f"elferraus arena: {error}", file=sys.stderr)
        return 2
    print("\n".join(report_lines(summary)))
    if args.json:
        try:
            with open_text(args.json, "w") as out:
                json.dump(summary_json(summary), out, indent=2)
                out.write("\n")
        except FileOpenError as error:
            print(f"elferraus arena: {error}", file=sys.stderr)
            return 2
    return 0


class _nowhere:  # noqa: N801 - a context manager that yields no file
    def __enter__(self) -> TextIO | None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None
