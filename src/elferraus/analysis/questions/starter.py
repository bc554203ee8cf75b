"""Does it matter who starts? Win share by position after the starter, at tables of equal players."""

from __future__ import annotations

from typing import Any

import numpy as np

from elferraus.analysis.data import StudyData
from elferraus.analysis.plan import LEVELS, PLAYER_COUNTS, Sizes, Table, equal_table
from elferraus.analysis.plots import ACCENT, LEVEL_COLOURS, MARKERS, error_bars, figure, png
from elferraus.analysis.report_model import Plot, Section, TableBlock
from elferraus.analysis.stats import proportion
from elferraus.analysis.words import Words

NAME = "starter"


def key(level: str, players: int) -> str:
    """The table of ``players`` equal ``level`` players (shared with the other questions)."""
    return f"starter/{level}-{players}"


def counts(level: str, sizes: Sizes) -> list[int]:
    """The player counts at which ``level`` sits at a table of equals."""
    return sorted(sizes.expert_equal_deals) if level == "expert" else list(PLAYER_COUNTS)


def tables(sizes: Sizes) -> list[Table]:
    """A table of equals for every level and player count (``expert`` at the counts its sizes name)."""
    return [
        equal_table(
            NAME,
            level,
            players,
            (sizes.expert_equal_deals if level == "expert" else sizes.equal_deals)[players],
            sizes,
        )
        for level in LEVELS
        for players in counts(level, sizes)
    ]


def starter_figures(data: StudyData, table: str, players: int) -> dict[str, Any]:
    """The starter's win share at one table of equals, and the share of every later position."""
    seats = data.seats(table)
    won = seats["won"].astype(bool)
    position = seats["position"]
    by_position = []
    for place in range(players):
        at = position == place
        by_position.append({"position": place, **proportion(int(won[at].sum()), int(at.sum())).as_json("win_share")})
    first = by_position[0]
    return {
        "win_share": first["win_share"],
        "ci95": first["ci95"],
        "n": first["n"],
        "parity": 1 / players,
        "by_position": by_position,
    }


def measure(data: StudyData, sizes: Sizes, seed: int) -> dict[str, Any]:
    """``starter.<level>.<players>``: the starter's share with its interval, parity, every position's share."""
    return {
        "starter": {
            level: {
                str(players): starter_figures(data, key(level, players), players) for players in counts(level, sizes)
            }
            for level in LEVELS
        }
    }


def section(results: dict[str, Any], words: Words) -> Section:
    """The starter section of the report."""
    figures = results["starter"]
    with figure(panels=2) as (fig, (left, right)):
        for offset, level in enumerate(LEVELS):
            present = [p for p in PLAYER_COUNTS if str(p) in figures[level]]
            values, bars = error_bars([figures[level][str(p)] for p in present], "win_share")
            xs = [p + (offset - 1.5) * 0.08 for p in present]
            left.errorbar(
                xs,
                values,
                yerr=bars,
                marker=MARKERS[level],
                color=LEVEL_COLOURS[level],
                capsize=2,
                label=words.level(level),
            )
        left.plot(PLAYER_COUNTS, [100 / p for p in PLAYER_COUNTS], "--", color=ACCENT, label=words("common.parity"))
        left.set_xticks(PLAYER_COUNTS)
        left.set_xlabel(words("common.players"))
        left.set_ylabel(words("starter.axis"))
        left.legend(fontsize=8)
        width = 0.2
        for offset, level in enumerate(LEVELS):
            places = figures[level]["4"]["by_position"]
            values, bars = error_bars(places, "win_share")
            places_x = np.arange(4) + (offset - 1.5) * width
            right.bar(
                places_x, values, width, yerr=bars, capsize=2, color=LEVEL_COLOURS[level], label=words.level(level)
            )
        right.axhline(25, linestyle="--", color=ACCENT)
        right.set_xticks(range(4), [words("starter.place", place=place + 1) for place in range(4)])
        right.set_ylabel(words("starter.axis_position"))
        right.set_title(words("starter.four"))
        picture = png(fig)
    rows = tuple(
        (
            words.level(level),
            *(
                words.share_with_interval(figures[level][str(p)], "win_share") if str(p) in figures[level] else "–"
                for p in PLAYER_COUNTS
            ),
        )
        for level in LEVELS
    )
    edges = {level: figures[level]["4"]["win_share"] - 0.25 for level in LEVELS}
    strongest = max(edges, key=lambda level: abs(edges[level]))
    two = figures["greedy"]["2"]
    paragraphs = (
        words(
            "starter.meaning",
            greedy=words.share_with_interval(figures["greedy"]["4"], "win_share"),
            medium=words.share_with_interval(figures["medium"]["4"], "win_share"),
            expert=words.share_with_interval(figures["expert"]["4"], "win_share"),
            random=words.share_with_interval(figures["random"]["4"], "win_share"),
            two=words.share_with_interval(two, "win_share"),
        ),
        words("starter.strongest", level=words.level(strongest), edge=words.signed(100 * edges[strongest])),
    )
    return Section(
        NAME,
        words("starter.title"),
        words("starter.question"),
        paragraphs,
        (Plot("starter.png", picture, words("starter.alt"), words("starter.caption")),),
        (TableBlock((words("common.level"), *(str(p) for p in PLAYER_COUNTS)), rows, words("starter.table")),),
    )
