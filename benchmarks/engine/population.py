#!/usr/bin/env python3
"""master against a population, as game-AI reports it: head to head, a round robin's ratings, Nash averaging.

The population (:mod:`benchmarks.engine.population_cells`): the six levels
below ``master``, ``expert-reads``, ``hoarder``, ``blocker``,
``tight-blocker``, ``sampler:100ms``, the first learned player
(``cmd:python -m elferraus.envs.learned``), OpenSpiel's ISMCTS at 100
simulations a move, and league snapshots (``league:PATH``, the policy's
likeliest legal move; by default the three kept in
``benchmarks/results/league-snapshots/``). Every cell is an arena table on
duplicate deals (each deal in every seat rotation), with each member's win
share per seat and its 95 % interval, the deal as the unit:

- ``solo:X``: ``master`` against ``players - 1`` of ``X``;
- ``trio:X``: ``players - 1`` masters against one ``X`` (not at 2 players,
  where it is the solo cell);
- ``mixed:NN``: the round robin's tables, distinct members and ``master``
  (every subset when there are at most 60, else a balanced design,
  ``--tables``), ``--mixed-deals`` deals each. Over them: OpenSkill ratings
  (the arena's), who finished ahead of whom, and its Nash averaging
  (:mod:`benchmarks.engine.meta_game`).

``--setting`` picks the table: ``4p`` (4 players, classic rules: the whole
population), or ``2p``, ``6p``, ``ravensburger`` (4 players), each against
the five members ``master`` won least against in ``4p``'s solo cells of the
same journal and seed (those who can sit there: the learned player plays 4
players only), or against ``--population``.

    python -m benchmarks.engine.population --deals 200 --jobs 2 --journal pop.jsonl --json pop-4p.json
    python -m benchmarks.engine.population --only solo,trio --deals 200 --journal pop.jsonl
    python -m benchmarks.engine.population --setting 2p --deals 200 --journal pop.jsonl --json pop-2p.json
    python -m benchmarks.engine.population --population greedy,hoarder,blocker --deals 4 --mixed-deals 2
    python -m benchmarks.engine.population --journal benchmarks/results/population-journal --seal

With ``--journal`` every finished deal is written at once (JSON Lines), and a run started again with the same
journal plays only the deals it lacks (:mod:`benchmarks.engine.population_play`); a journal folder with
``--seal`` ends each run by compressing what it added into a new part, to be committed and taken up on
another machine. It prints Markdown tables;
``--json`` writes every figure. Decision times are reported, never asserted.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.engine.meta_game import nash_average, pairwise
from benchmarks.engine.population_cells import (
    BASE,
    HOME,
    MASTER,
    SETTINGS,
    SNAPSHOTS,
    STRONGEST,
    Cell,
    Setting,
    can_sit,
    cells,
    default_snapshots,
    fingerprint,
    spec_of,
)
from benchmarks.engine.population_play import Deal, Journal, TableKey, play
from elferraus.arena.runner import GameResult
from elferraus.arena.stats import KindStats, Ratings, rank_of_result
from elferraus.table.seating import seat_specs

KINDS = ("solo", "trio", "mixed")


def _figures(cell: Cell, deals: list[Deal]) -> dict[str, Any]:
    """A cell's figures: per member at the table, its win share per seat, interval, penalties, decision times."""
    stats = {name: KindStats(name) for name in dict.fromkeys(cell.table)}
    forfeits = 0
    for deal in deals:
        for game in deal.games:
            forfeits += game.forfeit is not None
            for seat, name in enumerate(game.specs):
                penalty = game.penalties[seat] if game.penalties is not None else None
                forfeited = game.forfeit is not None and game.forfeit[0] == seat
                stats[name].add_seat(game.deal, game.winner == seat, penalty, forfeited)
                stats[name].latencies.extend(game.latencies[seat])
    members = {}
    for name, kind in stats.items():
        share, low, high = kind.win_share()
        median, p95, worst = kind.latency()
        members[name] = {
            "seats": kind.seats,
            "win_share": share,
            "ci95": [low, high],
            "mean_penalty": kind.mean_penalty(),
            "forfeits": kind.forfeits,
            "decisions": len(kind.latencies),
            "latency_s": {"median": median, "p95": p95, "max": worst},
        }
    seconds = [deal.seconds for deal in deals]
    return {
        "key": cell.key,
        "kind": cell.kind,
        "table": list(cell.table),
        "deals_asked": cell.deals,
        "deals": len(deals),
        "games": sum(len(deal.games) for deal in deals),
        "forfeits": forfeits,
        "seconds_per_deal": sum(seconds) / len(seconds) if seconds else None,
        "members": members,
    }


