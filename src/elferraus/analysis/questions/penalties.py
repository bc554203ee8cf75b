"""Penalty points: how many a loser keeps after a game, and how long a match to a target lasts.

Rounds of a match are independent deals between the same players, so the
games of a table of equals, taken in deal order, are the rounds of matches:
a match takes rounds until somebody's total reaches the target.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from elferraus.analysis.data import StudyData
from elferraus.analysis.plan import PLAYER_COUNTS, Sizes, Table
from elferraus.analysis.plots import LEVEL_COLOURS, error_bars, figure, png
from elferraus.analysis.questions import starter
from elferraus.analysis.report_model import Plot, Section, TableBlock
from elferraus.analysis.stats import mean
from elferraus.analysis.words import Words

NAME = "penalties"
LEVEL = "medium"
TARGETS = (50, 100, 200)
SHORT_MATCH = 4.0
"""A match to 100 points of at most this many rounds on average is called short."""


def tables(sizes: Sizes) -> list[Table]:
    """None of its own: the tables of equals of the starter question."""
    return []


def match_lengths(penalties: np.ndarray[Any, Any], target: int) -> list[int]:
    """Rounds of each match played through ``penalties`` (one row per round, one column per seat).

    A match ends after the round in which a total reaches ``target``; an
    unfinished last match is left out.

    >>> match_lengths(np.array([[0, 30], [40, 0], [0, 50], [60, 0], [10, 0]]), 50)
    [3, 1]
    """
    lengths = []
    totals = np.zeros(penalties.shape[1])
    rounds = 0
    for row in penalties:
        totals += row
        rounds += 1
        if totals.max() >= target:
            lengths.append(rounds)
            totals[:] = 0
            rounds = 0
    return lengths


def penalty_figures(seats: dict[str, Any], players: int) -> dict[str, Any]:
    """One table's losers' penalties and its match lengths."""
    losers = seats["penalty"][~seats["won"].astype(bool)]
    order = np.lexsort((seats["seat"], seats["deal"]))
    table = seats["penalty"][order].reshape(-1, players)
    counts, edges = np.histogram(losers, bins=np.arange(0, int(losers.max(initial=0)) + 11, 10))
    return {
        "loser": {
            **mean(losers).as_json("mean"),
            "median": float(np.median(losers)) if len(losers) else 0.0,
            "p90": float(np.quantile(losers, 0.9)) if len(losers) else 0.0,
            "histogram": {"edges": edges.tolist(), "counts": counts.tolist()},
        },
        "match": {str(target): mean(match_lengths(table, target)).as_json("mean_rounds") for target in TARGETS},
    }


def measure(data: StudyData, sizes: Sizes, seed: int) -> dict[str, Any]:
    """``penalties.<players>``: a loser's penalty points and ``match.<target>.mean_rounds``, ``medium`` tables."""
    return {
        "penalties": {str(p): penalty_figures(data.seats(starter.key(LEVEL, p)), p) for p in PLAYER_COUNTS},
    }


def section(results: dict[str, Any], words: Words) -> Section:
    """The penalty-points section of the report."""
    figures = results["penalties"]
    four = figures["4"]
    with figure(panels=2) as (fig, (left, right)):
        histogram = four["loser"]["histogram"]
        total = max(1, sum(histogram["counts"]))
        left.stairs(
            [100 * c / total for c in histogram["counts"]],
            histogram["edges"],
            fill=True,
            color=LEVEL_COLOURS[LEVEL],
            alpha=0.7,
        )
        left.set_xlabel(words("penalties.points"))
        left.set_ylabel(words("penalties.share"))
        left.set_title(words("penalties.four"))
        for target, colour in zip(
            TARGETS, (LEVEL_COLOURS["greedy"], LEVEL_COLOURS["medium"], LEVEL_COLOURS["expert"]), strict=True
        ):
            entries = [figures[str(p)]["match"][str(target)] for p in PLAYER_COUNTS]
            rounds, bars = error_bars(entries, "mean_rounds", 1.0)
            right.errorbar(
                PLAYER_COUNTS,
                rounds,
                yerr=bars,
                marker="o",
                color=colour,
                capsize=2,
                label=words("penalties.target", target=target),
            )
        right.set_xticks(PLAYER_COUNTS)
        right.set_xlabel(words("common.players"))
        right.set_ylabel(words("penalties.rounds"))
        right.legend(fontsize=8)
        picture = png(fig)
    rows = tuple(
        (
            str(p),
            words.value_with_interval(figures[str(p)]["loser"], "mean"),
            words.number(figures[str(p)]["loser"]["median"], 0),
            *(words.number(figures[str(p)]["match"][str(t)]["mean_rounds"]) for t in TARGETS),
        )
        for p in PLAYER_COUNTS
    )
    paragraphs = (
        words(
            "penalties.meaning",
            mean=words.number(four["loser"]["mean"]),
            median=words.number(four["loser"]["median"], 0),
            p90=words.number(four["loser"]["p90"], 0),
        ),
        words(
            "penalties.verdict_short"
            if four["match"]["100"]["mean_rounds"] <= SHORT_MATCH
            else "penalties.verdict_long",
            rounds=words.number(four["match"]["100"]["mean_rounds"]),
        ),
    )
    return Section(
        NAME,
        words("penalties.title"),
        words("penalties.question"),
        paragraphs,
        (Plot("penalties.png", picture, words("penalties.alt"), words("penalties.caption")),),
        (
            TableBlock(
                (
                    words("common.players"),
                    words("penalties.mean"),
                    words("penalties.median"),
                    *(words("penalties.target", target=t) for t in TARGETS),
                ),
                rows,
                words("penalties.table"),
            ),
        ),
    )
