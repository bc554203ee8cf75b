"""How long is a game? Turns, actions and draws per game, and how often the pile runs out."""

from __future__ import annotations

from typing import Any

import numpy as np

from elferraus.analysis.data import StudyData
from elferraus.analysis.plan import PLAYER_COUNTS, VARIANTS, Sizes, Table
from elferraus.analysis.plots import LEVEL_COLOURS, MARKERS, error_bars, figure, png
from elferraus.analysis.questions import rules as rules_question
from elferraus.analysis.questions import starter
from elferraus.analysis.report_model import Plot, Section, TableBlock
from elferraus.analysis.stats import mean, proportion
from elferraus.analysis.words import Words

NAME = "length"
LEVEL = "medium"
"""Games are measured at tables of this level: a player who blocks, as people do."""


def tables(sizes: Sizes) -> list[Table]:
    """None of its own: the tables of equals of the starter and rules questions."""
    return []


def length_figures(games: dict[str, Any]) -> dict[str, Any]:
    """Means (with intervals) of one table's games."""
    actions = games["actions"]
    return {
        **mean(actions).as_json("mean_actions"),
        "actions_median": float(np.median(actions)),
        "actions_p90": float(np.quantile(actions, 0.9)),
        "turns": mean(games["turns"]).as_json("mean"),
        "draws": mean(games["draws"]).as_json("mean"),
        "lays": mean(games["lays"]).as_json("mean"),
        "pile_out": proportion(int(games["pile_out"].sum()), len(actions)).as_json("share"),
    }


def measure(data: StudyData, sizes: Sizes, seed: int) -> dict[str, Any]:
    """``length.<rules>.<players>``: per game of ``medium`` players, mean actions, turns, draws, pile out."""
    result: dict[str, dict[str, Any]] = {}
    for players in PLAYER_COUNTS:
        result.setdefault("classic", {})[str(players)] = length_figures(data.games(starter.key(LEVEL, players)))
    for variant in VARIANTS:
        if variant == "classic":
            continue
        for players in rules_question.PLAYERS:
            games = data.games(rules_question.equal_key(variant, players))
            result.setdefault(variant, {})[str(players)] = length_figures(games)
    histogram = data.games(starter.key(LEVEL, 4))["actions"]
    counts, edges = np.histogram(histogram, bins=30)
    return {
        "length": result,
        "length_histogram": {"players": 4, "edges": edges.tolist(), "counts": counts.tolist()},
    }


def section(results: dict[str, Any], words: Words) -> Section:
    """The length section of the report."""
    figures = results["length"]
    classic = [figures["classic"][str(p)] for p in PLAYER_COUNTS]
    with figure(panels=2) as (fig, (left, right)):
        histogram = results["length_histogram"]
        edges = histogram["edges"]
        left.stairs(histogram["counts"], edges, fill=True, color=LEVEL_COLOURS[LEVEL], alpha=0.7)
        left.set_xlabel(words("length.actions"))
        left.set_ylabel(words("length.games"))
        left.set_title(words("length.four"))
        values, bars = error_bars(classic, "mean_actions", 1.0)
        right.errorbar(
            PLAYER_COUNTS,
            values,
            yerr=bars,
            marker=MARKERS[LEVEL],
            color=LEVEL_COLOURS[LEVEL],
            label=words("length.actions"),
        )
        turns, turn_bars = error_bars([entry["turns"] for entry in classic], "mean", 1.0)
        right.errorbar(
            PLAYER_COUNTS, turns, yerr=turn_bars, marker="o", color=LEVEL_COLOURS["greedy"], label=words("length.turns")
        )
        right.set_xticks(PLAYER_COUNTS)
        right.set_xlabel(words("common.players"))
        right.set_ylabel(words("length.per_game"))
        right.legend(fontsize=8)
        picture = png(fig)
    rows = tuple(
        (
            str(p),
            words.value_with_interval(figures["classic"][str(p)], "mean_actions"),
            words.number(figures["classic"][str(p)]["turns"]["mean"]),
            words.number(figures["classic"][str(p)]["draws"]["mean"]),
            words.share_with_interval(figures["classic"][str(p)]["pile_out"], "share", 0),
        )
        for p in PLAYER_COUNTS
    )
    four = figures["classic"]["4"]
    paragraphs = (
        words(
            "length.meaning",
            actions=words.number(four["mean_actions"]),
            median=words.number(four["actions_median"], 0),
            p90=words.number(four["actions_p90"], 0),
            turns=words.number(four["turns"]["mean"]),
            draws=words.number(four["draws"]["mean"]),
            pile=words.percent(four["pile_out"]["share"], 0),
            two=words.number(figures["classic"]["2"]["mean_actions"]),
            six=words.number(figures["classic"]["6"]["mean_actions"]),
        ),
    )
    return Section(
        NAME,
        words("length.title"),
        words("length.question"),
        paragraphs,
        (Plot("length.png", picture, words("length.alt"), words("length.caption")),),
        (
            TableBlock(
                (
                    words("common.players"),
                    words("length.actions"),
                    words("length.turns"),
                    words("length.draws"),
                    words("length.pile_out"),
                ),
                rows,
                words("length.table"),
            ),
        ),
    )