def _meta_game(names: list[str], games: list[GameResult]) -> dict[str, Any]:
    """Ratings, who finished ahead of whom, and Nash averaging over the round robin's games."""
    ratings = Ratings()
    for game in games:
        if game.penalties is not None:
            ratings.add_game(game.specs, rank_of_result(game.winner, game.penalties))
    shares = pairwise(names, games)
    nash = nash_average(shares.antisymmetric())
    return {
        "games": len(games),
        "ratings": [
            {"name": name, "mu": mu, "sigma": sigma, "ordinal": ordinal} for name, mu, sigma, ordinal in ratings.table()
        ],
        "players": names,
        "ahead": shares.ahead.tolist(),
        "meetings": shares.meetings.tolist(),
        "nash": {
            "mixture": dict(zip(names, nash.mixture.tolist(), strict=True)),
            "scores": dict(zip(names, nash.scores.tolist(), strict=True)),
            "support": [names[i] for i in nash.support],
            "max_entropy": nash.max_entropy,
        },
    }


def _strongest(journal: Journal, seed: int, setting: Setting) -> list[str]:
    """The members ``master`` won least against in the home setting's solo cells (who can sit at ``setting``)."""
    shares = []
    for key, found in journal.deals.items():
        table = key.table
        opponent = table[-1]
        solo = len(table) == HOME.players and table[0] == MASTER != opponent and set(table[1:]) == {opponent}
        if not solo or key.rules != HOME.rules or key.seed != seed or not can_sit(opponent, setting):
            continue
        if key.versions != TableKey.of(table, key.rules, seed).versions:
            continue
        games = [game for deal in found.values() for game in deal.games]
        won = sum(game.specs[game.winner] == MASTER for game in games if game.winner is not None)
        shares.append((won / len(games), opponent))
    if len(shares) < STRONGEST:
        raise SystemExit(
            f"{setting.key}: the {HOME.key} solo cells of this journal and seed hold {len(shares)} members who can "
            f"sit here, not {STRONGEST}: run --setting {HOME.key} --only solo first, or name them with --population"
        )
    shares.sort()
    print(
        f"the strongest by master's win share in the {HOME.key} solo cells: "
        + ", ".join(f"{name} {100 * share:.1f} %" for share, name in shares[:STRONGEST]),
        file=sys.stderr,
    )
    return [name for _, name in shares[:STRONGEST]]


def _population(args: argparse.Namespace, setting: Setting, journal: Journal) -> list[str]:
    if args.population:
        names = [name.strip() for name in args.population.split(",") if name.strip()]
    elif setting != HOME:
        return _strongest(journal, args.seed, setting)
    else:
        if args.snapshots == "auto":
            snapshots = default_snapshots()
            if not snapshots:
                print(f"no league snapshots in {SNAPSHOTS}: the population has none", file=sys.stderr)
        else:
            snapshots = [path for path in args.snapshots.split(",") if path and args.snapshots != "none"]
        names = [*BASE, *(f"league:{path}" for path in snapshots)]
    for name in names:
        problem = seat_specs(spec_of(name), 1, commands=True)
        if isinstance(problem, str):
            raise SystemExit(f"--population: {problem}")
        if name == MASTER:
            raise SystemExit("--population: master is the player measured against the population, not a member")
        if names.count(name) > 1:
            raise SystemExit(f"--population: {name} is named twice")
        if not can_sit(name, setting):
            raise SystemExit(f"--population: {name} cannot sit at {setting.key}: the learned player plays 4 players")
    return names


def _ms(seconds: float) -> str:
    millis = 1000 * seconds
    return f"{millis:,.0f}" if millis >= 10 else f"{millis:.1f}" if millis >= 0.1 else f"{millis:.3f}"


def _share(figures: dict[str, Any] | None, name: str) -> str:
    if figures is None or not figures["deals"]:
        return "-"
    member = figures["members"][name]
    low, high = member["ci95"]
    return f"**{100 * member['win_share']:.1f}** ({100 * low:.1f}-{100 * high:.1f})"


