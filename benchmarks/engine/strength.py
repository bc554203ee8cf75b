#!/usr/bin/env python3
"""How strong the computer players are: the figures of the strength table.

Each figure is an arena run (``elferraus arena``) on duplicate deals: every
deal is played once per seat rotation, so each player holds each hand once.
The win share is per seat, with a 95 % confidence interval that takes the
deal as the unit (the rotations of one deal are not independent). Decision
times are measured on the machine running it, one worker per core, for
every kind of player at the table (every decision, forced ones included).

    python -m benchmarks.engine.strength --deals 2000 --jobs 2 --json strength.json
    python -m benchmarks.engine.strength --only medium-greedy --deals 200
    python -m benchmarks.engine.strength --only expert-ismcts --deals 100 --journal ismcts.jsonl
    python -m benchmarks.engine.strength --only expert-blocker,expert-blocker-ravensburger --deals 100 --seed 1 --jobs 1

With ``--journal`` every finished deal is appended to a JSON Lines file, and
a run started again with the same file plays only the deals it lacks, so a
figure of several hours can be measured in parts. Deals and seats are seeded
from ``--seed`` alone, so the parts add up to the same games as one run.

It prints a Markdown table for the README.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from elferraus.arena.runner import ArenaConfig, GameResult, run_arena, summarize
from elferraus.rules import Rules


@dataclass(frozen=True)
class Figure:
    key: str
    title: str
    hero: str
    specs: tuple[str, ...]
    rules: str
    target: float
    """The win share the issue asks for (per seat, 0-1)."""


SAMPLER = "sampler:100ms"
"""The sampling opponent, thinking as long a move as ``expert`` does at p95 (about 0.1 s in the strength table)."""

FIGURES = (
    Figure(
        "expert-greedy", "expert vs three greedy", "expert", ("expert", "greedy", "greedy", "greedy"), "classic", 0.97
    ),
    Figure(
        "medium-greedy", "medium vs three greedy", "medium", ("medium", "greedy", "greedy", "greedy"), "classic", 0.80
    ),
    Figure(
        "expert-medium", "expert vs three medium", "expert", ("expert", "medium", "medium", "medium"), "classic", 0.60
    ),
    Figure("expert-greedy-2p", "two players: expert vs greedy", "expert", ("expert", "greedy"), "classic", 0.98),
    Figure(
        "expert-greedy-ravensburger",
        "ravensburger rules: expert vs three greedy",
        "expert",
        ("expert", "greedy", "greedy", "greedy"),
        "ravensburger",
        0.75,
    ),
    Figure(
        "expert-ismcts",
        "expert vs three OpenSpiel ISMCTS (200 simulations)",
        "expert",
        ("expert", *("openspiel-ismcts:200",) * 3),
        "classic",
        0.60,
    ),
    Figure(
        "expert-blocker",
        "expert vs three blocker",
        "expert",
        ("expert", "blocker", "blocker", "blocker"),
        "classic",
        0.80,
    ),
    Figure(
        "expert-reads-blocker",
        "expert-reads vs three blocker",
        "expert-reads",
        ("expert-reads", "blocker", "blocker", "blocker"),
        "classic",
        0.80,
    ),
    Figure(
        "expert-reads-greedy",
        "expert-reads vs three greedy",
        "expert-reads",
        ("expert-reads", "greedy", "greedy", "greedy"),
        "classic",
        0.972,
    ),
    Figure(
        "expert-reads-medium",
        "expert-reads vs three medium",
        "expert-reads",
        ("expert-reads", "medium", "medium", "medium"),
        "classic",
        0.658,
    ),
    Figure(
        "expert-reads-blocker-ravensburger",
        "ravensburger rules: expert-reads vs three blocker",
        "expert-reads",
        ("expert-reads", "blocker", "blocker", "blocker"),
        "ravensburger",
        0.45,
    ),
    Figure(
        "expert-reads-greedy-2p",
        "two players: expert-reads vs greedy",
        "expert-reads",
        ("expert-reads", "greedy"),
        "classic",
        0.997,
    ),
    Figure(
        "expert-reads-sampler",
        f"expert-reads vs three {SAMPLER}",
        "expert-reads",
        ("expert-reads", SAMPLER, SAMPLER, SAMPLER),
        "classic",
        0.35,
    ),
    Figure(
        "hoarder-blocker",
        "hoarder vs three blocker",
        "hoarder",
        ("hoarder", "blocker", "blocker", "blocker"),
        "classic",
        0.0,
    ),
    Figure(
        "hoarder-greedy",
        "hoarder vs three greedy",
        "hoarder",
        ("hoarder", "greedy", "greedy", "greedy"),
        "classic",
        0.0,
    ),
    Figure(
        "hoarder-medium",
        "hoarder vs three medium",
        "hoarder",
        ("hoarder", "medium", "medium", "medium"),
        "classic",
        0.0,
    ),
    Figure(
        "expert-hoarder",
        "expert vs three hoarder",
        "expert",
        ("expert", "hoarder", "hoarder", "hoarder"),
        "classic",
        0.0,
    ),
    Figure(
        "expert-reads-hoarder",
        "expert-reads vs three hoarder",
        "expert-reads",
        ("expert-reads", "hoarder", "hoarder", "hoarder"),
        "classic",
        0.0,
    ),
    Figure(
        "expert-blocker-ravensburger",
        "ravensburger rules: expert vs three blocker",
        "expert",
        ("expert", "blocker", "blocker", "blocker"),
        "ravensburger",
        0.45,
    ),
    Figure(
        "expert-sampler",
        f"expert vs three {SAMPLER}",
        "expert",
        ("expert", SAMPLER, SAMPLER, SAMPLER),
        "classic",
        0.35,
    ),
    Figure(
        "expert-mixed",
        f"expert vs blocker, tight-blocker and {SAMPLER}",
        "expert",
        ("expert", "blocker", "tight-blocker", SAMPLER),
        "classic",
        0.0,
    ),
    Figure(
        "expert-tight-blocker",
        "expert vs three tight-blocker",
        "expert",
        ("expert", "tight-blocker", "tight-blocker", "tight-blocker"),
        "classic",
        0.0,
    ),
    Figure(
        "expert-one-lay",
        "expert vs three one-lay",
        "expert",
        ("expert", "one-lay", "one-lay", "one-lay"),
        "classic",
        0.0,
    ),
    Figure(
        "expert-no-open",
        "expert vs three no-open",
        "expert",
        ("expert", "no-open", "no-open", "no-open"),
        "classic",
        0.0,
    ),
    Figure("hard-greedy", "hard vs three greedy", "hard", ("hard", "greedy", "greedy", "greedy"), "classic", 0.0),
    Figure("hard-medium", "hard vs three medium", "hard", ("hard", "medium", "medium", "medium"), "classic", 0.0),
    Figure("easy-greedy", "easy vs three greedy", "easy", ("easy", "greedy", "greedy", "greedy"), "classic", 0.0),
    Figure(
        "random-greedy", "random vs three greedy", "random", ("random", "greedy", "greedy", "greedy"), "classic", 0.0
    ),
)
"""Every figure also reports the decision times of the other players at its table
(``greedy`` and ``medium`` are timed there)."""

SLOW = ("expert-ismcts", "expert-sampler", "expert-reads-sampler", "expert-mixed")
"""Figures run only when asked for: OpenSpiel's ISMCTS takes about half a second a move
(``--only expert-ismcts --deals 100`` needs the ``research`` extra and a few hours on two cores), and
the sampler a tenth of a second (``--only expert-sampler --deals 100``: about an hour on two cores)."""


def _ms(seconds: float) -> str:
    """Milliseconds with about two significant digits (fast players take microseconds)."""
    millis = 1000 * seconds
    if millis >= 10:
        return f"{millis:,.0f}"
    if millis >= 0.1:
        return f"{millis:.1f}"
    return f"{millis:.3f}"


def _journaled(figure: Figure, config: ArenaConfig, journal: Path) -> list[GameResult]:
    """The results of this figure's complete deals already in the journal."""
    if not journal.exists():
        return []
    by_deal: dict[int, list[GameResult]] = {}
    for number, line in enumerate(journal.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
            if entry["figure"] != figure.key or entry["seed"] != config.seed or entry["rules"] != figure.rules:
                continue
            result = GameResult.from_json(entry["result"])
        except (ValueError, KeyError, TypeError) as error:
            raise SystemExit(f"{journal}:{number}: not a journal line ({error})") from error
        if result.deal < config.deals:
            by_deal.setdefault(result.deal, []).append(result)
    complete = []
    for deal in sorted(by_deal):
        rotations = {result.rotation: result for result in by_deal[deal]}
        if len(rotations) == config.players:
            complete.extend(rotations[r] for r in range(config.players))
    return complete


def _results(figure: Figure, config: ArenaConfig, jobs: int, journal: Path | None) -> Iterator[GameResult]:
    """The figure's games: those in the journal first, then the rest, each deal journaled as it ends."""
    if journal is None:
        yield from run_arena(config, jobs=jobs)
        return
    done = _journaled(figure, config, journal)
    if done:
        print(f"  {len(done) // config.players} deals from {journal}", file=sys.stderr)
    yield from done
    missing = sorted(set(range(config.deals)) - {result.deal for result in done})
    with journal.open("a", encoding="utf-8") as handle:
        for result in run_arena(config, jobs=jobs, deals=missing):
            entry = {"figure": figure.key, "seed": config.seed, "rules": figure.rules, "result": result.to_json()}
            handle.write(json.dumps(entry) + "\n")
            handle.flush()
            yield result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument(
        "--only",
        default=",".join(f.key for f in FIGURES if f.key not in SLOW),
        help=f"comma-separated figures (default: all but {', '.join(SLOW)}, which take hours at 2000 deals)",
    )
    parser.add_argument("--json", metavar="OUT")
    parser.add_argument("--journal", metavar="FILE", type=Path, help="append each deal here; take up a run again")
    args = parser.parse_args(argv)
    chosen = [f for f in FIGURES if f.key in args.only.split(",")]
    rows = []
    timing_rows = []
    report = []
    for figure in chosen:
        config = ArenaConfig(specs=figure.specs, deals=args.deals, seed=args.seed, rules=Rules.preset(figure.rules))
        print(f"running {figure.key} ({args.deals} deals x {len(figure.specs)} rotations) ...", file=sys.stderr)
        started = time.perf_counter()
        summary = summarize(config, _results(figure, config, args.jobs, args.journal))
        hero = summary.kinds[figure.hero]
        share, low, high = hero.win_share()
        median, p95, worst = hero.latency()
        target = f"{100 * figure.target:.1f} %" if figure.target else "-"
        rows.append(
            f"| {figure.title} | {args.deals:,} | {summary.games:,} | **{100 * share:.1f} %** "
            f"| {100 * low:.1f}-{100 * high:.1f} % | {target} "
            f"| {_ms(median)} | {_ms(p95)} | {_ms(worst)} |"
        )
        kinds = {}
        for name, kind in summary.kinds.items():
            kind_median, kind_p95, kind_max = kind.latency()
            kinds[name] = {
                "win_share": kind.win_share()[0],
                "decisions": len(kind.latencies),
                "latency_s": {"median": kind_median, "p95": kind_p95, "max": kind_max},
            }
            timing_rows.append(
                f"| {name} | {figure.title} | {len(kind.latencies):,} "
                f"| {_ms(kind_median)} | {_ms(kind_p95)} | {_ms(kind_max)} |"
            )
        report.append(
            {
                "figure": figure.key,
                "deals": args.deals,
                "games": summary.games,
                "win_share": share,
                "ci95": [low, high],
                "target": figure.target,
                "latency_s": {"median": median, "p95": p95, "max": worst},
                "seconds": time.perf_counter() - started,
                "others": {name: kind.win_share()[0] for name, kind in summary.kinds.items() if name != figure.hero},
                "kinds": kinds,
            }
        )
        print(rows[-1], file=sys.stderr, flush=True)
    print("| figure | deals | games | win share | 95 % CI | target | median ms | p95 ms | max ms |")
    print("|---|--:|--:|--:|--:|--:|--:|--:|--:|")
    print("\n".join(rows))
    print()
    print("| player | at the table of | decisions | median ms | p95 ms | max ms |")
    print("|---|---|--:|--:|--:|--:|")
    print("\n".join(timing_rows))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump({"seed": args.seed, "jobs": args.jobs, "figures": report}, handle, indent=2)
            handle.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