def _print_report(setting: Setting, population: list[str], report: dict[str, Any]) -> None:
    by_key = {cell["key"]: cell for cell in report["cells"]}
    parity = 100 / setting.players
    print(f"## master against the population: {setting.players} players, {setting.rules} (parity {parity:.1f} %)\n")
    others = setting.players - 1
    if setting.players > 2:
        print(f"| X | master vs {others} X | {others} master vs X: master per seat | deals | s/deal |")
    else:
        print("| X | master vs X | - | deals | s/deal |")
    print("|---|--:|--:|--:|--:|")
    for name in population:
        solo, trio = by_key.get(f"solo:{name}"), by_key.get(f"trio:{name}")
        if solo is None and trio is None:
            continue
        deals = "/".join(str(cell["deals"]) for cell in (solo, trio) if cell is not None)
        seconds = "/".join(
            f"{cell['seconds_per_deal']:.1f}" for cell in (solo, trio) if cell is not None and cell["deals"]
        )
        print(f"| {name} | {_share(solo, MASTER)} | {_share(trio, MASTER)} | {deals} | {seconds or '-'} |")
    meta = report.get("round_robin")
    if meta is not None:
        print(f"\n## the round robin: {len(report['tables'])} tables, {meta['games']:,} games\n")
        print("| player | OpenSkill mu | sigma | ordinal | Nash weight | Nash-averaged score |")
        print("|---|--:|--:|--:|--:|--:|")
        for row in meta["ratings"]:
            name = row["name"]
            weight, score = meta["nash"]["mixture"][name], meta["nash"]["scores"][name]
            print(
                f"| {name} | {row['mu']:.2f} | {row['sigma']:.2f} | {row['ordinal']:.2f} "
                f"| {weight:.3f} | {score:+.3f} |"
            )
        print(f"\nthe equilibrium's support: {', '.join(meta['nash']['support'])}")
    print("\n## decision times (every deal of the chosen cells)\n")
    print("| player | decisions | median ms | p95 ms | max ms |")
    print("|---|--:|--:|--:|--:|")
    for name, timing in report["decision_times"].items():
        latency = timing["latency_s"]
        print(
            f"| {name} | {timing['decisions']:,} | {_ms(latency['median'])} | {_ms(latency['p95'])} "
            f"| {_ms(latency['max'])} |"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--setting", choices=sorted(SETTINGS), default=HOME.key)
    parser.add_argument("--deals", type=int, default=200, help="deals of each solo and trio cell")
    parser.add_argument("--mixed-deals", type=int, default=20, help="deals of each round-robin table")
    parser.add_argument(
        "--tables", type=int, default=0, help="round-robin tables (0: every subset up to 60, else each pair twice)"
    )
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", default=",".join(KINDS), help="comma-separated cells or kinds (solo,trio,mixed)")
    parser.add_argument("--population", default="", help="comma-separated members (default: the whole population)")
    parser.add_argument("--snapshots", default="auto", help="league snapshot files, comma-separated, or none")
    parser.add_argument(
        "--journal", type=Path, metavar="PATH", help="append each deal here (a .jsonl file or a journal folder)"
    )
    parser.add_argument(
        "--seal", action="store_true", help="at the end, even when stopped, seal the journal folder's open file"
    )
    parser.add_argument("--json", metavar="OUT")
    args = parser.parse_args(argv)
    setting = SETTINGS[args.setting]
    started = time.perf_counter()
    with Journal(args.journal) as journal:
        population = _population(args, setting, journal)
        everything = cells(setting, population, args.deals, args.mixed_deals, args.tables, args.seed)
        only = {token.strip() for token in args.only.split(",") if token.strip()}
        unknown = only - set(KINDS) - {cell.key for cell in everything}
        if unknown:
            parser.error(f"--only: no cell {', '.join(sorted(unknown))}; name a kind ({', '.join(KINDS)}) or a cell")
        chosen = [cell for cell in everything if cell.kind in only or cell.key in only]
        keys = {cell.key: TableKey.of(cell.table, setting.rules, args.seed) for cell in chosen}
        wanted: dict[TableKey, int] = {}
        for cell in chosen:
            wanted[keys[cell.key]] = max(wanted.get(keys[cell.key], 0), cell.deals)
        missing = sum(max(0, deals - len(journal.played(key, deals))) for key, deals in wanted.items())
        print(f"{setting.key}: {len(chosen)} cells, {missing} deals to play", file=sys.stderr, flush=True)
        names = {key: [cell.key for cell in chosen if keys[cell.key] == key] for key in wanted}
        count = 0

        def on_deal(key: TableKey, deal: Deal) -> None:
            nonlocal count
            count += 1
            print(
                f"  [{count}/{missing}] {'='.join(names[key])} deal {deal.deal}: {deal.seconds:.1f} s",
                file=sys.stderr,
                flush=True,
            )

        try:
            play(journal, wanted, args.jobs, on_deal)
        finally:
            sealed = journal.seal() if args.seal else None
            if sealed is not None:
                print(f"sealed {sealed}", file=sys.stderr, flush=True)
        played = {cell.key: journal.played(keys[cell.key], cell.deals) for cell in chosen}
    report: dict[str, Any] = {
        "setting": {"key": setting.key, "players": setting.players, "rules": setting.rules},
        "seed": args.seed,
        "deals": args.deals,
        "mixed_deals": args.mixed_deals,
        "jobs": args.jobs,
        "master": fingerprint(MASTER),
        "population": [{"name": name, "fingerprint": fingerprint(name)} for name in population],
        "cells": [_figures(cell, played[cell.key]) for cell in chosen],
        "tables": [list(cell.table) for cell in chosen if cell.kind == "mixed"],
    }
    mixed = [cell for cell in chosen if cell.kind == "mixed"]
    if mixed:
        order = sorted(
            (game.deal, number, game.rotation, game)
            for number, cell in enumerate(mixed)
            for deal in played[cell.key]
            for game in deal.games
        )
        report["round_robin"] = _meta_game([MASTER, *population], [game for *_, game in order])
    timings: dict[str, KindStats] = {}
    for cell in chosen:
        for deal in played[cell.key]:
            for game in deal.games:
                for seat, name in enumerate(game.specs):
                    timings.setdefault(name, KindStats(name)).latencies.extend(game.latencies[seat])
    report["decision_times"] = {
        name: {
            "decisions": len(kind.latencies),
            "latency_s": dict(zip(("median", "p95", "max"), kind.latency(), strict=True)),
        }
        for name, kind in timings.items()
    }
    report["seconds"] = time.perf_counter() - started
    _print_report(setting, population, report)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(report, handle, indent=2)
            handle.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
